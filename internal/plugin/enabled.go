package plugin

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/zelvior/aidex/internal/atomicfile"
)

// EnabledKey is the settings key of plugin enablement (Claude Code's):
// {"enabledPlugins": {"NAME@MARKETPLACE": true|false}}.
const EnabledKey = "enabledPlugins"

// ReadEnabled returns the enabledPlugins object of a settings file (plugin
// id → on). A missing file or key gives nil. Errors: the file cannot be
// read, is not a JSON object, or enabledPlugins is not an object of
// booleans; each names the file.
func ReadEnabled(file string) (map[string]bool, error) {
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("plugin: read %s: %w", file, err)
	}
	raw, err := decodeObject(file, data)
	if err != nil {
		return nil, err
	}
	v, ok := raw[EnabledKey]
	if !ok {
		return nil, nil
	}
	var out map[string]bool
	if err := json.Unmarshal(v, &out); err != nil {
		return nil, fmt.Errorf("plugin: %s: %q must map \"NAME@MARKETPLACE\" to true or false: %w", file, EnabledKey, err)
	}
	return out, nil
}

// SetEnabled records id as on or off in file's enabledPlugins, keeping the
// file's other keys (the file and its folder are created when missing).
// Errors: as ReadEnabled's; the file cannot be written.
func SetEnabled(file, id string, on bool) error {
	return editEnabled(file, func(m map[string]bool) { m[id] = on })
}

// ForgetEnabled drops id from file's enabledPlugins (a missing file is
// left missing). Errors: as SetEnabled's.
func ForgetEnabled(file, id string) error {
	if _, err := os.Stat(file); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return editEnabled(file, func(m map[string]bool) { delete(m, id) })
}

// editEnabled changes file's enabledPlugins with change.
func editEnabled(file string, change func(map[string]bool)) error {
	raw := map[string]json.RawMessage{}
	data, err := os.ReadFile(file)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("plugin: read %s: %w", file, err)
	default:
		if strings.TrimSpace(string(data)) != "" {
			if raw, err = decodeObject(file, data); err != nil {
				return err
			}
		}
	}
	cur, err := ReadEnabled(file)
	if err != nil {
		return err
	}
	if cur == nil {
		cur = map[string]bool{}
	}
	change(cur)
	raw[EnabledKey], _ = json.Marshal(cur)
	out, err := json.MarshalIndent(raw, "", "  ")
	if err != nil {
		return fmt.Errorf("plugin: encode %s: %w", file, err)
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return fmt.Errorf("plugin: %w", err)
	}
	if err := atomicfile.WriteFile(file, append(out, '\n'), 0o600); err != nil {
		return fmt.Errorf("plugin: write %s: %w", file, err)
	}
	return nil
}

// Enabled folds enablement layers (lowest precedence first: the user's,
// then the project's, then the local one): the last layer that names id
// decides. ok is false when none does.
func Enabled(id string, layers ...map[string]bool) (on, ok bool) {
	for _, l := range layers {
		if v, has := l[id]; has {
			on, ok = v, true
		}
	}
	return on, ok
}
