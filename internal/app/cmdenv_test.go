//go:build unix

package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/app/toolcall"
)

// Credentials never reach a command's environment unless allowed by name:
// the variable named by a provider's api_key_env (whatever it is called),
// the catalog's key variables, DATABASE_URL, URLs with userinfo and
// *_TOKEN names; command_env_allow passes a name through.
func TestCommandEnvScrubsConfiguredKeys(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, "c"), "XDG_STATE_HOME": filepath.Join(home, "s"),
		"XDG_DATA_HOME": filepath.Join(home, "d"), "XDG_CACHE_HOME": filepath.Join(home, "k")}
	cfgFile := filepath.Join(home, "c", "aidex", "config.toml")
	if err := os.MkdirAll(filepath.Dir(cfgFile), 0o700); err != nil {
		t.Fatal(err)
	}
	conf := "command_env_allow = [\"ALLOWED_TOKEN\"]\n" +
		"[providers.corp]\ntype = \"openai\"\nbase_url = \"http://127.0.0.1:1/v1\"\napi_key_env = \"CORPLLM\"\n"
	if err := os.WriteFile(cfgFile, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{
		"CORPLLM": "corp-secret-value", "OPENROUTER_API_KEY": "or-secret-value", "DATABASE_URL": "postgres://u:db-secret@h/x",
		"HTTPS_PROXY": "http://u:proxy-secret@p:3128", "SOME_TOKEN": "token-secret-value", "ALLOWED_TOKEN": "allowed-value",
		"HARMLESS": "harmless-value",
	} {
		t.Setenv(k, v)
	}
	rt, err := LoadBase(Options{Workspace: ws, Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	out, err := rt.CallTool(context.Background(), "run_command", json.RawMessage(`{"command":"env"}`), toolcall.Options{UserAction: true})
	if err != nil {
		t.Fatal(err)
	}
	got := out.Result.Output
	for _, want := range []string{"ALLOWED_TOKEN=allowed-value", "HARMLESS=harmless-value"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %s in\n%s", want, got)
		}
	}
	for _, secret := range []string{"corp-secret", "or-secret", "db-secret", "proxy-secret", "token-secret"} {
		if strings.Contains(got, secret) {
			t.Errorf("%s reached the command:\n%s", secret, got)
		}
	}
	shell := rt.CommandEnviron()
	for _, kv := range shell {
		if strings.Contains(kv, "corp-secret") {
			t.Errorf("the user's !command gets %s", kv)
		}
	}
}

// loadWithConfig loads a runtime whose global config is conf, in a new
// home and workspace.
func loadWithConfig(t *testing.T, conf string) *Runtime {
	t.Helper()
	home, ws := t.TempDir(), t.TempDir()
	env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, "c"), "XDG_STATE_HOME": filepath.Join(home, "s"),
		"XDG_DATA_HOME": filepath.Join(home, "d"), "XDG_CACHE_HOME": filepath.Join(home, "k")}
	cfgFile := filepath.Join(home, "c", "aidex", "config.toml")
	if err := os.MkdirAll(filepath.Dir(cfgFile), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfgFile, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	rt, err := LoadBase(Options{Workspace: ws, Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	return rt
}

// Two runtimes in one process scrub by their own configuration: the
// credential scrubbing is the runtime's, not process-wide state. Loading
// the second runtime does not change what the first one's commands get.
func TestTwoRuntimesScrubDifferently(t *testing.T) {
	t.Setenv("CORPLLM", "corp-secret-value")
	t.Setenv("TEAM_TOKEN", "team-token-value")
	corp := loadWithConfig(t, "[providers.corp]\ntype = \"openai\"\nbase_url = \"http://127.0.0.1:1/v1\"\napi_key_env = \"CORPLLM\"\n")
	open := loadWithConfig(t, "command_env_allow = [\"TEAM_TOKEN\"]\n")

	run := func(rt *Runtime) string {
		t.Helper()
		out, err := rt.CallTool(context.Background(), "run_command", json.RawMessage(`{"command":"env"}`), toolcall.Options{UserAction: true})
		if err != nil || !out.Result.OK {
			t.Fatalf("env: %v %s", err, out.Result.Error)
		}
		return out.Result.Output
	}
	for _, c := range []struct {
		rt           *Runtime
		name         string
		hidden, seen []string
	}{
		{corp, "corp", []string{"corp-secret-value", "team-token-value"}, nil},
		{open, "open", nil, []string{"corp-secret-value", "team-token-value"}},
	} {
		got, shell := run(c.rt), strings.Join(c.rt.CommandEnviron(), "\n")
		for _, s := range c.hidden {
			if strings.Contains(got, s) || strings.Contains(shell, s) {
				t.Errorf("%s: %s reached a command", c.name, s)
			}
		}
		for _, s := range c.seen {
			if !strings.Contains(got, s) || !strings.Contains(shell, s) {
				t.Errorf("%s: %s was scrubbed, but this runtime's configuration does not name it", c.name, s)
			}
		}
	}
}
