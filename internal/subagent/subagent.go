// Package subagent holds the definitions of the subagent types the `task`
// tool can start: the built-in `general` and `explore`, and custom types
// from markdown files in the Claude Code shape (`.aidex/agents/`,
// `~/.config/aidex/agents/`, `.claude/agents/`, `~/.claude/agents/`, their
// subfolders included). It only reads definitions; the child engine is
// run by internal/app.
package subagent

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/zelvior/aidex/internal/claudecompat"
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
// (nil: every tool of the parent); Disallowed the tools it may not use
// (its disallowedTools: Write or Edit takes away every file-changing
// tool); ReadOnly restricts it to the tools of kind read. Model is ""
// (inherit the parent's), an alias ("sonnet", "opus", "haiku") or
// "PROVIDER/MODEL" / "MODEL". Prompt is the system prompt ("" for the
// built-ins: aidex's default prompt). Source is the file it came from
// ("built-in" for the built-ins). Unknown lists tool names of the file
// that neither aidex nor the Claude mapping knows (they are ignored;
// `aidex agents list` shows them).
type Definition struct {
	Name        string
	Description string
	Tools       []string
	Disallowed  []string
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

// MapTool returns the aidex tool names for a tool name of a definition:
// a Claude Code name (Bash, Read, Write, Edit, Grep, Glob, WebFetch, ...)
// maps to aidex's, an aidex name (or an MCP tool name mcp__server__tool)
// stays as it is. ok is false for a Claude name aidex has no equivalent
// of (WebSearch). See claudecompat.Tools.
func MapTool(name string) (names []string, ok bool) {
	t, ok := claudecompat.Tools(name)
	if !ok {
		return nil, false
	}
	return []string{t}, true
}

// The front matter keys an agent file reads, and those of Claude Code's
// agents it ignores without a warning.
var (
	knownKeys = []string{"name", "description", "tools", "disallowedTools", "disallowed-tools", "model"}
	quietKeys = []string{"color"}
)

// Parse reads one agent file's content; path names it in warnings and
// becomes Source. The name defaults to the file name without .md (so
// does a name that is no id, with a warning); a missing description is
// the prompt's first line (with a warning); "\n" written in a
// description is a line break, as Claude Code reads it. It never fails:
// the warnings (*frontmatter.Problem values with their line) name what
// was ignored.
func Parse(path string, data []byte) (Definition, []error) {
	doc, warns := frontmatter.Parse(data)
	warns = append(warns, doc.Unknown(knownKeys, quietKeys)...)
	d := Definition{Name: doc.String("name"), Description: strings.TrimSpace(strings.ReplaceAll(doc.String("description"), `\n`, "\n")),
		Model: doc.String("model"), Prompt: strings.TrimSpace(doc.Body), Source: path}
	file := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	if d.Name != "" && !validName(d.Name) {
		f, _ := doc.Get("name")
		warns = append(warns, frontmatter.Warning{Line: f.Line, Message: fmt.Sprintf("agent name %q is not lower-case letters, digits, '-' and '_': the file name %q names it", d.Name, file)})
		d.Name = ""
	}
	if d.Name == "" {
		d.Name = file
	}
	if d.Description == "" {
		d.Description = frontmatter.FirstLine(d.Prompt)
		warns = append(warns, frontmatter.Warning{Message: "no description: the prompt's first line describes the agent; add description: (it tells the model when to use it)"})
	}
	if d.Model == "inherit" {
		d.Model = ""
	}
	if list, ok := doc.List("tools"); ok && !(len(list) == 1 && list[0] == "*") {
		d.Tools = []string{}
		for _, t := range list {
			names, ok := MapTool(t)
			if !ok {
				d.Unknown = append(d.Unknown, t)
				continue
			}
			for _, n := range names {
				if !slices.Contains(d.Tools, n) {
					d.Tools = append(d.Tools, n)
				}
			}
		}
	}
	if list, ok := doc.List("disallowedTools", "disallowed-tools"); ok {
		for _, t := range list {
			names, ok := claudecompat.ToolGroup(t)
			if !ok {
				d.Unknown = append(d.Unknown, t)
				continue
			}
			for _, n := range names {
				if !slices.Contains(d.Disallowed, n) {
					d.Disallowed = append(d.Disallowed, n)
				}
			}
		}
		if d.Tools != nil {
			d.Tools = slices.DeleteFunc(d.Tools, func(n string) bool { return slices.Contains(d.Disallowed, n) })
		}
	}
	return d, frontmatter.Problems(path, warns)
}

func validName(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return s != ""
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
	// Plugins are enabled plugins' agent folders (or files), read after
	// the others; their types are named "PLUGIN:NAME".
	Plugins []PluginDir
}

// PluginDir is a plugin's agent folder or file: Plugin the plugin's
// name, Path the folder or file.
type PluginDir struct {
	Plugin string
	Path   string
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

// maxFileBytes caps an agent file.
const maxFileBytes = 256 << 10

// Load reads the built-ins and every agent file of d's folders and their
// subfolders (Claude Code reads .claude/agents recursively). A type
// defined in several places is taken from the first folder (see
// Folders); a custom type may replace a built-in. Unreadable files and
// front matter problems become warnings ("PATH:LINE: MESSAGE"), not
// errors. An untrusted project's folders are not read.
func Load(d Dirs) Set {
	var s Set
	seen := map[string]int{}
	folders := d.Folders()
	for _, p := range d.Plugins {
		folders = append(folders, p.Path)
	}
	for i, dir := range folders {
		ns := ""
		if j := i - (len(folders) - len(d.Plugins)); j >= 0 {
			ns = d.Plugins[j].Plugin + ":"
		}
		err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
			if err != nil {
				if !errors.Is(err, fs.ErrNotExist) {
					s.Warnings = append(s.Warnings, fmt.Sprintf("agents: %v", err))
				}
				return nil
			}
			if e.IsDir() || !strings.EqualFold(filepath.Ext(path), ".md") {
				return nil
			}
			data, err := readCapped(path)
			if err != nil {
				s.Warnings = append(s.Warnings, "agents: "+(&frontmatter.Problem{Path: path, Message: err.Error(), Skipped: true}).Error())
				return nil
			}
			def, warns := Parse(path, data)
			def.Name = ns + def.Name
			for _, w := range warns {
				s.Warnings = append(s.Warnings, "agents: "+w.Error())
			}
			if i, dup := seen[def.Name]; dup {
				s.Warnings = append(s.Warnings, fmt.Sprintf("agents: %s: %q is already defined by %s", path, def.Name, s.Defs[i].Source))
				return nil
			}
			seen[def.Name] = len(s.Defs)
			s.Defs = append(s.Defs, def)
			return nil
		})
		if err != nil {
			s.Warnings = append(s.Warnings, fmt.Sprintf("agents: %v", err))
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

func readCapped(path string) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.Size() > maxFileBytes {
		return nil, fmt.Errorf("%d bytes is over the %d-byte limit of an agent file: shorten it", st.Size(), maxFileBytes)
	}
	return os.ReadFile(path)
}

// Get returns the type called name; a plugin's type ("PLUGIN:NAME") is
// found by its short name too when no other type has that name or short
// name.
func (s Set) Get(name string) (Definition, bool) {
	var short []Definition
	for _, d := range s.Defs {
		if d.Name == name {
			return d, true
		}
		if _, base, ok := strings.Cut(d.Name, ":"); ok && base == name {
			short = append(short, d)
		}
	}
	if len(short) == 1 {
		return short[0], true
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
