package git

import (
	"context"
	"strings"

	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/tools"
)

// gitDiffDef is git_diff.
func gitDiffDef() tools.Def {
	return tools.Define(tools.Spec{Name: "git_diff", Kind: kind.Read,
		Description: "Show unstaged changes (or staged ones with staged=true), optionally for one path."}, gitDiff)
}

type gitDiffArgs struct {
	Path   string `json:"path,omitempty" jsonschema:"Limit the diff to this file or directory" tool:"path"`
	Staged bool   `json:"staged,omitempty" jsonschema:"Show staged changes (git diff --cached)"`
}

func gitDiff(ctx context.Context, env *tools.Env, a gitDiffArgs) tools.Result {
	args := []string{"diff", "--no-ext-diff", "--no-textconv", "--no-color", "--stat", "--patch"}
	if a.Staged {
		args = append(args, "--cached")
	}
	args = append(args, "--")
	if a.Path != "" {
		p, res := gitPath(env, "path", a.Path)
		if res != nil {
			return *res
		}
		args = append(args, p)
	}
	g := git(ctx, env, "", args...)
	if g.failed() {
		return gitFail("git_diff", g)
	}
	empty := "No unstaged changes."
	if a.Staged {
		empty = "No staged changes."
	}
	r := gitOK(g, empty)
	if !g.cut && strings.TrimSpace(g.out) != "" {
		r.Meta.Diff = g.out
	}
	return r
}
