package git

import (
	"context"
	"strings"

	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/tools"
)

// gitStatusDef is git_status.
func gitStatusDef() tools.Def {
	return tools.Define(tools.Spec{Name: "git_status", Kind: kind.Read, Aliases: []string{"status"},
		Description: "Show the branch and changed, staged and untracked files (git status --short --branch)."},
		func(ctx context.Context, env *tools.Env, _ tools.NoArgs) tools.Result { return gitStatus(ctx, env) })
}

func gitStatus(ctx context.Context, env *tools.Env) tools.Result {
	g := git(ctx, env, "", "status", "--short", "--branch", "--untracked-files=normal")
	if g.failed() {
		return gitFail("git_status", g)
	}
	if lines := strings.Count(strings.TrimSpace(g.out), "\n"); lines == 0 {
		g.out = strings.TrimRight(g.out, "\n") + "\nnothing to commit, working tree clean\n"
	}
	return gitOK(g, "")
}
