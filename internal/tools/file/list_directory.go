package file

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/tools"
	"github.com/zelvior/aidex/internal/tools/walk"
)

// Limits of list_directory.
const (
	maxListEntries = 500 // list_directory entries shown
	maxListDepth   = 10  // list_directory depth ceiling
)

// listLimits bound one listing: entries shown, entries read from one
// directory (a directory of a million files is not read whole), and time.
type listLimits struct {
	entries    int
	dirEntries int
	timeout    time.Duration
}

// defaultListLimits are list_directory's limits.
var defaultListLimits = listLimits{entries: maxListEntries, dirEntries: 5000, timeout: 5 * time.Second}

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
	env     *tools.Env
	ctx     context.Context
	ig      *walk.Ignores
	lim     listLimits
	b       strings.Builder
	count   int
	full    bool
	bigDirs int // directories with more than lim.dirEntries entries
	depth   int
}

func listDir(ctx context.Context, env *tools.Env, a listArgs) tools.Result {
	return listDirWith(ctx, env, a, defaultListLimits)
}

// listDirWith is list_directory under the limits lim. Ignored directories
// are never read.
func listDirWith(parent context.Context, env *tools.Env, a listArgs, lim listLimits) tools.Result {
	abs, res := dirOf(env, a.Path)
	if res != nil {
		return *res
	}
	ctx, cancel := context.WithTimeout(parent, lim.timeout)
	defer cancel()
	depth := min(max(a.Depth, 1), maxListDepth)
	l := &lister{env: env, ctx: ctx, ig: walk.NewIgnores(abs), lim: lim, depth: depth}
	rel := env.Rel(abs)
	fmt.Fprintf(&l.b, "%s/\n", strings.TrimSuffix(rel, "/"))
	l.list(abs, 1)
	if parent.Err() != nil {
		return tools.Failf(tools.CategoryExecution, "list_directory cancelled: %v", parent.Err())
	}
	timedOut := ctx.Err() != nil
	meta := &tools.Meta{Path: rel, Matches: l.count, Truncated: l.full || timedOut || l.bigDirs > 0}
	if l.count == 0 && !timedOut {
		l.b.WriteString("  (empty)\n")
	}
	switch {
	case timedOut:
		fmt.Fprintf(&l.b, "... listing stopped after %s (%d entries); list a subdirectory or use a smaller depth\n", lim.timeout, l.count)
	case l.full:
		fmt.Fprintf(&l.b, "... listing cut at %d entries; list a subdirectory or use a smaller depth\n", lim.entries)
	}
	if l.bigDirs > 0 {
		fmt.Fprintf(&l.b, "... %d directories hold more than %d entries: only the first %d read of each are listed; "+
			"use search_files to find files in them\n", l.bigDirs, lim.dirEntries, lim.dirEntries)
	}
	return tools.Success(l.b.String(), meta)
}

func (l *lister) list(dir string, level int) {
	if l.ctx.Err() != nil {
		return
	}
	entries, err := l.env.ReadDirN(dir, l.lim.dirEntries+1)
	if err != nil {
		fmt.Fprintf(&l.b, "%s(cannot read: %v)\n", strings.Repeat("  ", level), err)
		return
	}
	if len(entries) > l.lim.dirEntries {
		entries = entries[:l.lim.dirEntries]
		l.bigDirs++
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
		if l.count == l.lim.entries {
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
