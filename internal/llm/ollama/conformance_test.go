package ollama

import (
	"encoding/json"
	"testing"

	"go.uber.org/goleak"

	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/llm/llmtest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// wantUsage maps Ollama's counts to llm.Usage. The "ollama_generate"
// exchanges (/api/generate) are not replayed: that endpoint is not a wire
// aidex uses for chat.
func wantUsage(m map[string]any) llm.Usage {
	return llm.Usage{InputTokens: llmtest.Int(m, "prompt_eval_count"), OutputTokens: llmtest.Int(m, "eval_count")}
}

func TestFixtures(t *testing.T) {
	llmtest.Conformance(t, "ollama", func(base string) llm.Client {
		return New(Options{Options: llm.Options{BaseURL: base}})
	}, wantUsage, llmtest.MinFixtures(7), llmtest.ExtraCheck(checkExchange))
}

// checkExchange checks the request's path and body (model, an explicit
// stream flag) and that the response names the model.
func checkExchange(t *testing.T, c llmtest.Case) {
	f, r := c.Fixture, c.Sent
	if c.Response.Model != f.Model() {
		t.Errorf("model %q, want %q", c.Response.Model, f.Model())
	}
	if r.Path != "/api/chat" {
		t.Fatalf("request to %s, want /api/chat", r.Path)
	}
	var body map[string]any
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatal(err)
	}
	if body["model"] != f.Model() || body["stream"] != f.Stream {
		t.Errorf("model %v stream %v", body["model"], body["stream"])
	}
}
