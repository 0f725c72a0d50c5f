package hooks

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
)

// claudeTool maps an aidex tool to Claude Code's: its name and the
// renames of its argument fields (aidex name → Claude name).
type claudeTool struct {
	name   string
	fields map[string]string
}

// claudeToolFor returns the Claude Code equivalent of aidex tool name
// (a switch, not a map: nothing is built at package init).
func claudeToolFor(name string) (claudeTool, bool) {
	switch name {
	case "run_command":
		return claudeTool{name: "Bash", fields: map[string]string{"command": "command", "timeout": "timeout"}}, true
	case "write_file":
		return claudeTool{name: "Write", fields: map[string]string{"path": "file_path", "content": "content"}}, true
	case "edit_file":
		return claudeTool{name: "Edit", fields: map[string]string{"path": "file_path", "old_string": "old_string",
			"new_string": "new_string", "replace_all": "replace_all"}}, true
	case "read_file":
		return claudeTool{name: "Read", fields: map[string]string{"path": "file_path", "offset": "offset", "limit": "limit"}}, true
	case "grep":
		return claudeTool{name: "Grep", fields: map[string]string{"pattern": "pattern", "path": "path", "include": "glob"}}, true
	case "search_files":
		return claudeTool{name: "Glob", fields: map[string]string{"pattern": "pattern", "path": "path"}}, true
	case "web_fetch":
		return claudeTool{name: "WebFetch", fields: map[string]string{"url": "url"}}, true
	case "todo_write":
		return claudeTool{name: "TodoWrite", fields: map[string]string{"todos": "todos"}}, true
	case "task":
		return claudeTool{name: "Task", fields: map[string]string{"description": "description", "prompt": "prompt",
			"subagent_type": "subagent_type"}}, true
	}
	return claudeTool{}, false
}

// ClaudeTool returns the tool name and input a Claude hook expects for an
// aidex call: for tools with a Claude equivalent the Claude name with its
// field names and units (file paths made absolute against workspace, as
// Claude gives them; Bash's timeout in milliseconds); other tools (mcp__server__tool included) keep their name
// and arguments.
func ClaudeTool(name string, args json.RawMessage, workspace string) (string, json.RawMessage) {
	ct, ok := claudeToolFor(name)
	if !ok {
		return name, args
	}
	var in map[string]json.RawMessage
	if json.Unmarshal(args, &in) != nil {
		return ct.name, args
	}
	out := map[string]json.RawMessage{}
	for k, v := range in {
		if to, ok := ct.fields[k]; ok {
			out[to] = v
		}
	}
	if t, ok := out["timeout"]; ok && ct.name == "Bash" {
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
		return ct.name, args
	}
	return ct.name, js
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
	if ct, ok := claudeToolFor(name); ok {
		for aidex, claude := range ct.fields {
			back[claude] = aidex
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
