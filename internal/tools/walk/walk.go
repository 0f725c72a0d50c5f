// Package walk walks directory trees for the tool families the way
// ripgrep does: in parallel, honouring the .gitignore files at and below
// the walk root, skipping .git, never following symlinks. It also matches
// paths against doublestar globs with ripgrep's -g rules.
package walk

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/charlievieth/fastwalk"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// ErrStop stops a walk early: returned by a Func for a directory, Tree
// stops and returns it. Returned for a file, it only ends the walk of that
// file's directory: fastwalk reports it as the directory's read error,
// which Tree skips like any unreadable directory (a known limitation that
// the callers' caps inherit).
var ErrStop = errors.New("search limit reached")

// Ignores holds the .gitignore patterns of the directories under a walk
// root: each directory's list is its parent's plus its own .gitignore.
// Patterns come from .gitignore files at and below the root (not from
// parent directories, global excludes or .git/info/exclude). Safe for
// concurrent use.
type Ignores struct {
	base string
	mu   sync.RWMutex
	dirs map[string][]ignorePattern
}

// ignorePattern is one .gitignore line: go-git's matcher and a literal
// every path it matches contains (see needLiteral).
type ignorePattern struct {
	p    gitignore.Pattern
	need string // "" when unknown
}

// needLiteral returns the longest run of a gitignore pattern's characters
// that any path it matches must contain: the pattern split at its
// wildcards and slashes. It returns "" for a pattern with character
// classes or escapes, which it does not read.
func needLiteral(line string) string {
	p := strings.TrimPrefix(line, "!")
	if strings.ContainsAny(p, `[\`) {
		return ""
	}
	p = strings.TrimRight(p, " ")
	best := ""
	for _, run := range strings.FieldsFunc(p, func(r rune) bool { return r == '*' || r == '?' || r == '/' }) {
		if len(run) > len(best) {
			best = run
		}
	}
	return best
}

// NewIgnores returns the patterns of root's own .gitignore; Enter each
// directory below it before asking about its entries.
func NewIgnores(root string) *Ignores {
	t := &Ignores{base: root, dirs: map[string][]ignorePattern{}}
	t.Enter(root)
	return t
}

// rel returns abs relative to the base, slash-separated ("" for the
// base itself).
func (t *Ignores) rel(abs string) string {
	if rest, ok := strings.CutPrefix(abs, t.base); ok && (rest == "" || os.IsPathSeparator(rest[0])) {
		return filepath.ToSlash(strings.TrimLeft(rest, string(filepath.Separator)))
	}
	rel, err := filepath.Rel(t.base, abs)
	if err != nil || rel == "." {
		return ""
	}
	return filepath.ToSlash(rel)
}

// components returns abs relative to the base as path components.
func (t *Ignores) components(abs string) []string {
	if rel := t.rel(abs); rel != "" {
		return strings.Split(rel, "/")
	}
	return nil
}

// Enter computes the patterns of directory dir: its parent's plus its
// own .gitignore (the parent must have been entered, except for the
// root).
func (t *Ignores) Enter(dir string) {
	t.mu.RLock()
	ps := t.dirs[filepath.Dir(dir)]
	t.mu.RUnlock()
	if dir == t.base {
		ps = nil
	}
	if data, err := os.ReadFile(filepath.Join(dir, ".gitignore")); err == nil {
		domain := t.components(dir)
		ps = slices.Clip(ps)
		for _, line := range strings.Split(string(data), "\n") {
			line = strings.TrimSuffix(line, "\r")
			if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
				continue
			}
			ps = append(ps, ignorePattern{p: gitignore.ParsePattern(line, domain), need: needLiteral(line)})
		}
	}
	t.mu.Lock()
	t.dirs[dir] = ps
	t.mu.Unlock()
}

// Ignored reports whether abs (a file or directory in an entered
// directory) is excluded by the .gitignore files.
func (t *Ignores) Ignored(abs string, isDir bool) bool {
	t.mu.RLock()
	ps := t.dirs[filepath.Dir(abs)]
	t.mu.RUnlock()
	if len(ps) == 0 {
		return false
	}
	rel := t.rel(abs)
	var comps []string
	for i := len(ps) - 1; i >= 0; i-- {
		if ps[i].need != "" && !strings.Contains(rel, ps[i].need) {
			continue // cannot match: a quick test before go-git's
		}
		if comps == nil {
			comps = strings.Split(rel, "/")
		}
		if m := ps[i].p.Match(comps, isDir); m != gitignore.NoMatch {
			return m == gitignore.Exclude
		}
	}
	return false
}

// SkipName reports entries never walked: VCS metadata.
func SkipName(name string) bool { return name == ".git" }

// Func is called for every entry under the walk root that is neither
// ignored nor a .git entry; rel is slash-separated and relative to the
// root. Directories are reported before their contents; returning
// fs.SkipDir skips one. Calls may run in parallel.
type Func func(abs, rel string, d fs.DirEntry) error

// Tree walks root in parallel (fastwalk; symlinks are reported, never
// followed), honouring .gitignore files and ctx, calling fn for every
// entry below root. maxDepth <= 0 means no limit. Unreadable entries are
// skipped. It returns fn's first error for a directory other than
// fs.SkipDir (e.g. ErrStop) or ctx's error; see ErrStop for errors
// returned for files.
func Tree(ctx context.Context, root string, maxDepth int, fn Func) error {
	ig := NewIgnores(root)
	conf := fastwalk.Config{Follow: false, MaxDepth: maxDepth}
	return fastwalk.Walk(&conf, root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable entries are skipped, as rg does
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if path == root {
			return nil
		}
		isDir := d.IsDir()
		if SkipName(d.Name()) || ig.Ignored(path, isDir) {
			if isDir {
				return fs.SkipDir
			}
			return nil
		}
		if isDir {
			ig.Enter(path)
		}
		return fn(path, ig.rel(path), d)
	})
}

// Glob matches slash-separated paths relative to a walk root
// against a doublestar glob: a glob without "/" matches the base name at
// any depth ("*.go"), one with "/" matches the whole relative path
// ("cmd/**/*.go"), the same rule as ripgrep's -g.
// A leading "!" negates the glob ("!*_test.go").
type Glob struct {
	pattern string
	base    bool
	neg     bool
	suffix  string // set when the glob is *SUFFIX or **/*SUFFIX: a plain suffix test
}

// globSuffix returns SUFFIX when pattern is "**/*SUFFIX", or "*SUFFIX"
// matched against base names, with no wildcard, class, brace, escape or
// slash in SUFFIX, else "".
func globSuffix(pattern string, base bool) string {
	if !base {
		var ok bool
		if pattern, ok = strings.CutPrefix(pattern, "**/"); !ok {
			return ""
		}
	}
	rest, ok := strings.CutPrefix(pattern, "*")
	if !ok || rest == "" || strings.ContainsAny(rest, "*?[]{}\\/") {
		return ""
	}
	return rest
}

// NewGlob compiles pattern (doublestar syntax, "./" prefix and a leading
// "!" allowed); false when it is empty or invalid.
func NewGlob(pattern string) (*Glob, bool) {
	neg := strings.HasPrefix(pattern, "!")
	pattern = strings.TrimPrefix(filepath.ToSlash(strings.TrimPrefix(pattern, "!")), "./")
	if pattern == "" || !doublestar.ValidatePattern(pattern) {
		return nil, false
	}
	base := !strings.Contains(pattern, "/")
	return &Glob{pattern: pattern, base: base, neg: neg, suffix: globSuffix(pattern, base)}, true
}

// NewPathGlob returns a matcher of whole relative paths against pattern
// (no base-name rule, no negation); pattern must be valid.
func NewPathGlob(pattern string) *Glob {
	return &Glob{pattern: pattern, suffix: globSuffix(pattern, false)}
}

// Match reports whether rel (slash-separated, relative to the walk root)
// matches; a nil Glob matches everything.
func (g *Glob) Match(rel string) bool {
	if g == nil {
		return true
	}
	if g.base {
		rel = rel[strings.LastIndexByte(rel, '/')+1:]
	}
	if g.suffix != "" {
		return strings.HasSuffix(rel, g.suffix) != g.neg
	}
	ok, _ := doublestar.Match(g.pattern, rel)
	return ok != g.neg
}
