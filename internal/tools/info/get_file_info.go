package info

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/tools"
)

// getFileInfoDef is get_file_info.
func getFileInfoDef() tools.Def {
	return tools.Define(tools.Spec{Name: "get_file_info", Kind: kind.Read, Aliases: []string{"file_info", "stat"},
		Description: "Show a file's or directory's type, size, permissions, modification time and line count."},
		func(ctx context.Context, env *tools.Env, a infoPathArgs) tools.Result {
			return fileInfoTool(ctx, env, a.Path)
		})
}

func fileInfoTool(ctx context.Context, env *tools.Env, p string) tools.Result {
	abs, lexical, fi, res := statTarget(env, p)
	if res != nil {
		return *res
	}
	var b strings.Builder
	fmt.Fprintf(&b, "path: %s\n", env.Rel(lexical))
	fmt.Fprintf(&b, "type: %s\n", fileType(fi.Mode()))
	if fi.Mode()&fs.ModeSymlink != 0 {
		target, _ := os.Readlink(lexical)
		fmt.Fprintf(&b, "link target: %s (resolves to %s)\n", target, env.Rel(abs))
		if fi, res = statResolved(env, abs); res != nil {
			return *res
		}
		fmt.Fprintf(&b, "target type: %s\n", fileType(fi.Mode()))
	}
	fmt.Fprintf(&b, "size: %d bytes (%s)\n", fi.Size(), humanBytes(fi.Size()))
	fmt.Fprintf(&b, "mode: %s (%04o)\n", fi.Mode().String(), fi.Mode().Perm())
	fmt.Fprintf(&b, "modified: %s\n", fi.ModTime().Format(time.RFC3339))
	meta := &tools.Meta{Path: env.Rel(abs)}
	switch {
	case fi.Mode().IsRegular():
		c, err := countFileLines(ctx, abs)
		switch {
		case err != nil:
			fmt.Fprintf(&b, "lines: unknown (%v)\n", err)
		case c.binary:
			b.WriteString("content: binary\n")
		default:
			fmt.Fprintf(&b, "lines: %d\n", c.lines)
			meta.Lines = c.lines
		}
	case fi.IsDir():
		if entries, err := os.ReadDir(abs); err == nil {
			fmt.Fprintf(&b, "entries: %d\n", len(entries))
		}
	}
	return tools.Success(b.String(), meta)
}

func statResolved(env *tools.Env, abs string) (fs.FileInfo, *tools.Result) {
	fi, err := os.Stat(abs)
	if err != nil {
		r := tools.Failf(tools.CategoryNotFound, "the symlink target %s cannot be read: %v", env.Rel(abs), err)
		return nil, &r
	}
	return fi, nil
}
