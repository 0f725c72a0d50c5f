package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/zelvior/aidex/internal/kind"
)

// Limits of the listing tools.
const (
	maxListEntries     = 500   // list_directory entries shown
	maxListDepth       = 10    // list_directory depth ceiling
	maxSearchResults   = 100   // search_files paths shown
	searchCollectLimit = 20000 // search_files matches collected before stopping
)

type listArgs struct {
	Path  string `json:"path,omitempty" jsonschema:"Directory" tool:"path" default:"\".\""`
	Depth int    `json:"depth,omitempty" jsonschema:"Levels to show" default:"2"`
}

type searchFilesArgs struct {
	Pattern string `json:"pattern" jsonschema:"Glob, e.g. **/*.go; without / matches names at any depth"`
	Path    string `json:"path,omitempty" jsonschema:"Directory to search" tool:"path" default:"\".\""`
}

func listTools() []Def {
	return []Def{
		Define(Spec{Name: "list_directory", Kind: kind.Read, Standard: true,
			Description: "List a directory as a tree (honours .gitignore)."},
			func(ctx context.Context, env *Env, a listArgs) Result { return listDir(ctx, env, a) }),
		Define(Spec{Name: "search_files", Kind: kind.Read, Standard: true,
			Description: "Find files by glob (honours .gitignore), newest first."},
			func(ctx context.Context, env *Env, a searchFilesArgs) Result { return searchFiles(ctx, env, a) }),
	}
}

// dirOf resolves a directory parameter.
func dirOf(env *Env, p string) (string, *Result) {
	abs, res := env.resolve("path", p)
	if res != nil {
		return "", res
	}
	fi, err := os.Stat(abs)
	var r Result
	switch {
	case errors.Is(err, fs.ErrNotExist):
		r = Failf(CategoryNotFound, "directory %s does not exist", env.rel(abs))
	case err != nil:
		r = Failf(CategoryExecution, "cannot stat %s: %v", env.rel(abs), err)
	case !fi.IsDir():
		r = Failf(CategoryValidation, "%s is a file, not a directory: use read_file", env.rel(abs))
	default:
		return abs, nil
	}
	return "", &r
}

type lister struct {
	ctx   context.Context
	ig    *ignoreTree
	b     strings.Builder
	count int
	full  bool
	depth int
}

func listDir(ctx context.Context, env *Env, a listArgs) Result {
	abs, res := dirOf(env, a.Path)
	if res != nil {
		return *res
	}
	depth := min(max(a.Depth, 1), maxListDepth)
	l := &lister{ctx: ctx, ig: newIgnoreTree(abs), depth: depth}
	rel := env.rel(abs)
	fmt.Fprintf(&l.b, "%s/\n", strings.TrimSuffix(rel, "/"))
	l.list(abs, 1)
	if ctx.Err() != nil {
		return Failf(CategoryExecution, "list_directory cancelled: %v", ctx.Err())
	}
	meta := &Meta{Path: rel, Matches: l.count, Truncated: l.full}
	if l.count == 0 {
		l.b.WriteString("  (empty)\n")
	}
	if l.full {
		fmt.Fprintf(&l.b, "... listing cut at %d entries; list a subdirectory or use a smaller depth\n", maxListEntries)
	}
	return Success(l.b.String(), meta)
}

func (l *lister) list(dir string, level int) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		fmt.Fprintf(&l.b, "%s(cannot read: %v)\n", strings.Repeat("  ", level), err)
		return
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int {
		if a.IsDir() != b.IsDir() {
			if a.IsDir() {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Name(), b.Name())
	})
	for _, e := range entries {
		if l.full || l.ctx.Err() != nil {
			return
		}
		p := filepath.Join(dir, e.Name())
		if skipName(e.Name()) || l.ig.ignored(p, e.IsDir()) {
			continue
		}
		if l.count == maxListEntries {
			l.full = true
			return
		}
		l.count++
		indent := strings.Repeat("  ", level)
		switch {
		case e.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			fmt.Fprintf(&l.b, "%s%s -> %s\n", indent, e.Name(), target)
		case e.IsDir():
			fmt.Fprintf(&l.b, "%s%s/\n", indent, e.Name())
			if level < l.depth {
				l.ig.enter(p)
				l.list(p, level+1)
			}
		default:
			fmt.Fprintf(&l.b, "%s%s\n", indent, e.Name())
		}
	}
}

// checkGlob refuses glob patterns that try to leave the search directory.
func checkGlob(pattern string) string {
	p := filepath.ToSlash(pattern)
	switch {
	case strings.TrimSpace(p) == "":
		return "pattern is empty; give a glob such as **/*.go"
	case path.IsAbs(p) || filepath.IsAbs(pattern):
		return "pattern must be relative; put the directory in the path parameter"
	case slices.Contains(strings.Split(p, "/"), ".."):
		return "pattern must not contain '..'; put the directory in the path parameter"
	case !doublestar.ValidatePattern(p):
		return fmt.Sprintf("pattern %q is not a valid glob", pattern)
	}
	return ""
}

type foundFile struct {
	rel   string
	mtime time.Time
}

func searchFiles(ctx context.Context, env *Env, a searchFilesArgs) Result {
	if msg := checkGlob(a.Pattern); msg != "" {
		return Failf(CategoryValidation, "search_files: %s", msg)
	}
	root, res := dirOf(env, a.Path)
	if res != nil {
		return *res
	}
	pattern := strings.TrimPrefix(filepath.ToSlash(a.Pattern), "./")
	m, _ := newGlobMatcher(pattern)
	walkRoot := root
	if strings.Contains(pattern, "/") {
		base, rest := doublestar.SplitPattern(pattern)
		if base != "." {
			if walkRoot, res = env.resolve("path", filepath.Join(root, filepath.FromSlash(base))); res != nil {
				return *res
			}
			if fi, err := os.Stat(walkRoot); err != nil || !fi.IsDir() {
				return Success(fmt.Sprintf("No files match %q in %s", a.Pattern, env.rel(root)), &Meta{Path: env.rel(root)})
			}
		}
		m = &globMatcher{pattern: rest}
	}
	found, truncated, err := collectFiles(ctx, walkRoot, m, env)
	if err != nil {
		return Failf(CategoryExecution, "search_files: %v", err)
	}
	return formatFound(found, truncated, a.Pattern, env.rel(root))
}

func collectFiles(ctx context.Context, root string, m *globMatcher, env *Env) ([]foundFile, bool, error) {
	var mu sync.Mutex
	var found []foundFile
	err := walkTree(ctx, root, 0, func(abs, rel string, d fs.DirEntry) error {
		if d.IsDir() || !m.match(rel) {
			return nil
		}
		var mt time.Time
		if fi, err := d.Info(); err == nil {
			mt = fi.ModTime()
		}
		mu.Lock()
		defer mu.Unlock()
		found = append(found, foundFile{rel: env.rel(abs), mtime: mt})
		if len(found) >= searchCollectLimit {
			return errStopWalk
		}
		return nil
	})
	truncated := errors.Is(err, errStopWalk)
	if truncated {
		err = nil
	}
	return found, truncated, err
}

func formatFound(found []foundFile, truncated bool, pattern, where string) Result {
	meta := &Meta{Path: where, Matches: len(found), Truncated: truncated}
	if len(found) == 0 {
		return Success(fmt.Sprintf("No files match %q in %s", pattern, where), meta)
	}
	slices.SortFunc(found, func(a, b foundFile) int {
		if c := b.mtime.Compare(a.mtime); c != 0 {
			return c
		}
		return strings.Compare(a.rel, b.rel)
	})
	var b strings.Builder
	for i, f := range found {
		if i == maxSearchResults {
			meta.Truncated = true
			more := fmt.Sprint(len(found) - i)
			if truncated {
				more = "at least " + more
			}
			fmt.Fprintf(&b, "... %s more files (showing the %d newest); narrow the pattern or path\n", more, maxSearchResults)
			break
		}
		b.WriteString(f.rel + "\n")
	}
	return Success(b.String(), meta)
}
