package responses

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// longStream returns an event stream of n text deltas and the final event.
func longStream(n int) string {
	var b strings.Builder
	b.WriteString(evCreated)
	for i := 0; i < n; i++ {
		b.WriteString(sseEvent("response.output_text.delta",
			fmt.Sprintf(`{"type":"response.output_text.delta","sequence_number":%d,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"token %d ","logprobs":[],"obfuscation":"abc"}`, i, i)))
	}
	b.WriteString(evCompleted)
	return b.String()
}

// BenchmarkReadStream measures parsing a 1000-delta stream (no network).
func BenchmarkReadStream(b *testing.B) {
	body := longStream(1000)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		st := newState(llm.NewAccumulator(func(llm.Event) {}), "openai")
		if err := st.readStream(strings.NewReader(body)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGenerateStream measures a whole streamed Generate over a local
// HTTP server.
func BenchmarkGenerateStream(b *testing.B) {
	srv := llmtest.ServeBody(b, 200, "text/event-stream", longStream(200))
	c := New(llm.Options{BaseURL: srv.URL})
	req := streamReq()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Generate(context.Background(), req, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBuildRequest measures converting a 200-message conversation with
// 20 tools.
func BenchmarkBuildRequest(b *testing.B) {
	req := &llm.Request{Model: "gpt-5", System: "sys", ReasoningEffort: "low"}
	for i := 0; i < 20; i++ {
		req.Tools = append(req.Tools, llm.Tool{Name: fmt.Sprintf("t%d", i), Description: "d",
			Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)})
	}
	for i := 0; i < 100; i++ {
		req.Messages = append(req.Messages, llm.UserText("question"),
			llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{
				{Type: llm.PartReasoning, Text: "r", Signature: "enc", ID: "rs"},
				{Type: llm.PartText, Text: "answer"},
				{Type: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: "c", Name: "t1", Arguments: json.RawMessage(`{"path":"a"}`)}}}})
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := buildRequest(req); err != nil {
			b.Fatal(err)
		}
	}
}
