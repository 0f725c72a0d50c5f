package hooks

import (
	"encoding/json"
	"path/filepath"
)

// claudeTool maps an aidex tool to Claude Code's: its name and the
// renames of its argument fields (aidex name → Claude name).
type claudeTool struct {
	name   string
	fields map[string]string
}

// claudeTools is the table of aidex tools with a Claude Code equivalent.
var claudeTools = map[string]claudeTool{
	"run_command":  {name: "Bash", fields: map[string]string{"command": "command", "timeout": "timeout"}},
	"write_file":   {name: "Write", fields: map[string]string{"path": "file_path", "content": "content"}},
	"edit_file":    {name: "Edit", fields: map[string]string{"path": "file_path", "old_string": "old_string", "new_string": "new_string", "replace_all": "replace_all"}},
	"read_file":    {name: "Read", fields: map[string]string{"path": "file_path", "offset": "offset", "limit": "limit"}},
	"grep":         {name: "Grep", fields: map[string]string{"pattern": "pattern", "path": "path", "include": "glob"}},
	"search_files": {name: "Glob", fields: map[string]string{"pattern": "pattern", "path": "path"}},
	"web_fetch":    {name: "WebFetch", fields: map[string]string{"url": "url"}},
	"task":         {name: "Task", fields: map[string]string{"description": "description", "prompt": "prompt", "subagent_type": "subagent_type"}},
}

// ClaudeTool returns the tool name and input a Claude hook expects for an
// aidex call: for tools with a Claude equivalent the Claude name with its
// field names (file paths made absolute against workspace, as Claude
// gives them); other tools (mcp__server__tool included) keep their name
// and arguments.
func ClaudeTool(name string, args json.RawMessage, workspace string) (string, json.RawMessage) {
	ct, ok := claudeTools[name]
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
// is renamed; aidex field names pass through. Fields updatedInput leaves
// out keep their value from orig (Claude hooks often return only the
// fields they change... and then Claude replaces the whole input; aidex
// merges, so that a rewritten command keeps its working directory).
func AidexInput(name string, orig, updated json.RawMessage) (json.RawMessage, error) {
	var base, upd map[string]json.RawMessage
	if err := json.Unmarshal(orig, &base); err != nil || base == nil {
		base = map[string]json.RawMessage{}
	}
	if err := json.Unmarshal(updated, &upd); err != nil {
		return nil, err
	}
	back := map[string]string{}
	if ct, ok := claudeTools[name]; ok {
		for aidex, claude := range ct.fields {
			back[claude] = aidex
		}
	}
	for k, v := range upd {
		if a, ok := back[k]; ok {
			k = a
		}
		base[k] = v
	}
	return json.Marshal(base)
}
