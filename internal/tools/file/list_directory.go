package file

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/tools"
	"github.com/zelvior/aidex/internal/tools/walk"
)

// Limits of list_directory.
const (
	maxListEntries = 500 // list_directory entries shown
	maxListDepth   = 10  // list_directory depth ceiling
)

type listArgs struct {
	Path  string `json:"path,omitempty" jsonschema:"Directory" tool:"path" default:"\".\""`
	Depth int    `json:"depth,omitempty" jsonschema:"Levels to show" default:"2"`
}

// listDirectoryDef is list_directory: a directory as a tree.
func listDirectoryDef() tools.Def {
	return tools.Define(tools.Spec{Name: "list_directory", Kind: kind.Read, Standard: true,
		Description: "List a directory as a tree (honours .gitignore)."}, listDir)
}

type lister struct {
	env   *tools.Env
	ctx   context.Context
	ig    *walk.Ignores
	b     strings.Builder
	count int
	full  bool
	depth int
}

func listDir(ctx context.Context, env *tools.Env, a listArgs) tools.Result {
	abs, res := dirOf(env, a.Path)
	if res != nil {
		return *res
	}
	depth := min(max(a.Depth, 1), maxListDepth)
	l := &lister{env: env, ctx: ctx, ig: walk.NewIgnores(abs), depth: depth}
	rel := env.Rel(abs)
	fmt.Fprintf(&l.b, "%s/\n", strings.TrimSuffix(rel, "/"))
	l.list(abs, 1)
	if ctx.Err() != nil {
		return tools.Failf(tools.CategoryExecution, "list_directory cancelled: %v", ctx.Err())
	}
	meta := &tools.Meta{Path: rel, Matches: l.count, Truncated: l.full}
	if l.count == 0 {
		l.b.WriteString("  (empty)\n")
	}
	if l.full {
		fmt.Fprintf(&l.b, "... listing cut at %d entries; list a subdirectory or use a smaller depth\n", maxListEntries)
	}
	return tools.Success(l.b.String(), meta)
}

func (l *lister) list(dir string, level int) {
	entries, err := l.env.ReadDir(dir)
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
		if walk.SkipName(e.Name()) || l.ig.Ignored(p, e.IsDir()) {
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
			target, _ := l.env.Readlink(p)
			fmt.Fprintf(&l.b, "%s%s -> %s\n", indent, e.Name(), target)
		case e.IsDir():
			fmt.Fprintf(&l.b, "%s%s/\n", indent, e.Name())
			if level < l.depth {
				l.ig.Enter(p)
				l.list(p, level+1)
			}
		default:
			fmt.Fprintf(&l.b, "%s%s\n", indent, e.Name())
		}
	}
}
