package git

import "github.com/zelvior/aidex/internal/tools"

// Tools returns the git tools, all run as argv (never through a shell)
// in the workspace root with the repository's hooks, fsmonitor, pager,
// external diff and filter programs disabled, in this order:
// git_status, git_diff, git_log (Kind read) and git_add, git_commit,
// git_init, git_branch, git_checkout (Kind write; git_branch is write
// because with a name it creates a branch). Output is capped at
// exec.DefaultMaxOutputChars. Register them with tools.Registry.Register.
func Tools() []tools.Def {
	return []tools.Def{
		gitStatusDef(), gitDiffDef(), gitLogDef(), gitAddDef(), gitCommitDef(), gitInitDef(), gitBranchDef(), gitCheckoutDef(),
	}
}
