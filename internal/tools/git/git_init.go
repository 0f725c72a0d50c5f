package git

import (
	"context"
	"os/exec"
	"path/filepath"

	"github.com/zelvior/aidex/internal/gitdir"
	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/tools"
	"github.com/zelvior/aidex/internal/tools/proc"
)

// gitInitDef is git_init: the one way a repository is created (a
// sandboxed `git init` is reverted and points here). It runs git as
// aidex's own git, outside the sandbox, in the neutral environment.
func gitInitDef() tools.Def {
	return tools.Define(tools.Spec{Name: "git_init", Kind: kind.Write,
		Description: "Create a Git repository in the workspace root (says so when there is one already)."},
		func(ctx context.Context, env *tools.Env, _ tools.NoArgs) tools.Result { return gitInit(ctx, env) })
}

func gitInit(ctx context.Context, env *tools.Env) tools.Result {
	if env == nil || env.Workspace == nil {
		return tools.Failf(tools.CategoryInternal, "internal error: no workspace configured for git tools")
	}
	root := env.Workspace.Root()
	switch r := gitdir.Find(root); {
	case r.Exists():
		return tools.Success("The workspace is already a Git repository ("+r.GitDir+"); nothing was changed.", nil)
	case r.Refused != "":
		return tools.Failf(tools.CategorySecurity, "git_init: %s; remove that .git file first if the workspace should get a repository of its own", r.Note)
	}
	bin, err := exec.LookPath("git")
	if err != nil {
		return tools.Failf(tools.CategoryNotFound, "git is not installed (not found on PATH); install git to use the git tools")
	}
	// The new git dir is named, so that git neither reinitialises a
	// repository above the workspace nor reads its config.
	environ := append(proc.GitEnviron(env.EnvPolicy), "GIT_DIR="+filepath.Join(root, ".git"),
		"GIT_CEILING_DIRECTORIES="+filepath.Dir(root))
	argv := append([]string{bin}, gitSafetyArgs[:]...)
	o := proc.Run(ctx, proc.Spec{Argv: append(argv, "init", "-q"), Dir: root, Env: environ, Timeout: gitTimeout})
	if !o.Ran || o.TimedOut || o.Cancelled || o.Err != nil || o.ExitCode < 0 {
		return o.Result("git", gitTimeout, "")
	}
	if o.ExitCode != 0 {
		return gitFail("git_init", gitRun{out: o.Output, cut: o.Truncated, exitCode: o.ExitCode})
	}
	return tools.Success("Initialized an empty Git repository in "+filepath.Join(root, ".git")+".", nil)
}
