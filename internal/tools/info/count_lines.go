package info

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/tools"
	"github.com/zelvior/aidex/internal/tools/walk"
)

// countLinesDef is count_lines.
func countLinesDef() tools.Def {
	return tools.Define(tools.Spec{Name: "count_lines", Kind: kind.Read, Aliases: []string{"wc", "line_count"},
		Description: "Count lines in a file, or in every text file under a directory by extension (honours .gitignore)."},
		func(ctx context.Context, env *tools.Env, a infoPathArgs) tools.Result {
			return countLinesTool(ctx, env, a.Path)
		})
}

func countLinesTool(ctx context.Context, env *tools.Env, p string) tools.Result {
	abs, res := env.Resolve("path", p)
	if res != nil {
		return *res
	}
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return tools.Failf(tools.CategoryNotFound, "%s does not exist", env.Rel(abs))
	case err != nil:
		return tools.Failf(tools.CategoryExecution, "cannot stat %s: %v", env.Rel(abs), err)
	case fi.Mode().IsRegular():
		c, err := countFileLines(ctx, abs)
		if err != nil {
			return tools.Failf(tools.CategoryExecution, "cannot read %s: %v", env.Rel(abs), err)
		}
		if c.binary {
			return tools.Failf(tools.CategoryValidation, "%s is a binary file (%s); lines are counted in text files only",
				env.Rel(abs), humanBytes(c.bytes))
		}
		return tools.Success(fmt.Sprintf("%d lines in %s (%s)", c.lines, env.Rel(abs), humanBytes(c.bytes)),
			&tools.Meta{Path: env.Rel(abs), Lines: c.lines})
	case !fi.IsDir():
		return tools.Failf(tools.CategoryValidation, "%s is a %s, not a file or directory", env.Rel(abs), fileType(fi.Mode()))
	}
	return countDirLines(ctx, env, abs)
}

// lineTally is what count_lines counts under a directory; safe for
// concurrent use.
type lineTally struct {
	mu        sync.Mutex
	groups    map[string]*extGroup // by extension
	files     int                  // text files counted
	binaries  int                  // binary files skipped
	total     int                  // lines in all
	seen      atomic.Int64         // regular files visited
	truncated bool                 // stopped at maxCountFiles
}

// visit counts one entry of the walk.
func (t *lineTally) visit(ctx context.Context, abs, rel string, d fs.DirEntry) error {
	if !d.Type().IsRegular() {
		return nil
	}
	if t.seen.Add(1) > maxCountFiles {
		t.mu.Lock()
		t.truncated = true
		t.mu.Unlock()
		return errWalkLimit
	}
	c, err := countFileLines(ctx, abs)
	if err != nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if c.binary {
		t.binaries++
		return nil
	}
	ext := extOf(rel)
	g := t.groups[ext]
	if g == nil {
		g = &extGroup{ext: ext}
		t.groups[ext] = g
	}
	g.files++
	g.lines += c.lines
	t.files++
	t.total += c.lines
	return nil
}

// report is count_lines' output for the directory shown as where: the
// totals, then the extensions by lines.
func (t *lineTally) report(where string) string {
	list := make([]*extGroup, 0, len(t.groups))
	for _, g := range t.groups {
		list = append(list, g)
	}
	slices.SortFunc(list, func(a, b *extGroup) int {
		return cmp.Or(cmp.Compare(b.lines, a.lines), cmp.Compare(a.ext, b.ext))
	})
	var b strings.Builder
	fmt.Fprintf(&b, "%d lines in %d text files under %s", t.total, t.files, where)
	if t.binaries > 0 {
		fmt.Fprintf(&b, " (%d binary files skipped)", t.binaries)
	}
	b.WriteString(" (.gitignore honoured)\n")
	if t.truncated {
		fmt.Fprintf(&b, "[stopped after %d files; count a subdirectory for exact numbers]\n", maxCountFiles)
	}
	for i, g := range list {
		if i == maxListedGroups {
			fmt.Fprintf(&b, "... %d more extensions\n", len(list)-i)
			break
		}
		fmt.Fprintf(&b, "%10d  %6d files  %s\n", g.lines, g.files, g.ext)
	}
	return b.String()
}

func countDirLines(ctx context.Context, env *tools.Env, abs string) tools.Result {
	t := &lineTally{groups: map[string]*extGroup{}}
	err := walk.Tree(ctx, abs, 0, func(fileAbs, rel string, d fs.DirEntry) error { return t.visit(ctx, fileAbs, rel, d) })
	if err != nil && ctx.Err() != nil {
		return tools.Failf(tools.CategoryExecution, "count_lines cancelled: %v", ctx.Err())
	}
	return tools.Success(t.report(env.Rel(abs)), &tools.Meta{Path: env.Rel(abs), Lines: t.total, Truncated: t.truncated})
}
