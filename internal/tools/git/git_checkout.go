package git

import (
	"context"

	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/tools"
)

// gitCheckoutDef is git_checkout.
func gitCheckoutDef() tools.Def {
	return tools.Define(tools.Spec{Name: "git_checkout", Kind: kind.Write,
		Description: "Switch to a branch or commit; create=true creates the branch first. Refuses to overwrite local changes."},
		gitCheckout)
}

type gitCheckoutArgs struct {
	Ref    string `json:"ref" jsonschema:"Branch, tag or commit to switch to (or the new branch name with create)"`
	Create bool   `json:"create,omitempty" jsonschema:"Create the branch (git checkout -b)"`
}

func gitCheckout(ctx context.Context, env *tools.Env, a gitCheckoutArgs) tools.Result {
	var args []string
	if a.Create {
		if r := checkBranchName(ctx, env, a.Ref); r != nil {
			return *r
		}
		args = []string{"checkout", "-b", a.Ref}
	} else {
		if r := checkRef("ref", a.Ref); r != nil {
			return *r
		}
		// The trailing "--" makes git read ref as a revision, never as a
		// file to restore (which would discard local changes).
		args = []string{"checkout", a.Ref, "--"}
	}
	g := git(ctx, env, "", args...)
	if g.failed() {
		return gitFail("git_checkout", g)
	}
	return gitOK(g, "Switched to "+a.Ref+".")
}
