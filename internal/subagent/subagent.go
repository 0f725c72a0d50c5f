// Package subagent holds the definitions of the subagent types the `task`
// tool can start: the built-in `general` and `explore`, and custom types
// from markdown files in the Claude Code shape (`.aidex/agents/*.md`,
// `~/.config/aidex/agents/*.md`, `.claude/agents/*.md`,
// `~/.claude/agents/*.md`). It only reads definitions; the child engine is
// run by internal/app.
package subagent

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/zelvior/aidex/internal/frontmatter"
)

// The built-in types.
const (
	General = "general" // the parent's tools, a fresh context
	Explore = "explore" // read-only tools
)

// Definition is one subagent type.
//
// Name is what the model passes as subagent_type; Description tells the
// model when to use it. Tools lists the aidex tool names the type may use
// (nil: every tool of the parent); ReadOnly restricts it to the tools of
// kind read. Model is "" (inherit the parent's), an alias ("sonnet",
// "opus", "haiku") or "PROVIDER/MODEL" / "MODEL". Prompt is the system
// prompt ("" for the built-ins: aidex's default prompt). Source is the
// file it came from ("built-in" for the built-ins). Unknown lists tool
// names of the file that neither aidex nor the Claude mapping knows
// (they are ignored; `aidex agents list` shows them).
type Definition struct {
	Name        string
	Description string
	Tools       []string
	ReadOnly    bool
	Model       string
	Prompt      string
	Source      string
	Unknown     []string
}

// SourceBuiltin is the Source of the built-in types.
const SourceBuiltin = "built-in"

// Builtins returns the built-in types.
func Builtins() []Definition {
	return []Definition{
		{Name: General, Source: SourceBuiltin,
			Description: "General-purpose agent for researching complex questions, searching for code and carrying out multi-step tasks with the same tools as you, in a fresh context."},
		{Name: Explore, Source: SourceBuiltin, ReadOnly: true,
			Description: "Fast read-only agent for exploring a codebase: finds files, searches code and answers questions about it; it cannot change anything."},
	}
}

// claudeTools maps Claude Code's tool names to aidex's.
var claudeTools = map[string][]string{
	"Bash":         {"run_command"},
	"BashOutput":   {"get_background_output"},
	"KillShell":    {"kill_background_process"},
	"Read":         {"read_file"},
	"Write":        {"write_file"},
	"Edit":         {"edit_file"},
	"MultiEdit":    {"edit_file"},
	"NotebookEdit": {"edit_file"},
	"Grep":         {"grep"},
	"Glob":         {"search_files"},
	"LS":           {"list_directory"},
	"WebFetch":     {"web_fetch"},
	"Task":         {"task"},
	"TodoWrite":    {"todo_write"},
}

// MapTool returns the aidex tool names for a tool name of a definition:
// a Claude Code name (Bash, Read, Write, Edit, Grep, Glob, WebFetch, ...)
// maps to aidex's, an aidex name (or an MCP tool name mcp__server__tool)
// stays as it is. ok is false for a Claude name aidex has no
// equivalent of (WebSearch).
func MapTool(name string) (names []string, ok bool) {
	name = strings.TrimSpace(name)
	if n, found := claudeTools[name]; found {
		return n, true
	}
	if name == "" || (name[0] >= 'A' && name[0] <= 'Z') {
		return nil, false
	}
	return []string{name}, true
}

// file is the front matter of an agent file.
type file struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	Tools       any    `yaml:"tools"`
	Model       string `yaml:"model"`
}

// Parse reads one agent file's content; path names it in errors and
// becomes Source. The name defaults to the file name without .md.
// Errors: bad front matter, a tools value that is neither a list nor a
// string, a name that is not lower-case letters, digits and hyphens.
func Parse(path string, data []byte) (Definition, error) {
	var f file
	body, err := frontmatter.Parse(data, &f)
	if err != nil {
		return Definition{}, fmt.Errorf("%s: %w", path, err)
	}
	d := Definition{Name: strings.TrimSpace(f.Name), Description: strings.TrimSpace(f.Description),
		Model: strings.TrimSpace(f.Model), Prompt: strings.TrimSpace(string(body)), Source: path}
	if d.Name == "" {
		d.Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	if !validName(d.Name) {
		return Definition{}, fmt.Errorf("%s: agent name %q: use lower-case letters, digits, hyphens and underscores", path, d.Name)
	}
	if d.Model == "inherit" {
		d.Model = ""
	}
	list, err := toolList(f.Tools)
	if err != nil {
		return Definition{}, fmt.Errorf("%s: tools: %w", path, err)
	}
	if list != nil {
		d.Tools = []string{}
	}
	for _, t := range list {
		names, ok := MapTool(t)
		if !ok {
			d.Unknown = append(d.Unknown, t)
			continue
		}
		for _, n := range names {
			if !contains(d.Tools, n) {
				d.Tools = append(d.Tools, n)
			}
		}
	}
	return d, nil
}

// toolList reads the tools value: absent (nil: all tools), a YAML list or
// a comma-separated string.
func toolList(v any) ([]string, error) {
	switch t := v.(type) {
	case nil:
		return nil, nil
	case string:
		out := []string{}
		for _, s := range strings.Split(t, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
		return out, nil
	case []any:
		out := []string{}
		for _, x := range t {
			s, ok := x.(string)
			if !ok {
				return nil, fmt.Errorf("%v is not a tool name: write a list of names or a comma-separated string", x)
			}
			out = append(out, strings.TrimSpace(s))
		}
		return out, nil
	}
	return nil, fmt.Errorf("write a list of tool names or a comma-separated string, not %T", v)
}

func validName(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return s != ""
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Dirs says where agent files are read from: Workspace is the project
// folder (its .aidex/agents and .claude/agents are read only when Trusted),
// Home the user's home (~/.claude/agents), ConfigDir aidex's config
// directory (its agents folder).
type Dirs struct {
	Workspace string
	Trusted   bool
	Home      string
	ConfigDir string
}

// Folders returns the folders read, highest precedence first: the
// project's .aidex/agents and .claude/agents (when trusted), then the
// user's aidex and Claude folders.
func (d Dirs) Folders() []string {
	var out []string
	if d.Workspace != "" && d.Trusted {
		out = append(out, filepath.Join(d.Workspace, ".aidex", "agents"), filepath.Join(d.Workspace, ".claude", "agents"))
	}
	if d.ConfigDir != "" {
		out = append(out, filepath.Join(d.ConfigDir, "agents"))
	}
	if d.Home != "" {
		out = append(out, filepath.Join(d.Home, ".claude", "agents"))
	}
	return out
}

// Set is the loaded types: the built-ins and the custom ones, by name.
type Set struct {
	Defs []Definition
	// Warnings are files that could not be read or parsed (they are
	// skipped) and custom types that lost to one of higher precedence.
	Warnings []string
}

// Load reads the built-ins and every agent file of d's folders. A type
// defined in several places is taken from the first folder (see
// Folders); a custom type may replace a built-in. Unreadable or invalid
// files become warnings, not errors. An untrusted project's folders are
// not read.
func Load(d Dirs) Set {
	var s Set
	seen := map[string]int{}
	for _, dir := range d.Folders() {
		entries, err := os.ReadDir(dir)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				s.Warnings = append(s.Warnings, fmt.Sprintf("agents: %v", err))
			}
			continue
		}
		for _, e := range entries {
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".md") {
				continue
			}
			path := filepath.Join(dir, e.Name())
			data, err := os.ReadFile(path)
			if err != nil {
				s.Warnings = append(s.Warnings, fmt.Sprintf("agents: %v", err))
				continue
			}
			def, err := Parse(path, data)
			if err != nil {
				s.Warnings = append(s.Warnings, "agents: "+err.Error())
				continue
			}
			if i, dup := seen[def.Name]; dup {
				s.Warnings = append(s.Warnings, fmt.Sprintf("agents: %s: %q is already defined by %s", path, def.Name, s.Defs[i].Source))
				continue
			}
			seen[def.Name] = len(s.Defs)
			s.Defs = append(s.Defs, def)
		}
	}
	for _, b := range Builtins() {
		if _, dup := seen[b.Name]; !dup {
			seen[b.Name] = len(s.Defs)
			s.Defs = append(s.Defs, b)
		}
	}
	sort.SliceStable(s.Defs, func(i, j int) bool { return s.Defs[i].Name < s.Defs[j].Name })
	return s
}

// Get returns the type called name.
func (s Set) Get(name string) (Definition, bool) {
	for _, d := range s.Defs {
		if d.Name == name {
			return d, true
		}
	}
	return Definition{}, false
}

// Names returns the type names, sorted.
func (s Set) Names() []string {
	out := make([]string, len(s.Defs))
	for i, d := range s.Defs {
		out[i] = d.Name
	}
	return out
}

// ModelAlias returns the words a model alias of Claude Code stands for
// ("sonnet", "opus", "haiku"), matched against the model ids of the
// parent's provider; ok is false for anything else (a model id).
func ModelAlias(model string) (word string, ok bool) {
	switch m := strings.ToLower(strings.TrimSpace(model)); m {
	case "sonnet", "opus", "haiku":
		return m, true
	}
	return "", false
}
