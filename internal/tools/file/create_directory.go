package file

import (
	"context"
	"fmt"

	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/tools"
)

// createDirectoryDef is create_directory: mkdir -p.
func createDirectoryDef() tools.Def {
	return tools.Define(tools.Spec{Name: "create_directory", Kind: kind.Write, Description: "Create a directory and its parents."},
		func(ctx context.Context, env *tools.Env, a pathArgs) tools.Result { return createDir(env, a.Path) })
}

func createDir(env *tools.Env, path string) tools.Result {
	abs, res := env.Resolve("path", path)
	if res != nil {
		return *res
	}
	rel := env.Rel(abs)
	if fi, err := env.Stat(abs); err == nil {
		if fi.IsDir() {
			return tools.Success(fmt.Sprintf("Directory %s already exists", rel), &tools.Meta{Path: rel})
		}
		return tools.Failf(tools.CategoryValidation, "%s exists and is not a directory", rel)
	}
	if err := env.MkdirAll(abs, 0o755); err != nil {
		return tools.Failf(tools.CategoryExecution, "cannot create directory %s: %v", rel, err)
	}
	return tools.Success(fmt.Sprintf("Created directory %s", rel), &tools.Meta{Path: rel})
}
