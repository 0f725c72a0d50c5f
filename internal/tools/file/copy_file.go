package file

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/tools"
)

// copyFileDef is copy_file: copy a file.
func copyFileDef() tools.Def {
	return tools.Define(tools.Spec{Name: "copy_file", Kind: kind.Write,
		Description: "Copy a file. An existing directory as destination copies the file into it."}, copyFile)
}

func copyFile(ctx context.Context, env *tools.Env, a srcDstArgs) tools.Result {
	src, res := env.Resolve("source", a.Source)
	if res != nil {
		return *res
	}
	srel := env.Rel(src)
	fi, err := env.Stat(src)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return tools.Failf(tools.CategoryNotFound, "source %s does not exist", srel)
	case err != nil:
		return tools.Failf(tools.CategoryExecution, "cannot stat %s: %v", srel, err)
	case fi.IsDir():
		return tools.Failf(tools.CategoryValidation, "%s is a directory: copy_file copies files only", srel)
	case !fi.Mode().IsRegular():
		return tools.Failf(tools.CategoryValidation, "%s is not a regular file (%s)", srel, fi.Mode().Type())
	case fi.Size() > tools.MaxWriteBytes:
		return tools.Failf(tools.CategoryValidation, "%s is %d bytes, over the %d MiB limit of copy_file", srel, fi.Size(), tools.MaxWriteBytes>>20)
	}
	content, _, err := env.ReadRegular(src)
	if err != nil {
		return tools.Failf(tools.CategoryExecution, "cannot read %s: %v", srel, err)
	}
	dst, res := destination(env, a.Destination, src)
	if res != nil {
		return *res
	}
	drel := env.Rel(dst)
	if res := env.Checkpoint(ctx, dst, nil, false); res != nil {
		return *res
	}
	if err := env.CreateNew(dst, content, fi.Mode().Perm()); err != nil {
		return tools.Failf(tools.CategoryExecution, "cannot copy %s to %s: %v", srel, drel, err)
	}
	meta := &tools.Meta{Path: drel, Files: []string{drel}}
	if !tools.IsBinary(content) {
		meta.Diff = tools.MakeDiff(drel, "", string(content))
	}
	return tools.Success(fmt.Sprintf("Copied %s to %s (%d bytes)", srel, drel, len(content)), meta)
}
