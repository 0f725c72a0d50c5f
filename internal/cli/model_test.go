package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// useProvider rewrites e's config: provider name (a catalog provider)
// served by the scripted model.
func useProvider(t *testing.T, e *e2e, srv *llmtest.Script, name string) {
	t.Helper()
	cfg := "provider = \"" + name + "\"\nmax_retries = 0\n\n[providers." + name + "]\nbase_url = \"" + srv.URL + "/v1\"\napi_key = \"test-key\"\n"
	if err := os.WriteFile(filepath.Join(e.home, ".config", "aidex", "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
}

// --model with an unknown provider prefix is an error naming the known
// providers and the closest one (exit 2), not a silent fallback to the
// configured provider.
func TestModelUnknownProviderPrefix(t *testing.T) {
	srv := llmtest.NewScript(t)
	e := newE2E(t, srv, "openai", "")
	useProvider(t, e, srv, "groq")
	r := e.run(context.Background(), "--model", "antropic/claude-sonnet-4-6", "-p", "hi")
	if r.code != ExitUsage || !strings.Contains(r.stderr, `unknown provider "antropic" in model "antropic/claude-sonnet-4-6" (did you mean "anthropic"?)`) ||
		!strings.Contains(r.stderr, "known providers: ") || !strings.Contains(r.stderr, "openrouter") {
		t.Fatalf("exit %d stderr %q", r.code, r.stderr)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d model requests", n)
	}
}

// Providers that take any model id (routers, local and custom servers)
// keep a PROVIDER/MODEL-looking id whole.
func TestModelSlashIDOnOpenProvider(t *testing.T) {
	srv := llmtest.NewScript(t, llmtest.Turn{Text: "routed"}, llmtest.Turn{Text: "custom"})
	e := newE2E(t, srv, "openai", "")
	r := e.run(context.Background(), "--model", "someone/some-model", "-p", "hi")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "routed" {
		t.Fatalf("custom provider: exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	useProvider(t, e, srv, "openrouter")
	r = e.run(context.Background(), "--model", "qwen/qwen3-coder:nitro", "-p", "hi")
	if r.code != 0 || !strings.Contains(string(srv.Requests()[1]), `"qwen/qwen3-coder:nitro"`) {
		t.Fatalf("openrouter: exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
}
