package exec

import (
	"context"

	"github.com/zelvior/aidex/internal/tools/proc"
)

// gitSafeEnviron returns environ with the program settings of the
// repository at dir neutralised (proc.RepoGitEnviron), so a `git status`
// that the policy lets a shell command run as read-only cannot start a
// program a cloned repository planted. When that config cannot be checked
// git is disabled for the command (GIT_DIR=proc.GitDisabledDir): git
// commands fail with a message naming the reason, nothing else changes.
func gitSafeEnviron(ctx context.Context, dir string, environ []string) []string {
	out, err := proc.RepoGitEnviron(ctx, dir, environ)
	if err != nil {
		return append(environ, "GIT_DIR="+proc.GitDisabledDir)
	}
	return out
}
