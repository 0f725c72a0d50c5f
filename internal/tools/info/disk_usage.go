package info

import (
	"cmp"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/charlievieth/fastwalk"

	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/tools"
)

// diskUsageDef is disk_usage.
func diskUsageDef() tools.Def {
	return tools.Define(tools.Spec{Name: "disk_usage", Kind: kind.Read, Aliases: []string{"du"},
		Description: "Show the total size of a directory (ignored files included) and its largest entries."},
		func(ctx context.Context, env *tools.Env, a infoPathArgs) tools.Result {
			return diskUsageTool(ctx, env, a.Path)
		})
}

func diskUsageTool(ctx context.Context, env *tools.Env, p string) tools.Result {
	abs, _, fi, res := statTarget(env, p)
	if res != nil {
		return *res
	}
	if st, err := os.Stat(abs); err == nil {
		fi = st
	}
	if !fi.IsDir() {
		return tools.Success(fmt.Sprintf("%s: %s (%d bytes)", env.Rel(abs), humanBytes(fi.Size()), fi.Size()),
			&tools.Meta{Path: env.Rel(abs)})
	}
	t := &sizeTally{root: abs, children: map[string]int64{}}
	conf := fastwalk.Config{Follow: false}
	err := fastwalk.Walk(&conf, abs, func(fp string, d fs.DirEntry, err error) error { return t.visit(ctx, fp, d, err) })
	if err != nil && ctx.Err() != nil {
		return tools.Failf(tools.CategoryExecution, "disk_usage cancelled: %v", ctx.Err())
	}
	return tools.Success(t.report(env.Rel(abs)), &tools.Meta{Path: env.Rel(abs), Truncated: t.truncated})
}

// sizeTally adds up the sizes of the regular files under root, by
// top-level entry; safe for concurrent use.
type sizeTally struct {
	root      string
	mu        sync.Mutex
	children  map[string]int64 // bytes under each top-level entry of root
	total     int64            // bytes in all
	entries   atomic.Int64     // entries visited
	truncated bool             // stopped at maxDiskEntries
}

// visit adds one entry of the walk (ignored files included).
func (t *sizeTally) visit(ctx context.Context, fp string, d fs.DirEntry, err error) error {
	if err != nil || fp == t.root {
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if t.entries.Add(1) > maxDiskEntries {
		t.mu.Lock()
		t.truncated = true
		t.mu.Unlock()
		return errWalkLimit
	}
	if !d.Type().IsRegular() {
		return nil
	}
	info, err := d.Info()
	if err != nil {
		return nil
	}
	rel, _ := filepath.Rel(t.root, fp)
	top, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
	t.mu.Lock()
	t.children[top] += info.Size()
	t.total += info.Size()
	t.mu.Unlock()
	return nil
}

// report is disk_usage's output for the directory shown as where: the
// total, then the largest top-level entries.
func (t *sizeTally) report(where string) string {
	type row struct {
		name string
		size int64
	}
	rows := make([]row, 0, len(t.children))
	for n, s := range t.children {
		rows = append(rows, row{n, s})
	}
	slices.SortFunc(rows, func(a, b row) int { return cmp.Or(cmp.Compare(b.size, a.size), cmp.Compare(a.name, b.name)) })
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s in %d entries (apparent size of regular files, ignored files included)\n",
		where, humanBytes(t.total), min(t.entries.Load(), maxDiskEntries))
	if t.truncated {
		fmt.Fprintf(&b, "[stopped after %d entries; the total is a lower bound]\n", maxDiskEntries)
	}
	for i, r := range rows {
		if i == maxListedGroups {
			fmt.Fprintf(&b, "... %d more entries\n", len(rows)-i)
			break
		}
		fmt.Fprintf(&b, "%10s  %s\n", humanBytes(r.size), r.name)
	}
	return b.String()
}
