package proc

import (
	"strconv"
	"strings"

	"github.com/zelvior/aidex/internal/gitdir"
)

// The git configuration set in every child environment is
// gitdir.AlwaysConfig()
// (GIT_CONFIG_COUNT, the "command" scope, which beats every config file),
// so that no git a process starts runs a program the repository or the
// workspace configures, whatever the command: no pager, no fsmonitor
// daemon, no hooks (post-index-change runs on a plain `git status`,
// reference-transaction on ref updates), no signature program for
// `git log`, no implicit bare repository (a directory holding HEAD,
// objects/, refs/ and a config with programs, written as plain files: git
// then needs --git-dir or GIT_DIR) and no ext:: transport (a command as a
// remote URL). Keys git cannot neutralise this way because their value
// has no harmless setting (diff.external) or because their name comes
// from the repository (diff.<driver>.textconv, filter.<driver>.clean) are
// neutralised per repository by RepoGitEnviron.

// gitNeutralVars are set in every child environment: no system-wide git
// config or attributes (GIT_CONFIG_NOSYSTEM, GIT_ATTR_NOSYSTEM), and no
// opportunistic index refresh by `git status` (GIT_OPTIONAL_LOCKS=0), so
// a read-only git command writes nothing.
var gitNeutralVars = [...]string{"GIT_CONFIG_NOSYSTEM=1", "GIT_ATTR_NOSYSTEM=1", "GIT_OPTIONAL_LOCKS=0"}

// gitEnvReplaced are variables removed from a child environment before
// the neutral git settings are added: a caller's own config parameters
// (applied after GIT_CONFIG_COUNT, so they would win), its external diff
// program, and the variables set here.
var gitEnvReplaced = [...]string{"GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_EXTERNAL_DIFF", "GIT_CONFIG_NOSYSTEM",
	"GIT_ATTR_NOSYSTEM", "GIT_OPTIONAL_LOCKS"}

// withGitNeutralised returns env without the variables of
// gitEnvReplaced and GIT_CONFIG_KEY_n/GIT_CONFIG_VALUE_n, plus
// gitNeutralVars and gitdir.AlwaysConfig() as GIT_CONFIG_COUNT entries.
func withGitNeutralised(env []string) []string {
	neutral := gitdir.AlwaysConfig()
	out := make([]string, 0, len(env)+2*len(neutral)+len(gitNeutralVars)+1)
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if isGitConfigVar(name) {
			continue
		}
		out = append(out, kv)
	}
	out = append(out, gitNeutralVars[:]...)
	return AppendGitConfig(out, neutral...)
}

// isGitConfigVar reports the variables withGitNeutralised replaces.
func isGitConfigVar(name string) bool {
	u := strings.ToUpper(name)
	if strings.HasPrefix(u, "GIT_CONFIG_KEY_") || strings.HasPrefix(u, "GIT_CONFIG_VALUE_") {
		return true
	}
	for _, r := range gitEnvReplaced {
		if sameEnvName(r, name) {
			return true
		}
	}
	return false
}

// AppendGitConfig returns env with the key/value pairs kv added as
// GIT_CONFIG_KEY_n/GIT_CONFIG_VALUE_n after the entries env already
// counts, and GIT_CONFIG_COUNT updated (git applies them in order, the
// last value of a key winning).
func AppendGitConfig(env []string, kv ...[2]string) []string {
	if len(kv) == 0 {
		return env
	}
	n, _ := strconv.Atoi(EnvValue(env, "GIT_CONFIG_COUNT"))
	out := make([]string, 0, len(env)+2*len(kv)+1)
	for _, e := range env {
		if name, _, _ := strings.Cut(e, "="); !sameEnvName(name, "GIT_CONFIG_COUNT") {
			out = append(out, e)
		}
	}
	for i, p := range kv {
		idx := strconv.Itoa(n + i)
		out = append(out, "GIT_CONFIG_KEY_"+idx+"="+p[0], "GIT_CONFIG_VALUE_"+idx+"="+p[1])
	}
	return append(out, "GIT_CONFIG_COUNT="+strconv.Itoa(n+len(kv)))
}
