package gemini

import (
	"encoding/json"
	"testing"

	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// The body sent (contents from each message's cached encoding) is byte for
// byte the encoding of the whole request, for Gemini 2 and 3 models on one
// client, from the cache, with a tool result that does not name its tool,
// after changes in place and cuts; a request without contents is refused.
func TestBodyIsTheWholeEncoding(t *testing.T) {
	req := &llm.Request{System: "be brief", MaxTokens: 100, Stream: true,
		Tools: []llm.Tool{{Name: "read", Description: "read <a> file", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}},
		Messages: []llm.Message{
			{Role: llm.RoleUser, Parts: []llm.Part{{Type: llm.PartText, Text: "look"}, {Type: llm.PartImage, MIMEType: "image/png", Data: []byte{1, 2}}}},
			{Role: llm.RoleAssistant, Parts: []llm.Part{{Type: llm.PartText, Text: "ok"},
				{Type: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: "c1", Name: "read", Arguments: json.RawMessage(`{"path":"a"}`)}}}},
			llm.ToolResults(llm.ToolResult{CallID: "c1", Content: "A & <b>"}), // no name: taken from the call
			{Role: llm.RoleAssistant, Parts: []llm.Part{{Type: llm.PartText, Text: ""}}},
			llm.UserText("next"),
		}}
	caches := &[2]llm.WireCache{}
	for _, model := range []string{"gemini-2.5-pro", "gemini-3-pro-preview", "gemini-2.5-pro"} {
		req.Model = model
		msgs := req.Messages
		check := func(step string) {
			t.Helper()
			llmtest.SameBody(t, model+", "+step, func() (any, error) { return buildRequest(req, false) },
				func() (*llm.Spliced, error) { return buildBody(req, false, caches) })
		}
		check("first")
		check("cached")
		req.Messages[2].Parts[0].ToolResult.Content = "changed " + model
		check("changed in place")
		req.Messages = append(req.Messages, llm.AssistantText("more"))
		check("grown")
		req.Messages = req.Messages[:2]
		check("cut")
		req.Messages = []llm.Message{{Role: llm.RoleAssistant}}
		if _, err := buildBody(req, false, caches); err != errNoContents {
			t.Fatalf("a request without contents: %v", err)
		}
		req.Messages = msgs
	}
}
