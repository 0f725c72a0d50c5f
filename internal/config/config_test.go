package config

import (
	"errors"
	"fmt"
	"github.com/zelvior/aidex/internal/trust"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// testEnv is an isolated home, XDG directories and workspace under t.TempDir().
type testEnv struct {
	home, ws string
	vars     map[string]string
	paths    Paths
}

func newEnv(t testing.TB) *testEnv {
	t.Helper()
	home := t.TempDir()
	ws := filepath.Join(t.TempDir(), "repo")
	require.NoError(t, os.MkdirAll(ws, 0o755))
	ws, err := filepath.EvalSymlinks(ws)
	require.NoError(t, err)
	e := &testEnv{home: home, ws: ws, vars: map[string]string{
		"HOME":            home,
		"XDG_CONFIG_HOME": filepath.Join(home, "cfg"),
		"XDG_STATE_HOME":  filepath.Join(home, "state"),
		"XDG_DATA_HOME":   filepath.Join(home, "data"),
		"XDG_CACHE_HOME":  filepath.Join(home, "cache"),
	}}
	e.paths, err = ResolvePaths(e.env)
	require.NoError(t, err)
	return e
}

func (e *testEnv) env(k string) string { return e.vars[k] }

func (e *testEnv) global() string  { return e.paths.ConfigFile }
func (e *testEnv) project() string { return ProjectConfigFile(e.ws) }

// trust trusts the workspace and approves its config files' current items
// of content, as `aidex trust` does.
func (e *testEnv) trust(t testing.TB, known ...string) {
	t.Helper()
	require.NoError(t, e.paths.Trust(e.ws))
	cfg, _, err := e.load(nil, known...)
	require.NoError(t, err)
	require.NoError(t, trust.OpenStore(e.paths.StateDir).Replace(e.ws, cfg.ContentItems))
}

func (e *testEnv) load(flags map[string]string, known ...string) (*Config, []Warning, error) {
	return Load(LoadOptions{Getenv: e.env, Workspace: e.ws, Flags: flags, KnownProviders: known, WireFormats: testFormats()})
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o700))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
}

func warningsText(ws []Warning) string {
	var b strings.Builder
	for _, w := range ws {
		b.WriteString(w.String() + "\n")
	}
	return b.String()
}

func TestDefaults(t *testing.T) {
	e := newEnv(t)
	cfg, ws, err := e.load(nil)
	require.NoError(t, err)
	require.Empty(t, ws)
	require.True(t, cfg.Stream)
	require.Equal(t, 0, cfg.MaxTokens)
	require.Nil(t, cfg.Temperature)
	require.Equal(t, 300, cfg.RequestTimeout)
	require.Equal(t, 90, cfg.StreamIdleTimeout)
	require.Equal(t, 3, cfg.MaxRetries)
	require.Equal(t, 25, cfg.MaxToolTurns)
	require.True(t, cfg.SafeMode)
	require.False(t, cfg.WebAllowShellTools)
	require.Equal(t, 0.85, cfg.CompactionThreshold)
	require.Equal(t, 5, cfg.MaxBackgroundProcesses)
	require.False(t, cfg.WebFetchAllowPrivate)
	require.Equal(t, "ask", cfg.PermissionMode)
	require.Equal(t, "auto", cfg.Notify)
	require.True(t, cfg.Confine)
	require.Equal(t, "standard", cfg.Tools.Profile)
	require.Equal(t, e.ws, cfg.Workspace)
	require.Equal(t, SourceDefault, cfg.Sources["max_tool_turns"])
	require.Equal(t, e.project(), cfg.ProjectFile)
	require.False(t, cfg.ProjectTrusted)
	require.Equal(t, 300*1e9, float64(cfg.RequestTimeoutDuration()))
}

func TestLoadNeedsGetenv(t *testing.T) {
	_, _, err := Load(LoadOptions{})
	require.ErrorContains(t, err, "Getenv is nil")
}

func TestPrecedence(t *testing.T) {
	tests := []struct {
		name       string
		global     string
		project    string
		env        map[string]string
		flags      map[string]string
		wantModel  string
		wantSource string // "G:n", "P:n" for file lines, or a Source constant
		wantTurns  int
	}{
		{name: "defaults", wantModel: "", wantSource: SourceDefault, wantTurns: 25},
		{name: "global", global: "# g\nmodel = \"g\"\nmax_tool_turns = 7\n", wantModel: "g", wantSource: "G:2", wantTurns: 7},
		{name: "project over global", global: "model = \"g\"\nmax_tool_turns = 7\n", project: "\n\nmodel = \"p\"\n",
			wantModel: "p", wantSource: "P:3", wantTurns: 7},
		{name: "env over project", global: "model = \"g\"\n", project: "model = \"p\"\nmax_tool_turns = 9\n",
			env: map[string]string{"AIDEX_MODEL": "e", "AIDEX_MAX_TOOL_TURNS": "11"}, wantModel: "e", wantSource: SourceEnv, wantTurns: 11},
		{name: "flags over env", global: "model = \"g\"\n", project: "model = \"p\"\n",
			env:   map[string]string{"AIDEX_MODEL": "e", "AIDEX_MAX_TOOL_TURNS": "11"},
			flags: map[string]string{"model": "f", "max_tool_turns": "12"}, wantModel: "f", wantSource: SourceFlag, wantTurns: 12},
		{name: "empty env is unset", global: "model = \"g\"\n", env: map[string]string{"AIDEX_MODEL": ""}, wantModel: "g", wantSource: "G:1", wantTurns: 25},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			if tt.global != "" {
				writeFile(t, e.global(), tt.global)
			}
			if tt.project != "" {
				writeFile(t, e.project(), tt.project)
			}
			for k, v := range tt.env {
				e.vars[k] = v
			}
			cfg, _, err := e.load(tt.flags)
			require.NoError(t, err)
			require.Equal(t, tt.wantModel, cfg.Model)
			require.Equal(t, tt.wantTurns, cfg.MaxToolTurns)
			want := tt.wantSource
			want = strings.Replace(want, "G:", e.global()+":", 1)
			want = strings.Replace(want, "P:", e.project()+":", 1)
			require.Equal(t, want, cfg.Sources["model"])
		})
	}
}

func TestTypedValues(t *testing.T) {
	e := newEnv(t)
	writeFile(t, e.global(), `
temperature = 1
compaction_threshold = 0.5
stream = false
reasoning_effort = "high"
allowed_dirs = ["~/src", "rel"]
system_prompt_file = "prompt.md"
[tools]
profile = "readonly"
disabled = ["web_fetch"]
[providers.local]
type = "openai"
base_url = "http://127.0.0.1:8080/v1"
models = ["m1", "m2"]
`)
	e.vars["AIDEX_TOOLS_ENABLED"] = "a, b"
	e.vars["AIDEX_COMMAND_ENV_ALLOW"] = "FOO_TOKEN, DATABASE_URL"
	cfg, _, err := e.load(map[string]string{"temperature": "0.2", "stream": "yes"})
	require.NoError(t, err)
	require.NotNil(t, cfg.Temperature)
	require.Equal(t, 0.2, *cfg.Temperature)
	require.Equal(t, 0.5, cfg.CompactionThreshold)
	require.True(t, cfg.Stream)
	require.Equal(t, "high", cfg.ReasoningEffort)
	require.Equal(t, []string{filepath.Join(e.home, "src"), filepath.Join(e.paths.ConfigDir, "rel")}, cfg.AllowedDirs)
	require.Equal(t, filepath.Join(e.paths.ConfigDir, "prompt.md"), cfg.SystemPromptFile)
	require.Equal(t, Tools{Profile: "readonly", Enabled: []string{"a", "b"}, Disabled: []string{"web_fetch"}}, cfg.Tools)
	require.Equal(t, ProviderConfig{Type: "openai", BaseURL: "http://127.0.0.1:8080/v1", Models: []string{"m1", "m2"}}, cfg.Providers["local"])
	require.Equal(t, e.global()+":13", cfg.Sources["providers.local.base_url"])
	require.Equal(t, []string{"FOO_TOKEN", "DATABASE_URL"}, cfg.CommandEnvAllow)
}

func TestStrictErrors(t *testing.T) {
	tests := []struct {
		name    string
		content string
		line    int
		want    string
	}{
		{"unknown key with suggestion", "# c\n\n\n\n\nprovider = \"x\"\nmodle = \"gpt\"\n", 7, `unknown key "modle" (did you mean "model"?)`},
		{"unknown key without suggestion", "zzzzzzzz = 1\n", 1, `unknown key "zzzzzzzz"`},
		{"unknown table key", "[tools]\nprofle = \"full\"\n", 2, `unknown key "tools.profle" (did you mean "tools.profile"?)`},
		{"unknown provider key", "[providers.openai]\nbase_ur = \"http://x\"\n", 2, `unknown key "providers.openai.base_ur" (did you mean "providers.openai.base_url"?)`},
		{"unknown table", "[permisions]\nallow = []\n", 1, `unknown key "permisions" (did you mean "permissions"?)`},
		{"string for int", "\nmax_tool_turns = \"25\"\n", 2, `max_tool_turns must be an integer, not a string ("25")`},
		{"float for int", "max_retries = 2.5\n", 1, "max_retries must be an integer"},
		{"int for bool", "stream = 1\n", 1, "stream must be a boolean"},
		{"array of ints", "allowed_dirs = [1]\n", 1, "allowed_dirs must be an array of strings"},
		{"table for scalar", "[model]\nx = 1\n", 1, `model must be a string, not a table`},
		{"scalar for table", "tools = 5\n", 1, `"tools" must be a table`},
		{"bad enum", "\n\nreasoning_effort = \"extreme\"\n", 3, "reasoning_effort must be one of minimal, low, medium, high"},
		{"bad permission mode", "permission_mode = \"god\"\n", 1, "permission_mode must be one of plan, ask, auto-edit, yolo"},
		{"bad notify", "notify = \"loud\"\n", 1, "notify must be one of auto, bell, osc, off, not \"loud\""},
		{"threshold zero", "compaction_threshold = 0\n", 1, "compaction_threshold must be in (0, 1]"},
		{"threshold above one", "compaction_threshold = 1.5\n", 1, "compaction_threshold must be in (0, 1]"},
		{"temperature range", "temperature = 3\n", 1, "temperature must be between 0 and 2"},
		{"timeout zero", "request_timeout = 0\n", 1, "request_timeout must be at least 1"},
		{"background processes zero", "max_background_processes = 0\n", 1, "max_background_processes must be between 1 and 20, not 0"},
		{"background processes above 20", "max_background_processes = 21\n", 1, "max_background_processes must be between 1 and 20, not 21"},
		{"bad provider type", "[providers.x]\ntype = \"soap\"\n", 2, "providers.x.type must be one of openai"},
		{"bad base url", "[providers.x]\ntype = \"openai\"\nbase_url = \"ftp://h\"\n", 3, "must be an http:// or https:// URL"},
		{"bad api_key_env", "[providers.openai]\napi_key_env = \"MY-KEY\"\n", 2, "must be an environment variable name"},
		{"bad command_env_allow", "command_env_allow = [\"FOO_TOKEN\", \"A=B\"]\n", 1, "command_env_allow must hold environment variable names"},
		{"bad rule", "[permissions]\ndeny = [\"run_command(rm\"]\n", 2, "missing closing parenthesis"},
		{"inline table key", "tools = { profile = \"x\" }\n", 1, "tools.profile must be one of standard, full, readonly"},
		{"syntax error", "model = \"a\"\nstream = \n", 2, "at start of value"},
		{"duplicate key", "model = \"a\"\nmodel = \"b\"\n", 2, "model"},
		{"date", "model = 1979-05-27\n", 1, "model must be a string, not a date or time"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			writeFile(t, e.global(), tt.content)
			_, _, err := e.load(nil)
			require.Error(t, err)
			var fe *FileError
			require.True(t, errors.As(err, &fe), "want a *FileError, got %T: %v", err, err)
			require.Equal(t, e.global(), fe.File)
			require.Equal(t, tt.line, fe.Line, err.Error())
			require.Contains(t, err.Error(), fmt.Sprintf("%s:%d: ", e.global(), tt.line))
			require.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestErrorMessageExample(t *testing.T) {
	e := newEnv(t)
	writeFile(t, e.global(), strings.Repeat("\n", 6)+"modle = \"x\"\n")
	_, _, err := e.load(nil)
	require.EqualError(t, err, e.global()+`:7: unknown key "modle" (did you mean "model"?)`)
}

func TestSeveralErrorsAllReported(t *testing.T) {
	e := newEnv(t)
	writeFile(t, e.global(), "modle = 1\nstream = \"x\"\n")
	writeFile(t, e.project(), "max_tool_turns = 0\n")
	_, _, err := e.load(nil)
	require.Error(t, err)
	msg := err.Error()
	require.Contains(t, msg, e.global()+":1:")
	require.Contains(t, msg, e.global()+":2:")
	require.Contains(t, msg, e.project()+":1:")
}

func TestEnvAndFlagErrors(t *testing.T) {
	tests := []struct {
		name  string
		env   map[string]string
		flags map[string]string
		want  string
	}{
		{"env bad int", map[string]string{"AIDEX_MAX_TOOL_TURNS": "many"}, nil, `env AIDEX_MAX_TOOL_TURNS: max_tool_turns must be an integer, not "many"`},
		{"env bad enum", map[string]string{"AIDEX_PERMISSION_MODE": "root"}, nil, "env AIDEX_PERMISSION_MODE: permission_mode must be one of"},
		{"flag unknown", nil, map[string]string{"modle": "x"}, `flag modle: unknown key "modle" (did you mean "model"?)`},
		{"flag bad bool", nil, map[string]string{"stream": "maybe"}, "flag stream: stream must be a boolean"},
		{"flag table", nil, map[string]string{"tools": "x"}, `"tools" is a table`},
		{"flag bad key syntax", nil, map[string]string{"a..b": "x"}, "invalid key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			for k, v := range tt.env {
				e.vars[k] = v
			}
			_, _, err := e.load(tt.flags)
			require.ErrorContains(t, err, tt.want)
		})
	}
}

func TestNewProviderNeedsTypeAndURL(t *testing.T) {
	e := newEnv(t)
	writeFile(t, e.global(), "[providers.mine]\nmodels = [\"a\"]\n[providers.openai]\nmodels = [\"b\"]\n")
	_, _, err := e.load(nil, "openai")
	require.ErrorContains(t, err, e.global()+`:1: provider "mine" is not in the catalog, so it needs type and base_url`)
	require.NotContains(t, err.Error(), `"openai"`)

	writeFile(t, e.global(), "[providers.local]\ntype = \"ollama\"\n")
	cfg, _, err := e.load(nil)
	require.NoError(t, err)
	require.Equal(t, "ollama", cfg.Providers["local"].Type)
}

func TestRulesAccumulateWithSources(t *testing.T) {
	e := newEnv(t)
	writeFile(t, e.global(), "[permissions]\nallow = [\"run_command(go test *)\"]\ndeny = [\"run_command(rm *)\"]\n")
	writeFile(t, e.project(), "# project\n[permissions]\nallow = [\"write_file\"]\nask = [\"web_fetch\"]\n")
	e.trust(t)
	e.vars["AIDEX_PERMISSIONS_DENY"] = "run_command(git push, --force), delete_file"
	cfg, _, err := e.load(map[string]string{"permissions.allow": `["read_file(*.go)"]`})
	require.NoError(t, err)
	require.Equal(t, []Rule{
		{Text: "run_command(go test *)", Source: e.global() + ":2"},
		{Text: "write_file", Source: e.project() + ":3"},
		{Text: "read_file(*.go)", Source: SourceFlag},
	}, cfg.Permissions.Allow)
	require.Equal(t, []Rule{
		{Text: "run_command(rm *)", Source: e.global() + ":3"},
		{Text: "run_command(git push, --force)", Source: SourceEnv},
		{Text: "delete_file", Source: SourceEnv},
	}, cfg.Permissions.Deny)
	require.Equal(t, []Rule{{Text: "web_fetch", Source: e.project() + ":4"}}, cfg.Permissions.Ask)
}

func TestParseRule(t *testing.T) {
	tests := []struct {
		rule, tool, pattern, err string
	}{
		{"read_file", "read_file", "", ""},
		{"run_command(go test *)", "run_command", "go test *", ""},
		{"mcp__github__create_issue", "mcp__github__create_issue", "", ""},
		{"run_command(echo (a))", "run_command", "echo (a)", ""},
		{"", "", "", "expected TOOL"},
		{"(x)", "", "", "expected TOOL"},
		{"run command", "", "", "may contain only"},
		{"run_command(", "", "", "missing closing"},
		{"run_command()", "", "", "empty pattern"},
	}
	for _, tt := range tests {
		tool, pattern, err := ParseRule(tt.rule)
		if tt.err != "" {
			require.ErrorContains(t, err, tt.err, tt.rule)
			continue
		}
		require.NoError(t, err, tt.rule)
		require.Equal(t, tt.tool, tool)
		require.Equal(t, tt.pattern, pattern)
	}
}

func TestKeys(t *testing.T) {
	keys := Keys()
	for _, want := range []string{"provider", "model", "max_tool_turns", "allowed_dirs", "permissions.allow",
		"tools.profile", "providers.*.base_url", "providers.*.api_key_env", "providers.*.models"} {
		require.Contains(t, keys, want)
	}
	require.NotContains(t, keys, "Sources")
}

func BenchmarkLoad(b *testing.B) {
	e := newEnv(b)
	writeFile(b, e.global(), "model = \"m\"\n[permissions]\nallow = [\"read_file\"]\n[providers.groq]\napi_key = \"gsk-1234567890\"\n")
	writeFile(b, e.project(), "max_tool_turns = 10\n[permissions]\ndeny = [\"run_command(rm *)\"]\n")
	b.ResetTimer()
	for b.Loop() {
		if _, _, err := e.load(nil, "groq"); err != nil {
			b.Fatal(err)
		}
	}
}

// TestMaxBackgroundProcessesRange pins ayder-cli's range of
// max_background_processes: 1 to 20 load (default 5); the refusals are in
// TestFileErrors.
func TestMaxBackgroundProcessesRange(t *testing.T) {
	e := newEnv(t)
	cfg, _, err := e.load(nil)
	require.NoError(t, err)
	require.Equal(t, 5, cfg.MaxBackgroundProcesses)
	for _, n := range []int{1, 20} {
		writeFile(t, e.global(), fmt.Sprintf("max_background_processes = %d\n", n))
		cfg, _, err := e.load(nil)
		require.NoError(t, err)
		require.Equal(t, n, cfg.MaxBackgroundProcesses)
	}
	e.vars["AIDEX_MAX_BACKGROUND_PROCESSES"] = "50"
	_, _, err = e.load(nil)
	require.ErrorContains(t, err, "must be between 1 and 20, not 50")
}
