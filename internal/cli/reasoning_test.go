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

// Thinking is on by default where the model supports it (issue 36 item
// 8, Nexus Code): Claude Sonnet 4.5 on the anthropic provider thinks with
// a 4,096-token budget unless reasoning_effort = "off"; Claude 3.5 Haiku,
// which cannot think, and any model of another provider get none.
func TestThinkingOnByDefault(t *testing.T) {
	cases := []struct {
		provider, model, extra string
		want                   bool
	}{
		{"anthropic", "claude-sonnet-4-5", "", true},
		{"anthropic", "claude-sonnet-4-5", "reasoning_effort = \"off\"\n", false},
		{"anthropic", "claude-3-5-haiku-latest", "", false},
		{"myclaude", "claude-sonnet-4-5", "", false},
	}
	for _, c := range cases {
		srv := llmtest.NewScript(t, llmtest.Turn{Text: "ok"})
		e := newE2E(t, srv, "anthropic", "")
		cfg := "provider = \"" + c.provider + "\"\nmodel = \"" + c.model + "\"\nmax_retries = 0\n" + c.extra +
			"[providers." + c.provider + "]\ntype = \"anthropic\"\nbase_url = \"" + srv.URL + "\"\napi_key = \"k\"\n"
		if err := os.WriteFile(filepath.Join(e.home, ".config", "aidex", "config.toml"), []byte(cfg), 0o600); err != nil {
			t.Fatal(err)
		}
		if r := e.run(context.Background(), "-p", "hi"); r.code != 0 {
			t.Fatalf("%v: exit %d %s", c, r.code, r.stderr)
		}
		body := string(srv.Requests()[0])
		if got := strings.Contains(body, `"thinking":{"type":"enabled","budget_tokens":4096}`); got != c.want {
			t.Errorf("%s/%s %q: thinking sent %v, want %v: %s", c.provider, c.model, c.extra, got, c.want, body)
		}
	}
}
