//go:build unix

package proc

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// gitConfigOf returns the GIT_CONFIG_COUNT entries of env as "key=value".
func gitConfigOf(t *testing.T, env []string) []string {
	t.Helper()
	var out []string
	n := EnvValue(env, "GIT_CONFIG_COUNT")
	for i := 0; ; i++ {
		k := EnvValue(env, "GIT_CONFIG_KEY_"+strconv.Itoa(i))
		if k == "" {
			require.Equal(t, strconv.Itoa(i), n, "GIT_CONFIG_COUNT")
			return out
		}
		out = append(out, k+"="+EnvValue(env, "GIT_CONFIG_VALUE_"+strconv.Itoa(i)))
	}
}

// TestChildEnvironNeutralisesGit is hole 3 of issue 22: every child
// environment switches off git's program settings, and a caller's own
// config parameters (which git would apply after them) are dropped.
func TestChildEnvironNeutralisesGit(t *testing.T) {
	env := ChildEnviron([]string{"PATH=/bin", "GIT_CONFIG_PARAMETERS='core.pager'='evil'", "GIT_CONFIG_COUNT=1",
		"GIT_CONFIG_KEY_0=core.fsmonitor", "GIT_CONFIG_VALUE_0=evil", "GIT_EXTERNAL_DIFF=evil", "GIT_CONFIG_NOSYSTEM=0"}, nil, EnvPolicy{})
	require.Equal(t, []string{"core.pager=cat", "core.fsmonitor=false", "core.hooksPath=" + os.DevNull,
		"safe.bareRepository=explicit", "log.showSignature=false", "protocol.ext.allow=never"}, gitConfigOf(t, env))
	for _, want := range []string{"GIT_CONFIG_NOSYSTEM=1", "GIT_ATTR_NOSYSTEM=1", "GIT_OPTIONAL_LOCKS=0", "GIT_PAGER=cat", "PAGER=cat"} {
		require.Contains(t, env, want)
	}
	joined := strings.Join(env, "\n")
	require.NotContains(t, joined, "evil")
	require.NotContains(t, joined, "GIT_CONFIG_NOSYSTEM=0")
	require.Equal(t, 1, strings.Count(joined, "GIT_CONFIG_COUNT="))
}

func TestRepoOverrides(t *testing.T) {
	rec := func(scope, name, value string) string { return scope + "\x00" + name + "\n" + value + "\x00" }
	out := rec("global", "core.sshcommand", "ssh -i k") + rec("local", "core.sshcommand", "evil") +
		rec("local", "diff.Evil.textconv", "evil") + rec("worktree", "filter.a.b.clean", "evil") +
		rec("local", "alias.lg", "!evil") + rec("global", "alias.st", "status") + rec("local", "core.bare", "false") +
		rec("local", "credential.helper", "evil") + rec("global", "credential.helper", "store") +
		"local\x00diff.x.command\x00"
	kv, err := repoOverrides(out)
	require.NoError(t, err)
	var got []string
	for _, p := range kv {
		got = append(got, p[0]+"="+p[1])
	}
	require.Equal(t, []string{"core.sshcommand=ssh", "core.sshcommand=ssh -i k", "diff.Evil.textconv=cat",
		"filter.a.b.clean=", "filter.a.b.required=false", "alias.lg=", "credential.helper=", "credential.helper=store",
		"diff.x.command="}, got)
	_, err = repoOverrides(rec("local", "core.gitproxy", "evil for example.com"))
	require.True(t, errors.Is(err, ErrGitConfig), "%v", err)
	kv, err = repoOverrides(rec("global", "core.gitproxy", "mine") + rec("global", "diff.x.textconv", "exif"))
	require.NoError(t, err)
	require.Empty(t, kv, "the user's own settings are kept")
}

func TestAppendGitConfig(t *testing.T) {
	env := AppendGitConfig([]string{"A=1", "GIT_CONFIG_COUNT=2"}, [2]string{"k", "v"})
	require.Equal(t, []string{"A=1", "GIT_CONFIG_KEY_2=k", "GIT_CONFIG_VALUE_2=v", "GIT_CONFIG_COUNT=3"}, env)
	require.Equal(t, []string{"A=1"}, AppendGitConfig([]string{"A=1"}))
}
