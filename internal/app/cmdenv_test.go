//go:build unix

package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/tools/proc"
)

// Credentials never reach a command's environment unless allowed by name:
// the variable named by a provider's api_key_env (whatever it is called),
// the catalog's key variables, DATABASE_URL, URLs with userinfo and
// *_TOKEN names; command_env_allow passes a name through.
func TestCommandEnvScrubsConfiguredKeys(t *testing.T) {
	prev := proc.CurrentEnvPolicy()
	t.Cleanup(func() { proc.SetEnvPolicy(prev) })
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
	out, err := rt.CallTool(context.Background(), "run_command", json.RawMessage(`{"command":"env"}`), CallOptions{UserAction: true})
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
	shell := CommandEnviron()
	for _, kv := range shell {
		if strings.Contains(kv, "corp-secret") {
			t.Errorf("the user's !command gets %s", kv)
		}
	}
}
