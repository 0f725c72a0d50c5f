package app

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestConfiguredProviderKeepsSlashedModel: a config file that names the
// provider and a model id with a slash (OpenRouter's "anthropic/claude-...")
// keeps that provider; the PROVIDER/MODEL shortcut is for a model given
// without an explicit provider.
func TestConfiguredProviderKeepsSlashedModel(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	cfg := filepath.Join(home, ".config", "aidex", "config.toml")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte("provider = \"openrouter\"\nmodel = \"anthropic/claude-sonnet-4.5\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := func(k string) string {
		switch k {
		case "HOME":
			return home
		case "OPENROUTER_API_KEY":
			return "sk-or-test"
		}
		return ""
	}
	rt, err := Load(context.Background(), Options{Workspace: ws, Getenv: env, Probe: func(context.Context, string) bool { return false }})
	if err != nil {
		t.Fatal(err)
	}
	if rt.Provider.Name != "openrouter" || rt.Model != "anthropic/claude-sonnet-4.5" {
		t.Fatalf("got provider %q model %q", rt.Provider.Name, rt.Model)
	}
	// A PROVIDER/MODEL flag still overrides a provider from the config file.
	rt, err = Load(context.Background(), Options{Workspace: ws, Getenv: func(k string) string {
		if k == "ANTHROPIC_API_KEY" {
			return "sk-ant-test"
		}
		return env(k)
	}, Flags: map[string]string{"model": "anthropic/claude-sonnet-4-5"}, Probe: func(context.Context, string) bool { return false }})
	if err != nil {
		t.Fatal(err)
	}
	if rt.Provider.Name != "anthropic" || rt.Model != "claude-sonnet-4-5" {
		t.Fatalf("flag: got provider %q model %q", rt.Provider.Name, rt.Model)
	}
}

// TestProviderFlagKeepsWholeModel: with --provider, --model is the model id
// alone even when it starts with the provider's name (OpenRouter's
// "openrouter/auto").
func TestProviderFlagKeepsWholeModel(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	env := func(k string) string {
		switch k {
		case "HOME":
			return home
		case "OPENROUTER_API_KEY":
			return "sk-or-test"
		}
		return ""
	}
	rt, err := Load(context.Background(), Options{Workspace: ws, Getenv: env, Flags: map[string]string{"provider": "openrouter", "model": "openrouter/auto"},
		Probe: func(context.Context, string) bool { return false }})
	if err != nil {
		t.Fatal(err)
	}
	if rt.Provider.Name != "openrouter" || rt.Model != "openrouter/auto" {
		t.Fatalf("got provider %q model %q", rt.Provider.Name, rt.Model)
	}
}
