package responses

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// wantUsage maps the Responses usage object to llm.Usage.
func wantUsage(u map[string]any) llm.Usage {
	return llm.Usage{
		InputTokens:     llmtest.Int(u, "input_tokens"),
		OutputTokens:    llmtest.Int(u, "output_tokens"),
		CacheReadTokens: llmtest.Int(u, "input_tokens_details.cached_tokens"),
		ReasoningTokens: llmtest.Int(u, "output_tokens_details.reasoning_tokens"),
	}
}

// skipReason names fixtures aidex handles differently on purpose.
func skipReason(f llmtest.Fixture) string {
	if strings.Contains(f.Path, "openai-custom-tool") {
		return "custom (free-form grammar) tool calls: aidex offers function tools only; such a call is reported with ArgsError (TestCustomToolCall), not as the recorder's {\"__custom_input__\": ...}"
	}
	return ""
}

func TestConformance(t *testing.T) {
	llmtest.Conformance(t, "openai_responses", func(base string) llm.Client {
		return New(llm.Options{BaseURL: base + "/v1", APIKey: "test-key"})
	}, wantUsage, llmtest.SkipFixture(skipReason), llmtest.ExtraCheck(checkRequestShape))
}

// checkRequestShape asserts the request the client sent: path, bearer key,
// and a body with the model, store false, the stream flag and one input.
func checkRequestShape(t *testing.T, c llmtest.Case) {
	r, req := c.Sent, c.Request
	if r.Path != "/v1/responses" {
		t.Errorf("request to %s, want /v1/responses", r.Path)
	}
	if got := r.Header.Get("Authorization"); got != "Bearer test-key" {
		t.Errorf("Authorization = %q", got)
	}
	var body struct {
		Model  string            `json:"model"`
		Store  *bool             `json:"store"`
		Stream bool              `json:"stream"`
		Input  []json.RawMessage `json:"input"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatalf("request body: %v", err)
	}
	if body.Model != req.Model || body.Store == nil || *body.Store || body.Stream != req.Stream || len(body.Input) != 1 {
		t.Errorf("request body %s", r.Body)
	}
}
