package git

import (
	"context"

	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/tools"
)

// gitAddDef is git_add.
func gitAddDef() tools.Def {
	return tools.Define(tools.Spec{Name: "git_add", Kind: kind.Write,
		Description: "Stage files for the next commit."}, gitAdd)
}

type gitAddArgs struct {
	Paths []string `json:"paths" jsonschema:"Files or directories to stage" tool:"path"`
}

func gitAdd(ctx context.Context, env *tools.Env, a gitAddArgs) tools.Result {
	if len(a.Paths) == 0 {
		return tools.Failf(tools.CategoryValidation, `git_add: paths is empty; list the files to stage, e.g. ["main.go"] or ["."]`)
	}
	args := []string{"add", "--verbose", "--"}
	for _, p := range a.Paths {
		gp, res := gitPath(env, "paths", p)
		if res != nil {
			return *res
		}
		args = append(args, gp)
	}
	g := git(ctx, env, "", args...)
	if g.failed() {
		return gitFail("git_add", g)
	}
	return gitOK(g, "Nothing new to stage: the paths are unchanged or already staged.")
}
