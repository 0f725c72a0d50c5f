package responses

import (
	"encoding/json"
	"testing"

	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// The body sent (the input spliced from each message's cached encoding)
// is byte for byte the encoding of the whole request, on the first
// request, from the cache, and after changes in place and cuts; a
// request without input is refused as before.
func TestBodyIsTheWholeEncoding(t *testing.T) {
	req := &llm.Request{Model: "gpt-5", System: "be brief", MaxTokens: 100, Stream: true, ReasoningEffort: "low",
		Tools: []llm.Tool{{Name: "read", Description: "read <a> file"}},
		Messages: []llm.Message{
			{Role: llm.RoleUser, Parts: []llm.Part{{Type: llm.PartText, Text: "look"}, {Type: llm.PartImage, MIMEType: "image/png", Data: []byte{1, 2}}}},
			{Role: llm.RoleAssistant, Parts: []llm.Part{{Type: llm.PartReasoning, Text: "hm", Signature: "enc", ID: "rs_1"}, {Type: llm.PartText, Text: "ok"},
				{Type: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: "c1", Name: "read", Arguments: json.RawMessage(`{"path":"a"}`)}}}},
			llm.ToolResults(llm.ToolResult{CallID: "c1", Name: "read", Content: "A & <b>"}),
		}}
	cache := &llm.WireCache{}
	check := func(step string) {
		t.Helper()
		llmtest.SameBody(t, step, func() (any, error) { return buildRequest(req) },
			func() (*llm.Spliced, error) { return buildBody(req, cache) })
	}
	check("first")
	check("cached")
	req.Messages[2].Parts[0].ToolResult.Content = "changed"
	check("changed in place")
	req.Messages = append(req.Messages, llm.UserText("next"))
	check("grown")
	req.Messages = req.Messages[:1]
	check("cut")
	req.Messages = []llm.Message{{Role: llm.RoleUser}}
	if _, err := buildBody(req, cache); err != errNoInput {
		t.Fatalf("a request without input: %v", err)
	}
}
