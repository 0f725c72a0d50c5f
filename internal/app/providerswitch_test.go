package app

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
)

// TestProviderFlagPicksLiveDefault: --provider NAME without --model does
// not send the config file's model (meant for another provider) to NAME:
// it uses NAME's default model when the live list has it, else the next
// catalog model the live list has; a model NAME serves is kept (issue 23
// item 17).
func TestProviderFlagPicksLiveDefault(t *testing.T) {
	var list atomic.Value
	list.Store(`{"data":[{"id":"openai/gpt-oss-120b"},{"id":"llama-3.3-70b-versatile"}]}`)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(list.Load().(string))) }))
	defer ts.Close()
	load := func(model string) *Runtime {
		t.Helper()
		home, ws := t.TempDir(), t.TempDir()
		cfg := filepath.Join(home, ".config", "aidex", "config.toml")
		if err := os.MkdirAll(filepath.Dir(cfg), 0o700); err != nil {
			t.Fatal(err)
		}
		body := "provider = \"pollinations\"\nmodel = \"" + model + "\"\n[providers.groq]\nbase_url = \"" + ts.URL + "/v1\"\napi_key = \"gsk-test\"\n"
		if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		env := func(k string) string {
			if k == "HOME" {
				return home
			}
			return ""
		}
		rt, err := Load(context.Background(), Options{Workspace: ws, Getenv: env, Flags: map[string]string{"provider": "groq"},
			Probe: func(context.Context, string) bool { return false }})
		if err != nil {
			t.Fatal(err)
		}
		return rt
	}
	if rt := load("stub-model"); rt.Provider.Name != "groq" || rt.Model != "openai/gpt-oss-120b" {
		t.Errorf("stub-model: got %s/%s, want groq/openai/gpt-oss-120b", rt.Provider.Name, rt.Model)
	}
	if rt := load("llama-3.3-70b-versatile"); rt.Model != "llama-3.3-70b-versatile" {
		t.Errorf("a model groq serves: got %s", rt.Model)
	}
	list.Store(`{"data":[{"id":"whisper-large-v3"},{"id":"llama-3.1-8b-instant"}]}`)
	if rt := load("stub-model"); rt.Model != "llama-3.1-8b-instant" {
		t.Errorf("default gone from the live list: got %s, want llama-3.1-8b-instant", rt.Model)
	}
}
