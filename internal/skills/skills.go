// Package skills finds Agent Skills: folders holding a SKILL.md (front
// matter description, optional name (a display label: the folder's name
// is the skill's id) and allowed-tools; the body is the instructions) in .aidex/skills/, .claude/skills/ (a project's) and
// <config dir>/aidex/skills/, ~/.claude/skills/ (the user's), the shape
// Claude Code uses. Disclosure is progressive: only names and
// descriptions go into the system prompt ([Prompt]); the skill tool loads
// a skill's body and lists its files ([Skill.Load]) and reads a file of
// its folder ([Skill.ReadFile]).
//
// Precedence when two folders hold a skill of the same name: a project's
// over the user's, and .aidex over .claude within each (the order of
// [Dirs]).
package skills

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/zelvior/aidex/internal/frontmatter"
	"github.com/zelvior/aidex/internal/slashcmd"
)

// Scope says whose folder a skill comes from (as for commands).
type Scope = slashcmd.Scope

// Dir is one folder searched for skill folders, with its scope.
type Dir = slashcmd.Dir

// Dirs returns the folders searched for skills, first wins:
// <workspace>/.aidex/skills, <workspace>/.claude/skills,
// <configDir>/skills, <home>/.claude/skills. Empty arguments leave their
// folders out.
func Dirs(workspace, configDir, home string) []Dir {
	var out []Dir
	if workspace != "" {
		out = append(out, Dir{Path: filepath.Join(workspace, ".aidex", "skills"), Scope: slashcmd.ScopeProject},
			Dir{Path: filepath.Join(workspace, ".claude", "skills"), Scope: slashcmd.ScopeProject})
	}
	if configDir != "" {
		out = append(out, Dir{Path: filepath.Join(configDir, "skills"), Scope: slashcmd.ScopeUser})
	}
	if home != "" {
		out = append(out, Dir{Path: filepath.Join(home, ".claude", "skills"), Scope: slashcmd.ScopeUser})
	}
	return out
}

// Skill is one skill. Name is its id, the name of its folder (as Claude
// Code names skills); Label is the front matter's name, a display label
// ("Writing Hookify Rules"; the folder name when there is none).
// Description is the front matter's (with when_to_use appended; the
// body's first line when there is none), AllowedTools its allowed-tools
// as written, Dir its folder (absolute), Body the instructions after the
// front matter.
type Skill struct {
	Name         string
	Label        string
	Description  string
	AllowedTools []string
	Dir          string
	Body         string
	Scope        Scope
}

// The front matter keys a skill reads, and those of Claude Code's skills
// it ignores without a warning (labels and metadata).
var (
	knownKeys = []string{"name", "description", "allowed-tools", "when_to_use"}
	quietKeys = []string{"license", "version", "metadata", "author", "tags"}
)

// FileName is the file that makes a folder a skill.
const FileName = "SKILL.md"

// maxSkillBytes caps SKILL.md; maxFileBytes a file read through
// [Skill.ReadFile].
const (
	maxSkillBytes = 256 << 10
	maxFileBytes  = 256 << 10
)

var validName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`) })

// Discover reads the skills of dirs (each direct subfolder holding
// SKILL.md), first folder wins per name; a Dir's Namespace (a plugin's
// name) prefixes its skills' names ("hookify:writing-rules"). Missing folders are skipped. The
// errors are *frontmatter.Problem values naming file and line: a skill
// that cannot be read or whose folder name is no id is left out
// (Skipped); an unknown front matter key is a warning and the skill
// loads. Sorted by name.
func Discover(dirs []Dir) ([]Skill, []error) {
	byName := map[string]Skill{}
	var errs []error
	for _, d := range dirs {
		entries, err := os.ReadDir(d.Path)
		if err != nil {
			continue
		}
		for _, e := range entries {
			dir := filepath.Join(d.Path, e.Name())
			if st, err := os.Stat(dir); err != nil || !st.IsDir() {
				continue
			}
			s, warns, err := load(dir, d.Scope)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if d.Namespace != "" {
				s.Name = d.Namespace + ":" + s.Name
			}
			errs = append(errs, warns...)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if _, taken := byName[s.Name]; !taken {
				byName[s.Name] = s
			}
		}
	}
	out := make([]Skill, 0, len(byName))
	for _, s := range byName {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, errs
}

// Load reads the skill in dir; its warnings (unknown keys) are dropped
// (Discover returns them). Errors: fs.ErrNotExist (wrapped) when dir has
// no SKILL.md; otherwise a *frontmatter.Problem naming the file: too
// large, unreadable, a folder name that is no id (letters, digits, '-',
// '_', '.', at most 64).
func Load(dir string, scope Scope) (Skill, error) {
	s, _, err := load(dir, scope)
	return s, err
}

func load(dir string, scope Scope) (Skill, []error, error) {
	path := filepath.Join(dir, FileName)
	st, err := os.Stat(path)
	if err != nil {
		return Skill{}, nil, err
	}
	name := filepath.Base(dir)
	skip := func(msg string) (Skill, []error, error) {
		return Skill{}, nil, &frontmatter.Problem{Path: path, Name: name, Message: msg, Skipped: true}
	}
	if st.Size() > maxSkillBytes {
		return skip(fmt.Sprintf("%d bytes is over the %d-byte limit: move details into other files of the folder", st.Size(), maxSkillBytes))
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return skip(err.Error())
	}
	if !validName().MatchString(name) {
		return skip(fmt.Sprintf("the folder name %q is the skill's id: use letters, digits, '-', '_' or '.' (at most 64), no spaces", name))
	}
	doc, warns := frontmatter.Parse(data)
	warns = append(warns, doc.Unknown(knownKeys, quietKeys)...)
	s := Skill{Name: name, Label: doc.String("name"), Description: strings.Join(strings.Fields(doc.String("description")), " "),
		Dir: dir, Body: doc.Body, Scope: scope}
	s.AllowedTools, _ = doc.List("allowed-tools")
	if w := strings.Join(strings.Fields(doc.String("when_to_use")), " "); w != "" {
		s.Description = strings.TrimSpace(s.Description + " " + w)
	}
	if s.Label == "" {
		s.Label = name
	}
	if s.Description == "" {
		s.Description = frontmatter.FirstLine(s.Body)
		warns = append(warns, frontmatter.Warning{Message: "no description: the body's first line describes the skill; add description: to the front matter (it tells the model when to use the skill)"})
	}
	return s, frontmatter.Problems(path, warns), nil
}

// Find returns the skill called name; a plugin's skill
// ("PLUGIN:SKILL") is found by its short name too when no other skill
// has that name or short name.
func Find(list []Skill, name string) (Skill, bool) {
	var short []Skill
	for _, s := range list {
		if s.Name == name {
			return s, true
		}
		if _, base, ok := strings.Cut(s.Name, ":"); ok && base == name {
			short = append(short, s)
		}
	}
	if len(short) == 1 {
		return short[0], true
	}
	return Skill{}, false
}

// Prompt returns the system prompt's section on skills: a line per skill
// with its name and description, at most maxTokens (estimated as 4 bytes
// a token); the skills that do not fit are left out and a last line says
// how many and that the skill tool still loads them by name. "" when
// list is empty.
func Prompt(list []Skill, maxTokens int) string {
	if len(list) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("# Skills\nSkills are instructions for particular tasks. When a task matches a skill's description, call the skill tool with its name first and follow what it returns.\n")
	budget := maxTokens * 4
	for i, s := range list {
		line := "- " + s.Name + ": " + s.Description + "\n"
		if b.Len()+len(line) > budget {
			fmt.Fprintf(&b, "(%d more skills not listed to keep this prompt short: /skills lists them; the skill tool loads any by name)\n", len(list)-i)
			break
		}
		b.WriteString(line)
	}
	return strings.TrimRight(b.String(), "\n")
}

// maxListed caps the files Load lists.
const maxListed = 200

// Load returns what the skill tool shows: the skill's folder, its body,
// and the files of its folder (relative paths, SKILL.md left out; at most
// 200, the rest counted).
func (s Skill) Load() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Skill %s (folder %s)\n\n%s\n", s.Name, s.Dir, strings.TrimSpace(s.Body))
	var files []string
	more := 0
	_ = filepath.WalkDir(s.Dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || !e.Type().IsRegular() {
			return nil
		}
		rel, _ := filepath.Rel(s.Dir, path)
		if rel == FileName {
			return nil
		}
		if len(files) >= maxListed {
			more++
			return nil
		}
		files = append(files, filepath.ToSlash(rel))
		return nil
	})
	if len(files) > 0 {
		b.WriteString("\nFiles of the skill (read one with the skill tool's file parameter):\n")
		for _, f := range files {
			b.WriteString("- " + f + "\n")
		}
		if more > 0 {
			fmt.Fprintf(&b, "(%d more files not listed)\n", more)
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// ReadFile returns the text of file rel in the skill's folder. Errors: a
// path that leaves the folder (also through a symbolic link), a missing
// file, a folder, a file over 256 KB, a binary file.
func (s Skill) ReadFile(rel string) (string, error) {
	if rel == "" || filepath.IsAbs(rel) || strings.HasPrefix(filepath.ToSlash(filepath.Clean(rel)), "../") || filepath.Clean(rel) == ".." {
		return "", fmt.Errorf("file %q: give a path relative to the skill's folder, inside it", rel)
	}
	root, err := filepath.EvalSymlinks(s.Dir)
	if err != nil {
		return "", fmt.Errorf("skill folder %s: %w", s.Dir, err)
	}
	real, err := filepath.EvalSymlinks(filepath.Join(root, rel))
	if err != nil {
		return "", fmt.Errorf("file %q of skill %s: %w", rel, s.Name, err)
	}
	if r, err := filepath.Rel(root, real); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("file %q of skill %s leads outside the skill's folder: it is not read", rel, s.Name)
	}
	st, err := os.Stat(real)
	switch {
	case err != nil:
		return "", fmt.Errorf("file %q of skill %s: %w", rel, s.Name, err)
	case !st.Mode().IsRegular():
		return "", fmt.Errorf("%q of skill %s is not a regular file", rel, s.Name)
	case st.Size() > maxFileBytes:
		return "", fmt.Errorf("file %q of skill %s has %d bytes, over the %d-byte limit", rel, s.Name, st.Size(), maxFileBytes)
	}
	data, err := os.ReadFile(real)
	if err != nil {
		return "", fmt.Errorf("file %q of skill %s: %w", rel, s.Name, err)
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return "", fmt.Errorf("file %q of skill %s is binary: only text files are read", rel, s.Name)
	}
	return string(data), nil
}
