package config

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSet(t *testing.T) {
	const base = `# aidex config
model = "old"   # my favourite
stream = true

# permissions
[permissions]
allow = ["read_file"]

[tools]
# the profile
profile = "standard"
`
	tests := []struct {
		name, initial, key, value, want string
	}{
		{"replace in place keeps comment", base, "model", "new", `# aidex config
model = "new"   # my favourite
stream = true

# permissions
[permissions]
allow = ["read_file"]

[tools]
# the profile
profile = "standard"
`},
		{"new top-level key after the last one", base, "max_tool_turns", "40", `# aidex config
model = "old"   # my favourite
stream = true
max_tool_turns = 40

# permissions
[permissions]
allow = ["read_file"]

[tools]
# the profile
profile = "standard"
`},
		{"key in existing table", base, "tools.disabled", "web_fetch, web_search", `# aidex config
model = "old"   # my favourite
stream = true

# permissions
[permissions]
allow = ["read_file"]

[tools]
# the profile
profile = "standard"
disabled = ["web_fetch", "web_search"]
`},
		{"new table at the end", base, "providers.groq.api_key", "gsk_123", base + `
[providers.groq]
api_key = "gsk_123"
`},
		{"typed float", "", "temperature", "0.2", "temperature = 0.2\n"},
		{"typed bool", "stream = true\n", "stream", "false", "stream = false\n"},
		{"top-level before first table and its comments", "# header\n\n# tools\n[tools]\nprofile = \"full\"\n", "model", "m",
			"# header\n\nmodel = \"m\"\n\n# tools\n[tools]\nprofile = \"full\"\n"},
		{"no trailing newline", "model = \"a\"", "stream", "false", "model = \"a\"\nstream = false\n"},
		{"dotted keys in parent table", "[providers]\ngroq.type = \"openai\"\ngroq.base_url = \"https://g/v1\"\n", "providers.groq.api_key", "k",
			"[providers]\ngroq.type = \"openai\"\ngroq.base_url = \"https://g/v1\"\ngroq.api_key = \"k\"\n"},
		{"empty table header", "[tools]\n\n[permissions]\n", "tools.profile", "readonly", "[tools]\nprofile = \"readonly\"\n\n[permissions]\n"},
		{"quoted provider name", "", `providers."my.host".type`, "openai", "\n[providers.\"my.host\"]\ntype = \"openai\"\n"},
		{"string escaping", "", "verify_command", `go test "./..." \ 	x`, "verify_command = \"go test \\\"./...\\\" \\\\ \\tx\"\n"},
		{"crlf kept", "model = \"a\"\r\n[tools]\r\nprofile = \"full\"\r\n", "stream", "false", "model = \"a\"\r\nstream = false\r\n[tools]\r\nprofile = \"full\"\r\n"},
		{"multi-line array replaced", "allowed_dirs = [\n  \"/a\",\n]\n", "allowed_dirs", "/b", "allowed_dirs = [\"/b\"]\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "sub", "config.toml")
			if tt.initial != "" {
				writeFile(t, path, tt.initial)
			}
			require.NoError(t, Set(path, tt.key, tt.value, testFormats()...))
			got, err := os.ReadFile(path)
			require.NoError(t, err)
			if tt.want[0] == '\n' && tt.initial == "" {
				tt.want = tt.want[1:]
			}
			require.Equal(t, tt.want, string(got))
			info, err := os.Stat(path)
			require.NoError(t, err)
			require.Equal(t, os.FileMode(0o600), info.Mode().Perm())
		})
	}
}

func TestSetCreatesPrivateDirs(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new", "aidex")
	require.NoError(t, Set(filepath.Join(dir, "config.toml"), "model", "m"))
	info, err := os.Stat(dir)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o700), info.Mode().Perm())
}

func TestSetErrors(t *testing.T) {
	tests := []struct {
		name, initial, key, value, want string
	}{
		{"unknown key", "", "modle", "x", `unknown key "modle" (did you mean "model"?)`},
		{"unknown provider key", "", "providers.groq.apikey", "x", `did you mean "providers.groq.api_key"?`},
		{"bad int", "", "max_tool_turns", "lots", "max_tool_turns must be an integer"},
		{"bad enum", "", "permission_mode", "root", "must be one of plan, ask, auto-edit, yolo"},
		{"range", "", "compaction_threshold", "2", "must be in (0, 1]"},
		{"table", "", "permissions", "x", "is a table"},
		{"inline table", "tools = { profile = \"full\" }\n", "tools.disabled", "x", "tools is an inline table (line 1)"},
		{"broken file", "model = \n", "model", "x", "fix the file first"},
		{"invalid file stays invalid", "modle = 1\n", "model", "x", `unknown key "modle"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.toml")
			if tt.initial != "" {
				writeFile(t, path, tt.initial)
			}
			err := Set(path, tt.key, tt.value)
			require.ErrorContains(t, err, tt.want)
			got, _ := os.ReadFile(path)
			require.Equal(t, tt.initial, string(got), "file must be unchanged")
		})
	}
}

func TestAddRule(t *testing.T) {
	tests := []struct {
		name, initial, kind, rule, want string
	}{
		{"new file", "", "allow", "run_command(go test *)", "\n[permissions]\nallow = [\"run_command(go test *)\"]\n"},
		{"existing table", "model = \"m\"\n\n[permissions]\ndeny = [\"x\"]\n", "allow", "read_file",
			"model = \"m\"\n\n[permissions]\ndeny = [\"x\"]\nallow = [\"read_file\"]\n"},
		{"one-line array", "[permissions]\nallow = [\"a\"]  # keep\n", "allow", "b", "[permissions]\nallow = [\"a\", \"b\"]  # keep\n"},
		{"empty array", "[permissions]\nallow = []\n", "allow", "b", "[permissions]\nallow = [\"b\"]\n"},
		{"duplicate is a no-op", "[permissions]\nallow = [\"a\"]\n", "allow", "a", "[permissions]\nallow = [\"a\"]\n"},
		{"multi-line array with comments", "[permissions]\nallow = [\n    \"a\", # first\n    \"b\"  # second\n]\n", "allow", "c",
			"[permissions]\nallow = [\n    \"a\", # first\n    \"b\",  # second\n    \"c\",\n]\n"},
		{"multi-line array with trailing comma", "[permissions]\nask = [\n  \"a\",\n]\n", "ask", "b",
			"[permissions]\nask = [\n  \"a\",\n  \"b\",\n]\n"},
		{"inline permissions table", "permissions = { deny = [\"a\"] }\n", "deny", "b", "permissions = { deny = [\"a\", \"b\"] }\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := ProjectConfigFile(t.TempDir())
			if tt.initial != "" {
				writeFile(t, path, tt.initial)
			}
			require.NoError(t, AddRule(path, tt.kind, tt.rule))
			got, err := os.ReadFile(path)
			require.NoError(t, err)
			if tt.initial == "" {
				tt.want = tt.want[1:]
			}
			require.Equal(t, tt.want, string(got))
		})
	}
}

func TestAddRuleErrors(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.toml")
	require.ErrorContains(t, AddRule(path, "permit", "a"), "allow, deny or ask")
	require.ErrorContains(t, AddRule(path, "allow", "run_command("), "missing closing parenthesis")
	writeFile(t, path, "[permissions]\nallow = \"a\"\n")
	require.ErrorContains(t, AddRule(path, "allow", "b"), "not an array")
}

func TestAddRuleThenLoad(t *testing.T) {
	e := newEnv(t)
	e.trust(t)
	require.NoError(t, AddRule(e.project(), "allow", "run_command(make *)"))
	require.NoError(t, AddRule(e.project(), "allow", "write_file"))
	cfg, _, err := e.load(nil)
	require.NoError(t, err)
	require.Empty(t, cfg.Permissions.Allow, "allow rules added after trust wait for approval")
	require.Len(t, cfg.ContentItems, 2)
	e.trust(t)
	cfg, _, err = e.load(nil)
	require.NoError(t, err)
	require.Equal(t, []Rule{
		{Text: "run_command(make *)", Source: e.project() + ":2"},
		{Text: "write_file", Source: e.project() + ":2"},
	}, cfg.Permissions.Allow)
}

// A key written into an existing, world-readable config file makes it
// private (0600); other keys leave the mode alone; a file system that
// refuses gives ErrNotPrivate with the key written all the same.
func TestSetSecretMakesFilePrivate(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("modes are ACLs on Windows")
	}
	path := filepath.Join(t.TempDir(), "config.toml")
	require.NoError(t, os.WriteFile(path, []byte("model = \"m\"\n"), 0o644))
	require.NoError(t, os.Chmod(path, 0o644))
	mode := func() os.FileMode {
		fi, err := os.Stat(path)
		require.NoError(t, err)
		return fi.Mode().Perm()
	}
	require.NoError(t, Set(path, "max_tool_turns", "9"))
	require.Equal(t, os.FileMode(0o644), mode(), "a non-secret key keeps the mode")
	for _, key := range []string{"providers.groq.api_key", "image_api_key"} {
		require.NoError(t, os.Chmod(path, 0o644))
		require.NoError(t, Set(path, key, "gsk-secret-0000"))
		require.Equal(t, os.FileMode(0o600), mode(), key)
	}

	require.NoError(t, os.Chmod(path, 0o640))
	chmod = func(string, os.FileMode) error { return errors.New("operation not permitted") }
	t.Cleanup(func() { chmod = os.Chmod })
	err := Set(path, "providers.openai.api_key", "sk-secret-1111")
	require.ErrorIs(t, err, ErrNotPrivate)
	require.ErrorContains(t, err, "chmod 600 "+path)
	data, rerr := os.ReadFile(path)
	require.NoError(t, rerr)
	require.Contains(t, string(data), "sk-secret-1111", "the key is written all the same")
}
