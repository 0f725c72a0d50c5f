package exec

import (
	"context"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/zelvior/aidex/internal/tools/proc"
)

// repoGitKeys matches the git settings a repository's own config can use to
// make git run a program: fsmonitor, ssh, pager, askpass, external diff and
// filter drivers.
const repoGitKeys = `^(core\.(fsmonitor|sshcommand|pager|askpass)|diff\.external|filter\..*\.(clean|smudge|process))$`

// repoGitEnv returns environment entries (GIT_CONFIG_COUNT, GIT_CONFIG_KEY_n,
// GIT_CONFIG_VALUE_n) that neutralise the program-running settings the
// repository at dir defines in its own config (local, worktree or included
// scopes; the user's global and system settings are kept), appended after
// any such entries already in environ. So a `git status` that the policy
// lets a shell command run as read-only cannot start a program a cloned
// repository planted. It returns nil outside a repository, without git, or
// when the repository sets none of them.
func repoGitEnv(ctx context.Context, dir string, environ []string) []string {
	bin, err := exec.LookPath("git")
	if err != nil {
		return nil
	}
	argv := []string{bin, "--no-pager", "config", "--show-scope", "--null", "--get-regexp", repoGitKeys}
	o := proc.Run(ctx, proc.Spec{Argv: argv, Dir: dir, Env: proc.GitEnviron(), Timeout: 5 * time.Second, MaxChars: 1 << 20})
	if !o.Ran || o.ExitCode != 0 {
		return nil
	}
	var keys, values []string
	// Records are "SCOPE\0NAME\nVALUE\0".
	fields := strings.Split(o.Output, "\x00")
	for i := 0; i+1 < len(fields); i += 2 {
		scope := fields[i]
		name, _, _ := strings.Cut(fields[i+1], "\n")
		if scope == "global" || scope == "system" || name == "" {
			continue
		}
		keys, values = append(keys, name), append(values, neutralValue(name))
		if strings.HasPrefix(name, "filter.") {
			drv := name[:strings.LastIndexByte(name, '.')]
			keys, values = append(keys, drv+".required"), append(values, "false")
		}
	}
	if len(keys) == 0 {
		return nil
	}
	n, _ := strconv.Atoi(proc.EnvValue(environ, "GIT_CONFIG_COUNT"))
	out := make([]string, 0, 2*len(keys)+1)
	for i := range keys {
		out = append(out, "GIT_CONFIG_KEY_"+strconv.Itoa(n+i)+"="+keys[i], "GIT_CONFIG_VALUE_"+strconv.Itoa(n+i)+"="+values[i])
	}
	return append(out, "GIT_CONFIG_COUNT="+strconv.Itoa(n+len(keys)))
}

// neutralValue is the harmless value of a program-running git setting.
func neutralValue(key string) string {
	if key == "core.pager" {
		return "cat"
	}
	return ""
}
