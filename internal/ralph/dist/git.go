package dist

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/zelvior/aidex/internal/tools/proc"
)

// gitEnv is the base of the environment git runs with: the process's,
// with the protocols a remote may use limited (no ext::, no fd::), no
// prompts, and no repository variables that would redirect it.
func gitEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES",
			"GIT_ALLOW_PROTOCOL", "GIT_PROTOCOL_FROM_USER", "GIT_SSH_COMMAND", "GIT_CONFIG_PARAMETERS":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "GIT_ALLOW_PROTOCOL=https:ssh:file", "GIT_PROTOCOL_FROM_USER=0", "GIT_TERMINAL_PROMPT=0")
}

// gitEnviron is the environment git runs with in dir: aidex's own git
// environment (proc.OwnGitEnviron: the repository from gitdir, no hooks,
// fsmonitor, pager, filters, drivers nor aliases, and none of the
// program settings of the repository's own config, which the model's
// commands may have written in a worker's worktree) over gitEnv. The
// user's global config (credential helper, ssh) keeps working.
func gitEnviron(ctx context.Context, dir string) ([]string, error) {
	env, err := proc.OwnGitEnviron(ctx, dir, gitEnv())
	if err != nil {
		return nil, fmt.Errorf("git in %s: %w", dir, err)
	}
	return env, nil
}

// git runs git in dir and returns its trimmed stdout; an error carries
// git's stderr.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	env, err := gitEnviron(ctx, dir)
	if err != nil {
		return "", err
	}
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	cmd.Env = env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return strings.TrimSpace(out.String()), nil
}

// Head returns the commit HEAD of the repository at dir names. Errors:
// not a git repository, or one with no commit.
func Head(ctx context.Context, dir string) (string, error) {
	h, err := git(ctx, dir, "rev-parse", "--verify", "HEAD^{commit}")
	if err != nil {
		return "", fmt.Errorf("%s needs to be a git repository with a commit for workers (git init && git commit): %w", dir, err)
	}
	return h, nil
}

// newWorktree makes a fresh worktree at wt on a new branch from base in
// repo (a leftover worktree or branch of an earlier delivery is removed
// first: a redelivered task starts over).
func newWorktree(ctx context.Context, repo, wt, branch, base string) error {
	removeWorktree(ctx, repo, wt)
	if err := os.MkdirAll(filepath.Dir(wt), 0o700); err != nil {
		return fmt.Errorf("worktree folder: %w", err)
	}
	if _, err := git(ctx, repo, "worktree", "add", "--force", "-B", branch, wt, base); err != nil {
		return err
	}
	return nil
}

// removeWorktree removes a worktree and prunes it; errors are ignored
// (the worktree may not exist).
func removeWorktree(ctx context.Context, repo, wt string) {
	_, _ = git(ctx, repo, "worktree", "remove", "--force", wt)
	_ = os.RemoveAll(wt)
	_, _ = git(ctx, repo, "worktree", "prune")
}

// commitAll commits every change in the worktree with message msg and
// returns the new commit and the lines changed (added + removed). With
// nothing changed it still commits (an empty commit), so every done task
// has its commit. The author is git's own (user.name, user.email); when
// the repository has none, aidex-ralph.
func commitAll(ctx context.Context, wt, msg string) (string, int, error) {
	if _, err := git(ctx, wt, "add", "-A"); err != nil {
		return "", 0, err
	}
	changed := 0
	if stat, err := git(ctx, wt, "diff", "--cached", "--numstat"); err == nil {
		changed = countLines(stat)
	}
	args := []string{"-c", "gc.auto=0", "commit", "--allow-empty", "--no-verify", "-q", "-F", "-"}
	if name, _ := git(ctx, wt, "config", "user.email"); name == "" {
		args = append([]string{"-c", "user.name=aidex ralph", "-c", "user.email=ralph@aidex.invalid"}, args...)
	}
	env, err := gitEnviron(ctx, wt)
	if err != nil {
		return "", 0, err
	}
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", wt}, args...)...)
	cmd.Env = env
	cmd.Stdin = strings.NewReader(msg)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", 0, fmt.Errorf("git commit: %w: %s", err, strings.TrimSpace(string(out)))
	}
	h, err := git(ctx, wt, "rev-parse", "HEAD")
	return h, changed, err
}

func countLines(numstat string) int {
	n := 0
	for _, l := range strings.Split(numstat, "\n") {
		f := strings.Fields(l)
		if len(f) < 2 {
			continue
		}
		a, _ := strconv.Atoi(f[0])
		d, _ := strconv.Atoi(f[1])
		n += a + d
	}
	return n
}

// AllowRemote reports whether remote matches one of the patterns
// (path.Match globs over the whole URL, e.g. "https://github.com/acme/*").
// A local path or file:// remote must match too.
func AllowRemote(remote string, patterns []string) bool {
	for _, p := range patterns {
		if ok, err := path.Match(p, remote); err == nil && ok {
			return true
		}
		if p == remote {
			return true
		}
	}
	return false
}

// checkRemoteURL refuses remotes git would treat as options or helpers.
func checkRemoteURL(remote string) error {
	if strings.HasPrefix(remote, "-") {
		return errors.New("remote starts with '-'")
	}
	if i := strings.Index(remote, "::"); i > 0 && !strings.Contains(remote[:i], "/") {
		return fmt.Errorf("remote helper syntax %q is not allowed", remote[:i+2])
	}
	return nil
}
