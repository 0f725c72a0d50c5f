package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// approvedFile is StateDir/approved.json: the allow rules the user approved
// with "always allow in this project", by absolute folder.
func (p Paths) approvedFile() string {
	if p.StateDir == "" {
		return ""
	}
	return filepath.Join(p.StateDir, "approved.json")
}

// ApproveRule records that the user approved rule ("TOOL(PATTERN)") for
// the project in dir, answering "always allow in this project". The rule
// is also written to dir's .aidex/config.toml by the caller; recording it
// here, in the user's own state, is what lets Load apply that allow rule
// in a folder that is not trusted as a whole (an untrusted project file
// may not add allow rules of its own). Errors: dir does not exist, a bad
// rule, the state file cannot be read or written.
func (p Paths) ApproveRule(dir, rule string) error {
	if _, _, err := ParseRule(rule); err != nil {
		return err
	}
	abs, err := resolveDir(dir, true)
	if err != nil {
		return err
	}
	all, err := p.approved()
	if err != nil {
		return err
	}
	if slices.Contains(all[abs], rule) {
		return nil
	}
	all[abs] = append(all[abs], rule)
	data, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		return fmt.Errorf("config: encode approved rules: %w", err)
	}
	return writeFileAtomic(p.approvedFile(), append(data, '\n'))
}

// ApprovedRules returns the rules the user approved for the project in dir
// (exactly that folder, not its parents).
func (p Paths) ApprovedRules(dir string) ([]string, error) {
	abs, err := resolveDir(dir, false)
	if err != nil {
		return nil, err
	}
	all, err := p.approved()
	if err != nil {
		return nil, err
	}
	return all[abs], nil
}

func (p Paths) approved() (map[string][]string, error) {
	f := p.approvedFile()
	if f == "" {
		return nil, errors.New("config: no state directory (Paths not resolved)")
	}
	out := map[string][]string{}
	data, err := os.ReadFile(f)
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, fmt.Errorf("config: read approved rules: %w", err)
	}
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("config: %s is not a JSON object of folder → rules (fix or delete it): %w", f, err)
	}
	return out, nil
}
