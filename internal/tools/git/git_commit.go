package git

import (
	"context"
	"strings"

	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/tools"
)

// gitCommitDef is git_commit.
func gitCommitDef() tools.Def {
	return tools.Define(tools.Spec{Name: "git_commit", Kind: kind.Write,
		Description: "Commit the staged changes with a message (hooks are not run)."}, gitCommit)
}

type gitCommitArgs struct {
	Message string `json:"message" jsonschema:"Commit message"`
}

func gitCommit(ctx context.Context, env *tools.Env, a gitCommitArgs) tools.Result {
	if strings.TrimSpace(a.Message) == "" {
		return tools.Failf(tools.CategoryValidation, "git_commit: message is empty; describe the change")
	}
	// The message goes through stdin (-F -): never an option, never a shell word.
	g := git(ctx, env, a.Message, "commit", "--no-verify", "--no-edit", "--file=-")
	if g.res == nil && g.exitCode != 0 && (strings.Contains(g.out, "nothing to commit") ||
		strings.Contains(g.out, "no changes added to commit") || strings.Contains(g.out, "nothing added to commit")) {
		r := tools.Failf(tools.CategoryValidation, "git_commit: nothing is staged; stage changes with git_add first")
		r.Output = g.out
		return r
	}
	if g.failed() {
		return gitFail("git_commit", g)
	}
	return gitOK(g, "Committed.")
}
