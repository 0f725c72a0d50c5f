package file

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
	"github.com/zelvior/aidex/internal/tools"
	"github.com/zelvior/aidex/internal/tools/walk"
)

// Limits of search_files.
const (
	maxSearchResults   = 100   // search_files paths shown
	searchCollectLimit = 20000 // search_files matches collected before stopping
)

type searchFilesArgs struct {
	Pattern string `json:"pattern" jsonschema:"Glob, e.g. **/*.go; without / matches names at any depth"`
	Path    string `json:"path,omitempty" jsonschema:"Directory to search" tool:"path" default:"\".\""`
}

// searchFilesDef is search_files: files by glob, newest first.
func searchFilesDef() tools.Def {
	return tools.Define(tools.Spec{Name: "search_files", Kind: kind.Read, Standard: true,
		Description: "Find files by glob (honours .gitignore), newest first."}, searchFiles)
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

func searchFiles(ctx context.Context, env *tools.Env, a searchFilesArgs) tools.Result {
	if msg := checkGlob(a.Pattern); msg != "" {
		return tools.Failf(tools.CategoryValidation, "search_files: %s", msg)
	}
	root, res := dirOf(env, a.Path)
	if res != nil {
		return *res
	}
	pattern := strings.TrimPrefix(filepath.ToSlash(a.Pattern), "./")
	m, _ := walk.NewGlob(pattern)
	walkRoot := root
	if strings.Contains(pattern, "/") {
		base, rest := doublestar.SplitPattern(pattern)
		if base != "." {
			if walkRoot, res = env.Resolve("path", filepath.Join(root, filepath.FromSlash(base))); res != nil {
				return *res
			}
			if fi, err := os.Stat(walkRoot); err != nil || !fi.IsDir() {
				return tools.Success(fmt.Sprintf("No files match %q in %s", a.Pattern, env.Rel(root)), &tools.Meta{Path: env.Rel(root)})
			}
		}
		m = walk.NewPathGlob(rest)
	}
	found, truncated, err := collectFiles(ctx, walkRoot, m, env)
	if err != nil {
		return tools.Failf(tools.CategoryExecution, "search_files: %v", err)
	}
	return formatFound(found, truncated, a.Pattern, env.Rel(root))
}

func collectFiles(ctx context.Context, root string, m *walk.Glob, env *tools.Env) ([]foundFile, bool, error) {
	var mu sync.Mutex
	var found []foundFile
	err := walk.Tree(ctx, root, 0, func(abs, rel string, d fs.DirEntry) error {
		if d.IsDir() {
			mu.Lock()
			defer mu.Unlock()
			if len(found) >= searchCollectLimit {
				return walk.ErrStop // ends the whole walk, not one directory's
			}
			return nil
		}
		if !m.Match(rel) {
			return nil
		}
		var mt time.Time
		if fi, err := d.Info(); err == nil {
			mt = fi.ModTime()
		}
		mu.Lock()
		defer mu.Unlock()
		found = append(found, foundFile{rel: env.Rel(abs), mtime: mt})
		if len(found) >= searchCollectLimit {
			return walk.ErrStop
		}
		return nil
	})
	truncated := errors.Is(err, walk.ErrStop)
	if truncated {
		err = nil
	}
	return found, truncated, err
}

func formatFound(found []foundFile, truncated bool, pattern, where string) tools.Result {
	meta := &tools.Meta{Path: where, Matches: len(found), Truncated: truncated}
	if len(found) == 0 {
		return tools.Success(fmt.Sprintf("No files match %q in %s", pattern, where), meta)
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
	return tools.Success(b.String(), meta)
}
