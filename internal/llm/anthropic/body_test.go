package anthropic

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// The body sent (wire messages from each message's cached encoding, the
// merged and the marked ones encoded afresh) is byte for byte the encoding
// of the whole request: with and without prompt caching, on the first
// request, from the cache, after changes in place, merges and cuts.
func TestBodyIsTheWholeEncoding(t *testing.T) {
	for _, cc := range []bool{true, false} {
		req := &llm.Request{Model: "claude-sonnet-4-6", System: "be brief", MaxTokens: 100, Stream: true, CacheControl: cc,
			Tools: []llm.Tool{{Name: "read", Description: "read <a> file"}},
			Messages: []llm.Message{
				{Role: llm.RoleUser, Parts: []llm.Part{{Type: llm.PartText, Text: "look"}, {Type: llm.PartImage, MIMEType: "image/png", Data: []byte{1, 2}}}},
				{Role: llm.RoleAssistant, Parts: []llm.Part{{Type: llm.PartReasoning, Text: "hm", Signature: "sig"}, {Type: llm.PartText, Text: "ok"},
					{Type: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: "c1", Name: "read", Arguments: json.RawMessage(`{"path":"a"}`)}}}},
				{Role: llm.RoleTool, Parts: []llm.Part{{Type: llm.PartText, Text: "note first"},
					{Type: llm.PartToolResult, ToolResult: &llm.ToolResult{CallID: "c1", Name: "read", Content: "A & <b>"}}}},
				{Role: llm.RoleAssistant, Parts: []llm.Part{{Type: llm.PartText, Text: ""}}}, // no blocks: left out
				llm.UserText("and then"), // merged with the tool message
				llm.AssistantText("done"),
			}}
		cache := &llm.WireCache{}
		check := func(step string) {
			t.Helper()
			llmtest.SameBody(t, fmt.Sprintf("cache_control %v, %s", cc, step), func() (any, error) { return buildRequest(req) },
				func() (*llm.Spliced, error) { return buildBody(req, cache) })
		}
		check("first")
		check("cached")
		req.Messages[2].Parts[1].ToolResult.Content = "changed"
		check("changed in place")
		for i := 0; i < 3; i++ {
			req.Messages = append(req.Messages, llm.UserText("next"), llm.AssistantText("ok"))
			check("grown")
		}
		req.Messages = req.Messages[:2]
		check("cut")
		req.Messages = nil
		check("empty")
	}
}
