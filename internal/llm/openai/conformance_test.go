package openai

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// wantUsage maps the provider's usage object as the llm.Usage doc says:
// prompt_tokens already includes cached tokens; cache reads come from
// prompt_tokens_details.cached_tokens or DeepSeek's prompt_cache_hit_tokens,
// cache writes from prompt_tokens_details.cache_write_tokens or the
// gateways' cache_creation_input_tokens.
func wantUsage(m map[string]any) llm.Usage {
	u := llm.Usage{
		InputTokens:      llmtest.Int(m, "prompt_tokens"),
		OutputTokens:     llmtest.Int(m, "completion_tokens"),
		CacheReadTokens:  llmtest.Int(m, "prompt_tokens_details.cached_tokens"),
		CacheWriteTokens: llmtest.Int(m, "prompt_tokens_details.cache_write_tokens"),
		ReasoningTokens:  llmtest.Int(m, "completion_tokens_details.reasoning_tokens"),
	}
	if u.CacheReadTokens == 0 {
		u.CacheReadTokens = llmtest.Int(m, "prompt_cache_hit_tokens")
	}
	if u.CacheWriteTokens == 0 {
		u.CacheWriteTokens = llmtest.Int(m, "cache_creation_input_tokens")
	}
	return u
}

// generatedIDs replaces expected tool-call ids the host left empty with the
// ids the client gives such calls (call_<position>).
func generatedIDs(f *llmtest.Fixture) {
	for i := range f.Expect.ToolCalls {
		if id := f.Expect.ToolCalls[i].ID; id != nil && *id == "" {
			gen := "call_" + strconv.Itoa(i)
			f.Expect.ToolCalls[i].ID = &gen
		}
	}
}

func TestFixtures(t *testing.T) {
	llmtest.Conformance(t, "openai_chat", func(base string) llm.Client {
		return New(Options{Options: llm.Options{BaseURL: base + "/v1", APIKey: "sk-test", KeyEnv: "OPENAI_API_KEY"}})
	}, wantUsage, llmtest.MinFixtures(250), llmtest.AdjustFixture(generatedIDs), llmtest.ExtraCheck(checkRequest))
}

// checkRequest checks the request the client sent: path, auth, model,
// stream flags.
func checkRequest(t *testing.T, c llmtest.Case) {
	r, f := c.Sent, c.Fixture
	if r.Path != "/v1/chat/completions" {
		t.Errorf("request to %s, want /v1/chat/completions", r.Path)
	}
	if got := r.Header.Get("Authorization"); got != "Bearer sk-test" {
		t.Errorf("Authorization %q", got)
	}
	var body map[string]any
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatalf("request body: %v", err)
	}
	if body["model"] != f.Model() {
		t.Errorf("model %v, want %s", body["model"], f.Model())
	}
	_, hasOpts := body["stream_options"]
	if f.Stream != (body["stream"] == true) || f.Stream != hasOpts {
		t.Errorf("stream %v stream_options %v for a stream=%v fixture", body["stream"], body["stream_options"], f.Stream)
	}
}
