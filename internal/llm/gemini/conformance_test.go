package gemini

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// wantUsage maps Gemini's usageMetadata to llm.Usage.
func wantUsage(u map[string]any) llm.Usage {
	thoughts := llmtest.Int(u, "thoughtsTokenCount")
	return llm.Usage{
		InputTokens:     llmtest.Int(u, "promptTokenCount"),
		OutputTokens:    llmtest.Int(u, "candidatesTokenCount") + thoughts,
		CacheReadTokens: llmtest.Int(u, "cachedContentTokenCount"),
		ReasoningTokens: thoughts,
	}
}

// corrected fixes the recorded expectations that are wrong or numeric:
// finish reasons recorded as FinishReason enum numbers of
// google.ai.generativelanguage.v1beta (1 STOP, 2 MAX_TOKENS, 3 SAFETY) are
// expected by the name the client reports; the
// vercel-ai fixture streams the arguments of two calls with Vertex
// partialArgs (one functionCall piece per chunk), and its expect lists every
// piece as a call: the two calls it holds are these.
func corrected(f *llmtest.Fixture) {
	switch f.Expect.FinishReason {
	case "1":
		f.Expect.FinishReason = "STOP"
	case "2":
		f.Expect.FinishReason = "MAX_TOKENS"
	case "3":
		f.Expect.FinishReason = "SAFETY"
	}
	if strings.Contains(f.Path, "google-stream-tool-call-arguments") {
		f.Expect.ToolCalls = []llmtest.ExpectedCall{
			{Name: "getWeather", Arguments: json.RawMessage(`{"location":"Boston"}`)},
			{Name: "getWeather", Arguments: json.RawMessage(`{"location":"San Francisco"}`)},
		}
	}
}

func TestConformance(t *testing.T) {
	llmtest.Conformance(t, "gemini", func(base string) llm.Client {
		return New(llm.Options{BaseURL: base + "/v1beta", APIKey: "test-key"})
	}, wantUsage, llmtest.AdjustFixture(corrected), llmtest.ExtraCheck(checkRequestShape))
}

// checkRequestShape asserts the request the client sent: path, query, key
// header and a JSON body with contents.
func checkRequestShape(t *testing.T, c llmtest.Case) {
	r, req := c.Sent, c.Request
	model := strings.TrimPrefix(req.Model, "models/") // langchaingo records "models/<name>"
	wantPath := "/v1beta/models/" + model + ":generateContent"
	wantQuery := ""
	if req.Stream {
		wantPath = "/v1beta/models/" + model + ":streamGenerateContent"
		wantQuery = "alt=sse"
	}
	if r.Path != wantPath || r.Query != wantQuery {
		t.Errorf("request to %s?%s, want %s?%s", r.Path, r.Query, wantPath, wantQuery)
	}
	if got := r.Header.Get("x-goog-api-key"); got != "test-key" {
		t.Errorf("x-goog-api-key = %q", got)
	}
	var body struct {
		Contents []json.RawMessage `json:"contents"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil || len(body.Contents) != 1 {
		t.Errorf("request body %s: contents missing (%v)", r.Body, err)
	}
}
