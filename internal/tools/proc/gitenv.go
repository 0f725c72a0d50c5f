package proc

import (
	"context"
	"os"
	"strings"

	"github.com/zelvior/aidex/internal/gitdir"
)

// gitEnvDrop are variables removed from git's environment: they would
// point git at another repository, index or config, or run programs.
var gitEnvDrop = [...]string{
	"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES",
	"GIT_CONFIG", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM",
	"GIT_EXTERNAL_DIFF", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_SSH", "GIT_SSH_COMMAND", "GIT_ASKPASS",
	"GIT_EXEC_PATH", "GIT_NAMESPACE", "GIT_COMMON_DIR", "GIT_PROXY_COMMAND", "GIT_TRACE", "GIT_ATTR_SOURCE",
}

// GitEnviron returns the environment git runs with for the tools:
// os.Environ() without credentials (by pol, see ChildEnviron) and with
// git's program settings neutralised, without the variables that would
// point git at another repository, index or config or make it run
// programs, plus LC_ALL=C.
func GitEnviron(pol EnvPolicy) []string {
	return append(dropGitVars(ChildEnviron(os.Environ(), nil, pol)), "LC_ALL=C")
}

// OwnGitEnviron returns the one environment every git aidex runs for
// itself uses in dir (the git tools, the prompt's status, Ralph's
// workers and merges): base without the variables that would point git
// at another repository, index or config or make it run programs, with
// the neutral settings of every child environment, GIT_DIR,
// GIT_COMMON_DIR and GIT_WORK_TREE set from gitdir.Discover(dir) (never
// read from files a command could write without a back-pointer), and
// the program settings of the repository's own config neutralised
// (RepoGitEnviron; the user's global config keeps working). Errors: as
// RepoGitEnviron's (wrapping ErrGitConfig).
func OwnGitEnviron(ctx context.Context, dir string, base []string) ([]string, error) {
	env := withGitNeutralised(dropGitVars(base))
	env = append(env, gitdir.Discover(dir).Environ()...)
	return RepoGitEnviron(ctx, dir, env)
}

// dropGitVars returns env without the variables of gitEnvDrop.
func dropGitVars(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		drop := false
		for _, d := range gitEnvDrop {
			drop = drop || sameEnvName(name, d)
		}
		if !drop {
			out = append(out, kv)
		}
	}
	return out
}
