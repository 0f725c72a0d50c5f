// Package slashcmd finds and expands custom slash commands: markdown files
// in .aidex/commands/, .claude/commands/ (a project's), and
// <config dir>/aidex/commands/, ~/.claude/commands/ (the user's), the shape
// Claude Code uses. A file's name names the command (tools/smart-debug.md
// → /smart-debug, its folder a label), and its path below the folder does
// too (/tools:smart-debug); its front matter gives description,
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
	"slices"
	"sort"
	"strings"

	"github.com/zelvior/aidex/internal/frontmatter"
)

// Scope says whose folder a command comes from.
type Scope string

// The scopes of a folder.
const (
	ScopeProject Scope = "project" // a folder in the workspace
	ScopeUser    Scope = "user"    // a folder of the user's own
	ScopeOther   Scope = "other"   // another source (an MCP server): allowed-tools are not honoured
	ScopePlugin  Scope = "plugin"  // an enabled plugin's folder (its content is approved by the content review)
)

// Dir is one folder searched for commands, with its scope. Namespace,
// when set (a plugin's name), prefixes the path names of its commands
// ("hookify:commit"); the short name ("commit") is theirs only when no
// other command has it (see [Discover]). Path may also be one command
// file (a plugin's manifest may list files).
type Dir struct {
	Path      string
	Scope     Scope
	Namespace string
}

// Dirs returns the folders searched for commands, first wins:
// <workspace>/.aidex/commands, <workspace>/.claude/commands,
// <configDir>/commands (configDir is aidex's config dir, e.g.
// ~/.config/aidex), <home>/.claude/commands. Empty arguments leave their
// folders out.
func Dirs(workspace, configDir, home string) []Dir {
	var out []Dir
	if workspace != "" {
		out = append(out, Dir{Path: filepath.Join(workspace, ".aidex", "commands"), Scope: ScopeProject},
			Dir{Path: filepath.Join(workspace, ".claude", "commands"), Scope: ScopeProject})
	}
	if configDir != "" {
		out = append(out, Dir{Path: filepath.Join(configDir, "commands"), Scope: ScopeUser})
	}
	if home != "" {
		out = append(out, Dir{Path: filepath.Join(home, ".claude", "commands"), Scope: ScopeUser})
	}
	return out
}

// Command is one custom slash command. Name has no slash: the file's
// name ("smart-debug"), or, when two files share that name, its path
// with ":" between folder levels ("tools:smart-debug"). Aliases are the
// other names it answers to (the path form when Name is the short one).
// Folder is the folder below the commands folder ("tools"; "" at the
// top), shown as a label. AllowedTools are the rules of the allowed-tools
// key as written (Claude's tool names included; see [Rules]). Model is ""
// to keep the session's model. Path names where the command comes from
// (its file, or e.g. "MCP server NAME").
//
// Prompt, when set, makes the command's text instead of Body (a command
// of another source, such as an MCP server's prompt): [Expand] returns
// what it returns as it is, with no !`command` run and no @path read.
type Command struct {
	Name         string
	Aliases      []string
	Folder       string
	Description  string
	ArgumentHint string
	AllowedTools []string
	Model        string
	Body         string
	Path         string
	Scope        Scope
	Prompt       func(ctx context.Context, args string) (string, error)
}

// PathName is the command's name by its path ("tools:smart-debug"; a
// top-level file's is its Name), which stays the same when another file
// takes or gives up the same file name.
func (c Command) PathName() string {
	if len(c.Aliases) > 0 {
		return c.Aliases[0]
	}
	return c.Name
}

// The front matter keys a command reads, and those of Claude Code's
// commands it ignores without a warning.
var (
	knownKeys = []string{"description", "argument-hint", "allowed-tools", "model"}
	quietKeys = []string{"name", "disable-model-invocation", "version", "license", "author", "tags"}
)

// maxFileBytes caps a command file.
const maxFileBytes = 256 << 10

// Discover reads the commands of dirs (in precedence order: the first
// folder holding a path name wins). Missing folders are skipped. The
// errors are *frontmatter.Problem values naming the file and line: a file
// that cannot be read is left out (Skipped, with the name it would have
// had), so one bad file does not hide the others; an unknown front
// matter key is a warning and the command loads; two commands sharing a
// file name are a warning naming both (neither takes the short name).
// The commands are sorted by name.
func Discover(dirs []Dir) ([]Command, []error) {
	byPath := map[string]bool{}
	var cmds []Command
	var errs []error
	for _, d := range dirs {
		_ = filepath.WalkDir(d.Path, func(path string, e fs.DirEntry, err error) error {
			if err != nil {
				if path != d.Path {
					errs = append(errs, &frontmatter.Problem{Path: path, Message: err.Error(), Skipped: true})
				}
				return nil
			}
			if e.IsDir() || !strings.EqualFold(filepath.Ext(path), ".md") {
				return nil
			}
			name := commandName(d.Path, path)
			if d.Namespace != "" && name != "" {
				name = d.Namespace + ":" + name
			}
			if byPath[name] || name == "" {
				return nil
			}
			byPath[name] = true
			c, warns, err := load(path, name, d.Scope)
			errs = append(errs, warns...)
			if err != nil {
				errs = append(errs, err)
				return nil
			}
			cmds = append(cmds, c)
			return nil
		})
	}
	errs = append(errs, shortNames(cmds)...)
	sort.Slice(cmds, func(i, j int) bool { return cmds[i].Name < cmds[j].Name })
	return cmds, errs
}

// shortNames names each command of cmds (named by path so far) by its
// file name when no other command has that file name, keeping the path
// form as an alias; a shared file name is a warning naming the files
// (a top-level file keeps its name, the others their path form).
func shortNames(cmds []Command) []error {
	byBase := map[string][]int{}
	for i, c := range cmds {
		byBase[baseName(c.Name)] = append(byBase[baseName(c.Name)], i)
	}
	var errs []error
	for base, idx := range byBase {
		if len(idx) == 1 {
			c := &cmds[idx[0]]
			if c.Name != base {
				c.Aliases = append(c.Aliases, c.Name)
				c.Name = base
			}
			continue
		}
		var files []string
		for _, i := range idx {
			files = append(files, "/"+cmds[i].Name+" ("+cmds[i].Path+")")
		}
		sort.Strings(files)
		errs = append(errs, &frontmatter.Problem{Path: cmds[idx[0]].Path, Name: "/" + base,
			Message: fmt.Sprintf("%d commands are called %s: %s; none is /%s, call each by its folder:name", len(idx), base, strings.Join(files, ", "), base)})
	}
	return errs
}

// baseName is the last part of a path name ("tools:smart-debug" →
// "smart-debug").
func baseName(name string) string {
	return name[strings.LastIndexByte(name, ':')+1:]
}

// commandName is the path name of file below root: its path without
// ".md", with ":" between folders. Names with spaces are left out ("").
func commandName(root, file string) string {
	rel, err := filepath.Rel(root, file)
	if err != nil {
		return ""
	}
	if rel == "." { // root is the command file itself
		rel = filepath.Base(file)
	}
	rel = strings.TrimSuffix(rel, filepath.Ext(rel))
	name := strings.Join(strings.Split(filepath.ToSlash(rel), "/"), ":")
	if strings.ContainsAny(name, " \t\n") {
		return ""
	}
	return name
}

// Load reads one command file as command name of scope; its warnings
// (unknown keys) are dropped (Discover returns them). A missing
// description is the body's first non-empty line. Errors: a
// *frontmatter.Problem naming the file (unreadable, too large).
func Load(path, name string, scope Scope) (Command, error) {
	c, _, err := load(path, name, scope)
	return c, err
}

func load(path, name string, scope Scope) (Command, []error, error) {
	data, err := readCapped(path)
	if err != nil {
		return Command{}, nil, &frontmatter.Problem{Path: path, Name: "/" + name, Message: err.Error(), Skipped: true}
	}
	doc, warns := frontmatter.Parse(data)
	warns = append(warns, doc.Unknown(knownKeys, quietKeys)...)
	c := Command{Name: name, Description: doc.String("description"), ArgumentHint: doc.String("argument-hint"),
		Model: doc.String("model"), Body: doc.Body, Path: path, Scope: scope}
	if i := strings.LastIndexByte(name, ':'); i >= 0 {
		c.Folder = strings.ReplaceAll(name[:i], ":", "/")
	}
	c.AllowedTools, _ = doc.List("allowed-tools")
	if c.Description == "" {
		c.Description = frontmatter.FirstLine(c.Body)
	}
	return c, frontmatter.Problems(path, warns), nil
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

// Find returns the command called name (with or without its leading
// slash) among cmds: by its Name, then by its Aliases.
func Find(cmds []Command, name string) (Command, bool) {
	name = strings.TrimPrefix(name, "/")
	for _, c := range cmds {
		if c.Name == name {
			return c, true
		}
	}
	for _, c := range cmds {
		if slices.Contains(c.Aliases, name) {
			return c, true
		}
	}
	return Command{}, false
}

// FailedToLoad returns the problem of a command file called name (with or
// without its slash) that was left out: what a front end tells the user
// instead of sending "/name ..." to the model as text. ok is false when
// no such file failed.
func FailedToLoad(errs []error, name string) (*frontmatter.Problem, bool) {
	name = "/" + strings.TrimPrefix(name, "/")
	for _, err := range errs {
		var p *frontmatter.Problem
		if errors.As(err, &p) && p.Skipped && (p.Name == name || "/"+baseName(strings.TrimPrefix(p.Name, "/")) == name) {
			return p, true
		}
	}
	return nil, false
}
