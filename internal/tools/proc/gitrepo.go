package proc

import (
	"context"
	"errors"
	"fmt"

	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/zelvior/aidex/internal/gitdir"
)

// repoGitRegexp selects, for git's own --get-regexp, the sections of
// the program settings of gitdir.ProgramKeys (a superset: names are
// checked again with gitdir.LookupProgramKey).
var repoGitRegexp = sync.OnceValue(func() string {
	return `^(` + strings.Join(gitdir.ProgramSections(), "|") + `)\.`
})

// trustedGitScopes are the config scopes that are the user's own: the
// global config (~/.gitconfig and what it includes) and the command
// scope, which holds only aidex's own settings (the caller's
// GIT_CONFIG_COUNT entries are replaced in every child environment).
var trustedGitScopes = [...]string{"global", "command"}

// ErrGitConfig is wrapped when the repository's git config cannot be
// read or holds a program setting that cannot be neutralised.
var ErrGitConfig = errors.New("git config cannot be neutralised")

// GitDisabledDir is the GIT_DIR a child gets when the repository's config
// could not be neutralised: every git command then fails with a message
// that names it, instead of running what the config says.
const GitDisabledDir = "/dev/null/aidex-disabled-git-because-the-repository-config-could-not-be-checked"

// RepoGitEnviron returns environ (a child environment from ChildEnviron)
// with the program settings that the repository git finds from dir sets
// in its own config files (the local and worktree config and what they
// include; the user's global config is trusted) neutralised: each such
// key gets a harmless value (neutralGitValue), then again the user's own
// global values of it, as GIT_CONFIG_COUNT entries. So a `git diff` that
// the policy lets a command run as read-only cannot start a textconv,
// external diff, filter, alias, ssh or editor program a cloned repository
// planted. Without git on PATH it returns environ unchanged. When the
// config cannot be read, or sets a key no value can cancel, it returns an
// error wrapping ErrGitConfig (callers fail closed: refuse, or run with
// GIT_DIR=GitDisabledDir). When the files git would read are known for
// certain and plain enough to read without git, and the repository's
// own config sets no program, it gives the same answer without starting
// git (quickRepoGitEnviron, Linux only).
func RepoGitEnviron(ctx context.Context, dir string, environ []string) ([]string, error) {
	bin, err := exec.LookPath("git")
	if err != nil {
		return environ, nil
	}
	if env, ok := quickRepoGitEnviron(bin, dir, environ); ok {
		return env, nil
	}
	return askGit(ctx, bin, dir, environ)
}

// askGit is RepoGitEnviron by `git config --get-regexp`.
func askGit(ctx context.Context, bin, dir string, environ []string) ([]string, error) {
	argv := []string{bin, "--no-pager", "config", "--show-scope", "--null", "--get-regexp", repoGitRegexp()}
	o := Run(ctx, Spec{Argv: argv, Dir: dir, Env: environ, Timeout: 10 * time.Second, MaxChars: 1 << 20})
	if !o.Ran || o.TimedOut || o.Cancelled || o.Err != nil || o.Truncated || (o.ExitCode != 0 && o.ExitCode != 1) {
		return nil, fmt.Errorf("%w: git config failed: %s", ErrGitConfig, strings.TrimSpace(o.Output))
	}
	kv, err := repoOverrides(o.Output)
	if err != nil {
		return nil, err
	}
	return AppendGitConfig(environ, kv...), nil
}

// repoOverrides turns `git config --show-scope --null --get-regexp`
// output (records "SCOPE\0NAME\nVALUE\0", or "SCOPE\0NAME\0" for a key
// without a value) into the overrides: for each program key set in an
// untrusted scope, its neutral value and then its trusted values in order.
func repoOverrides(out string) ([][2]string, error) {
	var order []string
	untrusted := map[string]bool{}
	neutral := map[string]string{}
	trusted := map[string][]string{}
	fields := strings.Split(out, "\x00")
	for i := 0; i+1 < len(fields); i += 2 {
		scope := fields[i]
		name, value, _ := strings.Cut(fields[i+1], "\n")
		key, ok := gitdir.LookupProgramKey(name)
		if !ok {
			continue
		}
		if isTrustedScope(scope) {
			trusted[name] = append(trusted[name], value)
			continue
		}
		for _, u := range gitdir.Unneutralisable {
			if name == u {
				return nil, fmt.Errorf("%w: the repository sets %s, which aidex cannot switch off; remove it from the repository's config", ErrGitConfig, name)
			}
		}
		if !untrusted[name] {
			untrusted[name] = true
			neutral[name] = key.Neutral
			order = append(order, name)
		}
	}
	var kv [][2]string
	for _, name := range order {
		kv = append(kv, [2]string{name, neutral[name]})
		if drv, ok := strings.CutPrefix(name, "filter."); ok {
			kv = append(kv, [2]string{"filter." + drv[:strings.LastIndexByte(drv, '.')] + ".required", "false"})
		}
		for _, v := range trusted[name] {
			kv = append(kv, [2]string{name, v})
		}
	}
	return kv, nil
}

func isTrustedScope(s string) bool {
	for _, t := range trustedGitScopes {
		if s == t {
			return true
		}
	}
	return false
}
