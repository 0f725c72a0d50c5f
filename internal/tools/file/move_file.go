package file

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"syscall"

	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/tools"
)

// moveFileDef is move_file: move or rename a file.
func moveFileDef() tools.Def {
	return tools.Define(tools.Spec{Name: "move_file", Kind: kind.Write,
		Description: "Move or rename a file. An existing directory as destination moves the file into it."}, moveFile)
}

func moveFile(ctx context.Context, env *tools.Env, a srcDstArgs) tools.Result {
	src, isLink, res := resolveEntry(env, "source", a.Source)
	if res != nil {
		return *res
	}
	srel := env.Rel(src)
	fi, err := env.Lstat(src)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return tools.Failf(tools.CategoryNotFound, "source %s does not exist", srel)
	case err != nil:
		return tools.Failf(tools.CategoryExecution, "cannot stat %s: %v", srel, err)
	case fi.IsDir():
		return tools.Failf(tools.CategoryValidation, "%s is a directory: move_file moves files only", srel)
	case !isLink && !fi.Mode().IsRegular():
		return tools.Failf(tools.CategoryValidation, "%s is not a regular file (%s)", srel, fi.Mode().Type())
	}
	dst, res := destination(env, a.Destination, src)
	if res != nil {
		return *res
	}
	drel := env.Rel(dst)
	var content []byte
	if !isLink {
		if content, _, err = env.ReadRegular(src); err != nil {
			return tools.Failf(tools.CategoryExecution, "cannot read %s to checkpoint it (nothing was moved): %v", srel, err)
		}
		if res := env.Checkpoint(ctx, src, content, true); res != nil {
			return *res
		}
		if res := env.Checkpoint(ctx, dst, nil, false); res != nil {
			return *res
		}
	}
	if err := env.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return tools.Failf(tools.CategoryExecution, "cannot create the parent directory of %s: %v", drel, err)
	}
	if err := env.Rename(src, dst); err != nil {
		if isLink || !errors.Is(err, syscall.EXDEV) {
			return tools.Failf(tools.CategoryExecution, "cannot move %s to %s: %v", srel, drel, err)
		}
		if res := copyAcross(env, src, dst, content, fi.Mode().Perm()); res != nil {
			return *res
		}
	}
	env.MoveStamp(ctx, src, dst)
	return tools.Success(fmt.Sprintf("Moved %s to %s", srel, drel), &tools.Meta{Path: drel, Files: []string{srel, drel}})
}

// copyAcross finishes a move across file systems: write dst, remove src.
func copyAcross(env *tools.Env, src, dst string, content []byte, perm fs.FileMode) *tools.Result {
	if err := env.CreateNew(dst, content, perm); err != nil {
		r := tools.Failf(tools.CategoryExecution, "cannot move %s to %s: %v", env.Rel(src), env.Rel(dst), err)
		return &r
	}
	if err := env.Remove(src); err != nil {
		r := tools.Failf(tools.CategoryExecution, "copied %s to %s but cannot remove the source: %v", env.Rel(src), env.Rel(dst), err)
		return &r
	}
	return nil
}
