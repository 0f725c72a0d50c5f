//go:build unix

package proc

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSecretEnvName(t *testing.T) {
	for name, secret := range map[string]bool{
		"OPENAI_API_KEY": true, "openai_api_key": true, "ANTHROPIC_AUTH_TOKEN": true, "GITHUB_TOKEN": true,
		"GH_TOKEN": true, "NPM_TOKEN": true, "AWS_SECRET_ACCESS_KEY": true, "AWS_ACCESS_KEY_ID": true,
		"AWS_SESSION_TOKEN": true, "DB_PASSWORD": true, "MYAPIKEY": true, "STRIPE_SECRET": true,
		"GOOGLE_APPLICATION_CREDENTIALS": true, "HF_TOKEN": true, "GITLAB_PAT": true, "NPM_CONFIG__AUTH": true,
		"GEMINI_MODEL": true, "OPENAI_BASE_URL": true,
		"PATH": false, "HOME": false, "LANG": false, "TERM": false, "AWS_REGION": false, "SSH_AUTH_SOCK": false,
		"GOPATH": false, "DBUS_SESSION_BUS_ADDRESS": false, "XDG_SESSION_TYPE": false, "EDITOR": false,
		"KEYBOARD_LAYOUT": false, "OAUTH_CALLBACK_PORT": false, "PATHEXT": false,
	} {
		require.Equal(t, secret, SecretEnvName(name), name)
	}
	env := ChildEnviron([]string{"PATH=/bin", "SSH_AUTH_SOCK=/tmp/s", "X=ghp_abcdefghijklmnopqrst", "broken"}, nil, EnvPolicy{})
	require.Equal(t, []string{"PATH=/bin", "SSH_AUTH_SOCK=/tmp/s", "NO_COLOR=1", "GIT_TERMINAL_PROMPT=0", "PAGER=cat", "GIT_PAGER=cat"}, env[:6])
}

func TestHeadTail(t *testing.T) {
	cases := []struct {
		name   string
		max    int
		writes []string
		want   string
		cut    bool
	}{
		{"fits", 10, []string{"abc", "def"}, "abcdef", false},
		{"exactly", 6, []string{"abc", "def"}, "abcdef", false},
		{"one big write", 4, []string{"abcdefgh"}, "ab\n[... 4 characters cut ...]\ngh", true},
		{"many small writes", 4, []string{"a", "b", "c", "d", "e", "f", "g", "h"}, "ab\n[... 4 characters cut ...]\ngh", true},
		{"runes at the seams", 4, []string{"aé", "xyz", "éb"}, "a\n[... 5 characters cut ...]\nb", true},
		{"invalid utf8", 10, []string{"a\xffb"}, "a\uFFFDb", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := NewHeadTail(tc.max)
			for _, s := range tc.writes {
				n, err := w.Write([]byte(s))
				require.NoError(t, err)
				require.Equal(t, len(s), n)
			}
			got, cut := w.String()
			require.Equal(t, tc.want, got)
			require.Equal(t, tc.cut, cut)
		})
	}
}

func FuzzHeadTail(f *testing.F) {
	f.Add([]byte("hello world"), uint8(4), uint8(3))
	f.Add([]byte("é€😀abc"), uint8(3), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, maxChars, chunk uint8) {
		limit := int(maxChars)%64 + 2
		step := int(chunk)%7 + 1
		w := NewHeadTail(limit)
		for i := 0; i < len(data); i += step {
			_, _ = w.Write(data[i:min(i+step, len(data))])
		}
		got, cut := w.String()
		require.Equal(t, len(data) > limit, cut)
		if !cut {
			require.Equal(t, strings.ToValidUTF8(string(data), "\uFFFD"), got)
			return
		}
		require.Contains(t, got, "characters cut ...]")
		require.LessOrEqual(t, len(got), limit*3+64)
	})
}

func FuzzSecretEnvName(f *testing.F) {
	for _, s := range []string{"OPENAI_API_KEY", "PATH", "a_token", "", "_", "KEY_"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if strings.ContainsFunc(name, func(r rune) bool { return r > 0x7f }) {
			t.Skip("environment variable names are ASCII")
		}
		got := SecretEnvName(name)
		require.Equal(t, got, SecretEnvName(strings.ToLower(name)), "case must not matter")
		if strings.HasSuffix(strings.ToUpper(name), "_API_KEY") || strings.HasSuffix(strings.ToUpper(name), "_TOKEN") {
			require.True(t, got, name)
		}
	})
}
