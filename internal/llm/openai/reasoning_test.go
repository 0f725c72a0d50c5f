package openai

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm"
)

// Issue 23 item 9: OpenAI's reasoning models get max_completion_tokens on
// any host speaking Chat Completions; verbosity is sent when set;
// stream_options can be turned off per provider.
func TestReasoningModelParams(t *testing.T) {
	for _, c := range []struct {
		model string
		want  bool
	}{{"gpt-5", true}, {"gpt-5-mini", true}, {"openai/gpt-5-nano", true}, {"o3", true}, {"o4-mini", true}, {"o1-preview", true},
		{"gpt-5-chat-latest", false}, {"gpt-4o", false}, {"llama3", false}, {"olmo-2", false}, {"qwen3", false}} {
		if got := ReasoningModel(c.model); got != c.want {
			t.Errorf("ReasoningModel(%q) = %v", c.model, got)
		}
		wr, err := buildRequest(&llm.Request{Model: c.model, MaxTokens: 100, Messages: []llm.Message{llm.UserText("hi")}}, quirksFor("openrouter.ai"))
		if err != nil {
			t.Fatal(err)
		}
		if (wr.MaxCompletionTokens == 100) != c.want || (wr.MaxTokens == 100) == c.want {
			t.Errorf("%s: max_tokens %d max_completion_tokens %d", c.model, wr.MaxTokens, wr.MaxCompletionTokens)
		}
	}
	wr, _ := buildRequest(&llm.Request{Model: "gpt-5", Verbosity: "Low", Messages: []llm.Message{llm.UserText("hi")}}, quirks{})
	if b, _ := json.Marshal(wr); !strings.Contains(string(b), `"verbosity":"low"`) {
		t.Errorf("verbosity not sent: %s", b)
	}
	wr, _ = buildRequest(&llm.Request{Model: "gpt-5", Messages: []llm.Message{llm.UserText("hi")}}, quirks{})
	if b, _ := json.Marshal(wr); strings.Contains(string(b), "verbosity") {
		t.Errorf("verbosity sent unset: %s", b)
	}
	off, on := false, true
	for _, c := range []struct {
		so   *bool
		host string
		want bool
	}{{nil, "http://127.0.0.1:8080/v1", true}, {&off, "http://127.0.0.1:8080/v1", false}, {nil, "https://api.mistral.ai/v1", false}, {&on, "https://api.mistral.ai/v1", true}} {
		cl := New(Options{Options: llm.Options{BaseURL: c.host}, StreamOptions: c.so})
		wr, _ := buildRequest(&llm.Request{Model: "m", Stream: true, Messages: []llm.Message{llm.UserText("hi")}}, cl.quirks)
		if (wr.StreamOptions != nil) != c.want {
			t.Errorf("%s stream_options=%v: sent %v", c.host, c.so, wr.StreamOptions != nil)
		}
	}
}
