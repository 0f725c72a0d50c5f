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
	var mu sync.Mutex
	children := map[string]int64{}
	var total int64
	var entries atomic.Int64
	truncated := false
	conf := fastwalk.Config{Follow: false}
	err := fastwalk.Walk(&conf, abs, func(fp string, d fs.DirEntry, err error) error {
		if err != nil || fp == abs {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if entries.Add(1) > maxDiskEntries {
			mu.Lock()
			truncated = true
			mu.Unlock()
			return errWalkLimit
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(abs, fp)
		top, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
		mu.Lock()
		children[top] += info.Size()
		total += info.Size()
		mu.Unlock()
		return nil
	})
	if err != nil && ctx.Err() != nil {
		return tools.Failf(tools.CategoryExecution, "disk_usage cancelled: %v", ctx.Err())
	}
	type row struct {
		name string
		size int64
	}
	rows := make([]row, 0, len(children))
	for n, s := range children {
		rows = append(rows, row{n, s})
	}
	slices.SortFunc(rows, func(a, b row) int { return cmp.Or(cmp.Compare(b.size, a.size), cmp.Compare(a.name, b.name)) })
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s in %d entries (apparent size of regular files, ignored files included)\n",
		env.Rel(abs), humanBytes(total), min(entries.Load(), maxDiskEntries))
	if truncated {
		fmt.Fprintf(&b, "[stopped after %d entries; the total is a lower bound]\n", maxDiskEntries)
	}
	for i, r := range rows {
		if i == maxListedGroups {
			fmt.Fprintf(&b, "... %d more entries\n", len(rows)-i)
			break
		}
		fmt.Fprintf(&b, "%10s  %s\n", humanBytes(r.size), r.name)
	}
	return tools.Success(b.String(), &tools.Meta{Path: env.Rel(abs), Truncated: truncated})
}
