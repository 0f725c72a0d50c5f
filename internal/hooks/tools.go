package hooks

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"

	"github.com/zelvior/aidex/internal/claudecompat"
)

// ClaudeTool returns the tool name and input a Claude hook expects for an
// aidex call: for tools with a Claude equivalent the Claude name with its
// field names and units (file paths made absolute against workspace, as
// Claude gives them; Bash's timeout in milliseconds); other tools (mcp__server__tool included) keep their name
// and arguments.
func ClaudeTool(name string, args json.RawMessage, workspace string) (string, json.RawMessage) {
	claude, fields, ok := claudecompat.ClaudeTool(name)
	if !ok {
		return name, args
	}
	var in map[string]json.RawMessage
	if json.Unmarshal(args, &in) != nil {
		return claude, args
	}
	out := map[string]json.RawMessage{}
	for _, f := range fields {
		if v, ok := in[f[0]]; ok {
			out[f[1]] = v
		}
	}
	if t, ok := out["timeout"]; ok && claude == "Bash" {
		// aidex's run_command takes seconds, Claude's Bash milliseconds.
		var sec float64
		if json.Unmarshal(t, &sec) == nil {
			out["timeout"], _ = json.Marshal(int64(math.Round(sec * 1000)))
		}
	}
	if p, ok := out["file_path"]; ok && workspace != "" {
		var s string
		if json.Unmarshal(p, &s) == nil && s != "" && !filepath.IsAbs(s) {
			out["file_path"], _ = json.Marshal(filepath.Join(workspace, s))
		}
	}
	js, err := json.Marshal(out)
	if err != nil {
		return claude, args
	}
	return claude, js
}

// AidexInput turns a hook's updatedInput for tool name (aidex's name)
// back into aidex's arguments: a Claude-form input (Claude field names)
// is renamed (run_command's timeout, Bash's milliseconds, becomes whole
// seconds, rounded up); aidex field names pass through. Fields updatedInput leaves
// out keep their value from orig, so that a rewritten command keeps its
// working directory (the Claude form has no field for it). Errors:
// updated is not a JSON object.
func AidexInput(name string, orig, updated json.RawMessage) (json.RawMessage, error) {
	var base, upd map[string]json.RawMessage
	if err := json.Unmarshal(orig, &base); err != nil || base == nil {
		base = map[string]json.RawMessage{}
	}
	if err := json.Unmarshal(updated, &upd); err != nil {
		return nil, fmt.Errorf("updatedInput must be a JSON object of the tool's fields: %w", err)
	}
	back := map[string]string{}
	if _, fields, ok := claudecompat.ClaudeTool(name); ok {
		for _, f := range fields {
			back[f[1]] = f[0]
		}
	}
	for k, v := range upd {
		if a, ok := back[k]; ok {
			k = a
		}
		if k == "timeout" && name == "run_command" {
			// Claude's Bash timeout is in milliseconds (whole seconds
			// for run_command, rounded up).
			var ms float64
			if json.Unmarshal(v, &ms) == nil && ms > 0 {
				v, _ = json.Marshal(int64(math.Ceil(ms / 1000)))
			}
		}
		base[k] = v
	}
	return json.Marshal(base)
}
