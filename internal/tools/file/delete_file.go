package file

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"syscall"

	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/tools"
)

// deleteFileDef is delete_file: a file, a symlink or an empty directory.
func deleteFileDef() tools.Def {
	return tools.Define(tools.Spec{Name: "delete_file", Kind: kind.Write,
		Description: "Delete a file, a symlink (not its target) or an empty directory."},
		func(ctx context.Context, env *tools.Env, a pathArgs) tools.Result {
			return deleteFile(ctx, env, a.Path)
		})
}

func deleteFile(ctx context.Context, env *tools.Env, path string) tools.Result {
	abs, isLink, res := resolveEntry(env, "path", path)
	if res != nil {
		return *res
	}
	rel := env.Rel(abs)
	fi, err := env.Lstat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return tools.Failf(tools.CategoryNotFound, "%s does not exist", rel)
	case err != nil:
		return tools.Failf(tools.CategoryExecution, "cannot stat %s: %v", rel, err)
	case isLink:
		if err := env.Remove(abs); err != nil {
			return tools.Failf(tools.CategoryExecution, "cannot remove symlink %s: %v", rel, err)
		}
		return tools.Success(fmt.Sprintf("Removed the symlink %s (its target is untouched)", rel), &tools.Meta{Path: rel})
	case fi.IsDir():
		if err := env.Remove(abs); err != nil {
			if errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST) {
				return tools.Failf(tools.CategoryValidation, "directory %s is not empty: delete_file removes files and "+
					"empty directories only; delete the files in it first", rel)
			}
			return tools.Failf(tools.CategoryExecution, "cannot remove directory %s: %v", rel, err)
		}
		return tools.Success(fmt.Sprintf("Removed the empty directory %s", rel), &tools.Meta{Path: rel})
	case !fi.Mode().IsRegular():
		return tools.Failf(tools.CategoryValidation, "%s is not a regular file (%s); delete_file will not remove it", rel, fi.Mode().Type())
	}
	content, _, err := env.ReadRegular(abs)
	if err != nil {
		return tools.Failf(tools.CategoryExecution, "cannot read %s to checkpoint it (nothing was deleted): %v", rel, err)
	}
	if !tools.IsBinary(content) { // binary files cannot be read with read_file, so they need no read
		if res := env.CheckFresh(ctx, abs, content); res != nil {
			return *res
		}
	}
	if res := env.Checkpoint(ctx, abs, content, true); res != nil {
		return *res
	}
	if err := env.Remove(abs); err != nil {
		return tools.Failf(tools.CategoryExecution, "cannot delete %s: %v", rel, err)
	}
	env.Forget(ctx, abs)
	meta := &tools.Meta{Path: rel}
	if !tools.IsBinary(content) {
		meta.Diff = tools.MakeDiff(rel, string(content), "")
	}
	return tools.Success(fmt.Sprintf("Deleted %s (%d bytes)", rel, len(content)), meta)
}
