package git

import (
	"context"
	"fmt"

	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/tools"
)

// gitBranchDef is git_branch.
func gitBranchDef() tools.Def {
	return tools.Define(tools.Spec{Name: "git_branch", Kind: kind.Write,
		Description: "List branches, or create a branch (without switching to it) when name is given."}, gitBranch)
}

type gitBranchArgs struct {
	Name string `json:"name,omitempty" jsonschema:"Branch to create; omit to list branches"`
}

func gitBranch(ctx context.Context, env *tools.Env, a gitBranchArgs) tools.Result {
	if a.Name == "" {
		g := git(ctx, env, "", "branch", "--list", "--no-color", "--verbose")
		if g.failed() {
			return gitFail("git_branch", g)
		}
		return gitOK(g, "No branches yet (no commits).")
	}
	if r := checkBranchName(ctx, env, a.Name); r != nil {
		return *r
	}
	g := git(ctx, env, "", "branch", "--", a.Name)
	if g.failed() {
		return gitFail("git_branch", g)
	}
	return gitOK(g, fmt.Sprintf("Created branch %s (not checked out; use git_checkout to switch).", a.Name))
}
