package tools

import (
	"context"
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

// ignoreTree holds the .gitignore patterns of the directories under a walk
// root: each directory's list is its parent's plus its own .gitignore.
// Patterns come from .gitignore files at and below the root (not from
// parent directories, global excludes or .git/info/exclude). Safe for
// concurrent use.
type ignoreTree struct {
	base string
	mu   sync.RWMutex
	dirs map[string][]gitignore.Pattern
}

func newIgnoreTree(root string) *ignoreTree {
	t := &ignoreTree{base: root, dirs: map[string][]gitignore.Pattern{}}
	t.enter(root)
	return t
}

// components returns abs relative to the base as path components.
func (t *ignoreTree) components(abs string) []string {
	rel, err := filepath.Rel(t.base, abs)
	if err != nil || rel == "." {
		return nil
	}
	return strings.Split(filepath.ToSlash(rel), "/")
}

// enter computes the patterns of directory dir (its parent must have been
// entered, except for the base).
func (t *ignoreTree) enter(dir string) {
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
			ps = append(ps, gitignore.ParsePattern(line, domain))
		}
	}
	t.mu.Lock()
	t.dirs[dir] = ps
	t.mu.Unlock()
}

// ignored reports whether abs (a file or directory in an entered
// directory) is excluded by the .gitignore files.
func (t *ignoreTree) ignored(abs string, isDir bool) bool {
	t.mu.RLock()
	ps := t.dirs[filepath.Dir(abs)]
	t.mu.RUnlock()
	if len(ps) == 0 {
		return false
	}
	comps := t.components(abs)
	for i := len(ps) - 1; i >= 0; i-- {
		if m := ps[i].Match(comps, isDir); m != gitignore.NoMatch {
			return m == gitignore.Exclude
		}
	}
	return false
}

// skipName reports entries never walked: VCS metadata.
func skipName(name string) bool { return name == ".git" }

// walkFunc is called for every entry under the walk root that is neither
// ignored nor a .git entry; rel is slash-separated and relative to the
// root. Directories are reported before their contents; returning
// fs.SkipDir skips one. Calls may run in parallel.
type walkFunc func(abs, rel string, d fs.DirEntry) error

// walkTree walks root in parallel (fastwalk; symlinks are reported, never
// followed), honouring .gitignore files and ctx. maxDepth <= 0 means no
// limit.
func walkTree(ctx context.Context, root string, maxDepth int, fn walkFunc) error {
	ig := newIgnoreTree(root)
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
		if skipName(d.Name()) || ig.ignored(path, isDir) {
			if isDir {
				return fs.SkipDir
			}
			return nil
		}
		if isDir {
			ig.enter(path)
		}
		rel, rerr := filepath.Rel(root, path)
		if rerr != nil {
			return nil
		}
		return fn(path, filepath.ToSlash(rel), d)
	})
}

// globMatcher matches slash-separated paths relative to a walk root
// against a doublestar glob: a glob without "/" matches the base name at
// any depth ("*.go"), one with "/" matches the whole relative path
// ("cmd/**/*.go"), the same rule as ripgrep's -g.
// A leading "!" negates the glob ("!*_test.go").
type globMatcher struct {
	pattern string
	base    bool
	neg     bool
}

func newGlobMatcher(pattern string) (*globMatcher, bool) {
	neg := strings.HasPrefix(pattern, "!")
	pattern = strings.TrimPrefix(filepath.ToSlash(strings.TrimPrefix(pattern, "!")), "./")
	if pattern == "" || !doublestar.ValidatePattern(pattern) {
		return nil, false
	}
	return &globMatcher{pattern: pattern, base: !strings.Contains(pattern, "/"), neg: neg}, true
}

func (g *globMatcher) match(rel string) bool {
	if g == nil {
		return true
	}
	if g.base {
		rel = rel[strings.LastIndexByte(rel, '/')+1:]
	}
	ok, _ := doublestar.Match(g.pattern, rel)
	return ok != g.neg
}
