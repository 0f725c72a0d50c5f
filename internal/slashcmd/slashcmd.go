// Package slashcmd finds and expands custom slash commands: markdown files
// in .aidex/commands/, .claude/commands/ (a project's), and
// <config dir>/aidex/commands/, ~/.claude/commands/ (the user's), the shape
// Claude Code uses. A file's path below its folder names the command
// (frontend/test.md → /frontend:test); its front matter gives description,
// argument-hint, allowed-tools and model; its body is the prompt, with
// $ARGUMENTS, $1..$9, @path includes and !`command` outputs filled in by
// [Expand].
//
// Precedence when two folders hold a command of the same name: a
// project's over the user's, and .aidex over .claude within each (the
// order of [Dirs]).
package slashcmd

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/zelvior/aidex/internal/frontmatter"
	"go.yaml.in/yaml/v3"
)

// Scope says whose folder a command comes from.
type Scope string

// The scopes of a folder.
const (
	ScopeProject Scope = "project" // a folder in the workspace
	ScopeUser    Scope = "user"    // a folder of the user's own
	ScopeOther   Scope = "other"   // another source (an MCP server): allowed-tools are not honoured
)

// Dir is one folder searched for commands, with its scope.
type Dir struct {
	Path  string
	Scope Scope
}

// Dirs returns the folders searched for commands, first wins:
// <workspace>/.aidex/commands, <workspace>/.claude/commands,
// <configDir>/commands (configDir is aidex's config dir, e.g.
// ~/.config/aidex), <home>/.claude/commands. Empty arguments leave their
// folders out.
func Dirs(workspace, configDir, home string) []Dir {
	var out []Dir
	if workspace != "" {
		out = append(out, Dir{filepath.Join(workspace, ".aidex", "commands"), ScopeProject},
			Dir{filepath.Join(workspace, ".claude", "commands"), ScopeProject})
	}
	if configDir != "" {
		out = append(out, Dir{filepath.Join(configDir, "commands"), ScopeUser})
	}
	if home != "" {
		out = append(out, Dir{filepath.Join(home, ".claude", "commands"), ScopeUser})
	}
	return out
}

// Command is one custom slash command. Name has no slash and uses ":"
// between folder levels ("frontend:test"). AllowedTools are the rules of
// the allowed-tools key as written (Claude's tool names included; see
// [Rules]). Model is "" to keep the session's model. Path names where the
// command comes from (its file, or e.g. "MCP server NAME").
//
// Prompt, when set, makes the command's text instead of Body (a command
// of another source, such as an MCP server's prompt): [Expand] returns
// what it returns as it is, with no !`command` run and no @path read.
type Command struct {
	Name         string
	Description  string
	ArgumentHint string
	AllowedTools []string
	Model        string
	Body         string
	Path         string
	Scope        Scope
	Prompt       func(ctx context.Context, args string) (string, error)
}

// meta is the front matter of a command file.
type meta struct {
	Description  string   `yaml:"description"`
	ArgumentHint string   `yaml:"argument-hint"`
	AllowedTools ToolList `yaml:"allowed-tools"`
	Model        string   `yaml:"model"`
}

// maxFileBytes caps a command file.
const maxFileBytes = 256 << 10

// Discover reads the commands of dirs (in precedence order: the first
// folder holding a name wins). Missing folders are skipped. A file that
// cannot be read or parsed is left out and reported in the returned
// errors (each naming the file), so one bad file does not hide the
// others. The commands are sorted by name.
func Discover(dirs []Dir) ([]Command, []error) {
	byName := map[string]Command{}
	var errs []error
	for _, d := range dirs {
		_ = filepath.WalkDir(d.Path, func(path string, e fs.DirEntry, err error) error {
			if err != nil {
				if path != d.Path {
					errs = append(errs, fmt.Errorf("custom command %s: %w", path, err))
				}
				return nil
			}
			if e.IsDir() || !strings.EqualFold(filepath.Ext(path), ".md") {
				return nil
			}
			name := commandName(d.Path, path)
			if _, taken := byName[name]; taken || name == "" {
				return nil
			}
			c, err := Load(path, name, d.Scope)
			if err != nil {
				errs = append(errs, err)
				return nil
			}
			byName[name] = c
			return nil
		})
	}
	out := make([]Command, 0, len(byName))
	for _, c := range byName {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, errs
}

// commandName is the name of file below root: its path without ".md",
// with ":" between folders. Names with spaces are left out ("").
func commandName(root, file string) string {
	rel, err := filepath.Rel(root, file)
	if err != nil {
		return ""
	}
	rel = strings.TrimSuffix(rel, filepath.Ext(rel))
	name := strings.Join(strings.Split(filepath.ToSlash(rel), "/"), ":")
	if strings.ContainsAny(name, " \t\n") {
		return ""
	}
	return name
}

// Load reads one command file as command name of scope. A missing
// description is the body's first non-empty line. Errors name the file:
// unreadable, too large, bad front matter.
func Load(path, name string, scope Scope) (Command, error) {
	data, err := readCapped(path)
	if err != nil {
		return Command{}, fmt.Errorf("custom command %s: %w", path, err)
	}
	var m meta
	body, err := frontmatter.Parse(data, &m)
	if err != nil {
		return Command{}, fmt.Errorf("custom command %s: %w", path, err)
	}
	c := Command{Name: name, Description: strings.TrimSpace(m.Description), ArgumentHint: strings.TrimSpace(m.ArgumentHint),
		AllowedTools: m.AllowedTools, Model: strings.TrimSpace(m.Model), Body: string(body), Path: path, Scope: scope}
	if c.Description == "" {
		c.Description = firstLine(c.Body)
	}
	return c, nil
}

func readCapped(path string) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.Size() > maxFileBytes {
		return nil, fmt.Errorf("%d bytes is over the %d-byte limit of a command file: shorten it", st.Size(), maxFileBytes)
	}
	return os.ReadFile(path)
}

func firstLine(body string) string {
	for _, l := range strings.Split(body, "\n") {
		if l = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(l), "#")); l != "" {
			if len(l) > 80 {
				l = l[:77] + "..."
			}
			return l
		}
	}
	return ""
}

// Find returns the command called name (with or without its leading
// slash) among cmds.
func Find(cmds []Command, name string) (Command, bool) {
	name = strings.TrimPrefix(name, "/")
	for _, c := range cmds {
		if c.Name == name {
			return c, true
		}
	}
	return Command{}, false
}

// ToolList is the allowed-tools value: a YAML list, or one string of
// comma-separated rules ("Bash(git add:*), Read"; commas inside
// parentheses do not split).
type ToolList []string

// UnmarshalYAML accepts a string or a list of strings.
func (l *ToolList) UnmarshalYAML(value *yaml.Node) error {
	bad := errors.New(`allowed-tools must be a list of rules or one comma-separated string, e.g. "Bash(git status:*), Read"`)
	switch value.Kind {
	case yaml.SequenceNode:
		var list []string
		if err := value.Decode(&list); err != nil {
			return bad
		}
		*l = nil
		for _, s := range list {
			*l = append(*l, splitRules(s)...)
		}
	case yaml.ScalarNode:
		*l = splitRules(value.Value)
	default:
		return bad
	}
	return nil
}

// splitRules splits s at commas outside parentheses, dropping empty
// entries.
func splitRules(s string) []string {
	var out []string
	depth, start := 0, 0
	add := func(end int) {
		if r := strings.TrimSpace(s[start:end]); r != "" {
			out = append(out, r)
		}
	}
	for i, r := range s {
		switch r {
		case '(':
			depth++
		case ')':
			depth = max(0, depth-1)
		case ',':
			if depth == 0 {
				add(i)
				start = i + 1
			}
		}
	}
	add(len(s))
	return out
}
