package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// Issue 23 item 9 through the configuration: verbosity, max_tokens as
// max_completion_tokens for gpt-5 on a compatible provider, and
// [providers.NAME] stream_options = false.
func TestReasoningConfigReachesRequest(t *testing.T) {
	srv := llmtest.NewScript(t, llmtest.Turn{Text: "ok"})
	e := newE2E(t, srv, "openai", "")
	cfg := "provider = \"fake\"\nmodel = \"gpt-5-mini\"\nmax_retries = 0\nverbosity = \"low\"\nmax_tokens = 321\n" +
		"[providers.fake]\ntype = \"openai\"\nbase_url = \"" + srv.URL + "/v1\"\napi_key = \"k\"\nstream_options = false\n"
	if err := os.WriteFile(filepath.Join(e.home, ".config", "aidex", "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := e.run(context.Background(), "-p", "hi"); r.code != 0 {
		t.Fatalf("exit %d %s", r.code, r.stderr)
	}
	body := string(srv.Requests()[0])
	for _, want := range []string{`"verbosity":"low"`, `"max_completion_tokens":321`, `"stream":true`} {
		if !strings.Contains(body, want) {
			t.Errorf("request lacks %s: %s", want, body)
		}
	}
	if strings.Contains(body, "stream_options") || strings.Contains(body, `"max_tokens"`) {
		t.Errorf("stream_options or max_tokens sent: %s", body)
	}
}
