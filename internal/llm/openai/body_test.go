package openai

import (
	"encoding/json"
	"testing"

	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// The body sent (the conversation spliced from each message's cached
// encoding) is byte for byte the encoding of the whole request, on the
// first request, when messages come from the cache, and after messages
// were changed in place or cut.
func TestBodyIsTheWholeEncoding(t *testing.T) {
	for _, q := range []quirks{{}, {echo: echoContent, thoughtSignatures: true}, {echo: echoDetails}} {
		cache := &llm.WireCache{}
		req := conversation()
		check := func(step string) {
			t.Helper()
			llmtest.SameBody(t, step, func() (any, error) { return buildRequest(req, q) },
				func() (*llm.Spliced, error) { return buildBody(req, q, cache) })
		}
		check("first")
		check("cached")
		req.Messages[2].Parts[0].ToolResult.Content = "changed in place"
		check("tool result changed")
		copy(req.Messages[1].Parts[3].ToolCall.Arguments, `{"path":"b"}`)
		check("arguments changed")
		req.Messages = append(req.Messages, llm.AssistantText("more"), llm.UserText("and more"))
		check("grown")
		req.Messages = req.Messages[:2]
		check("cut")
		req.System = ""
		check("no system prompt")
		req.Messages = nil
		check("no messages")
	}
}

// A request the cache answered still has every message: the conversation
// sent decodes to the same messages as buildRequest's.
func TestBodyDecodes(t *testing.T) {
	req := conversation()
	body, err := buildBody(req, quirks{}, &llm.WireCache{})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := body.Bytes()
	var m struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(got, &m); err != nil || len(m.Messages) != 6 {
		t.Fatalf("%d messages, %v:\n%s", len(m.Messages), err, got)
	}
}
