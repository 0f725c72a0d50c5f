package git

import (
	"context"
	"errors"
	"os"
	"path/filepath"

	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/tools"
)

// gitInitDef is git_init.
func gitInitDef() tools.Def {
	return tools.Define(tools.Spec{Name: "git_init", Kind: kind.Write,
		Description: "Create a Git repository in the workspace root."},
		func(ctx context.Context, env *tools.Env, _ tools.NoArgs) tools.Result { return gitInit(ctx, env) })
}

func gitInit(ctx context.Context, env *tools.Env) tools.Result {
	if env == nil || env.Workspace == nil {
		return tools.Failf(tools.CategoryInternal, "internal error: no workspace configured for git tools")
	}
	if _, err := os.Lstat(filepath.Join(env.Workspace.Root(), ".git")); err == nil {
		return tools.Success("The workspace is already a Git repository; nothing was changed.", nil)
	} else if !errors.Is(err, os.ErrNotExist) {
		return tools.Failf(tools.CategoryExecution, "git_init: cannot check for .git: %v", err)
	}
	g := git(ctx, env, "", "init")
	if g.failed() {
		return gitFail("git_init", g)
	}
	return gitOK(g, "Initialized an empty Git repository.")
}
