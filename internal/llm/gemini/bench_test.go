package gemini

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// longStream returns an SSE body of n text chunks and a finishing chunk.
func longStream(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"token %d and some more words \"}]},\"index\":0}],\"usageMetadata\":{\"promptTokenCount\":100,\"candidatesTokenCount\":%d},\"modelVersion\":\"gemini-2.5-flash\",\"responseId\":\"abc\"}\n\n", i, i)
	}
	b.WriteString(chunkStop)
	return b.String()
}

// BenchmarkReadStream measures parsing a 1000-chunk stream (no network).
func BenchmarkReadStream(b *testing.B) {
	body := longStream(1000)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		st := newState(llm.NewAccumulator(func(llm.Event) {}), "gemini", func() string { return "call_1" })
		if err := st.readStream(strings.NewReader(body)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGenerateStream measures a whole streamed Generate over a local
// HTTP server.
func BenchmarkGenerateStream(b *testing.B) {
	body := longStream(200)
	srv := llmtest.ServeBody(b, 200, "text/event-stream", body).URL
	c := New(llm.Options{BaseURL: srv})
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
	req := &llm.Request{Model: "gemini-3-pro-preview", System: "sys"}
	for i := 0; i < 20; i++ {
		req.Tools = append(req.Tools, llm.Tool{Name: fmt.Sprintf("t%d", i), Description: "d",
			Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"n":{"type":["integer","null"]}},"required":["path"],"additionalProperties":false}`)})
	}
	for i := 0; i < 100; i++ {
		req.Messages = append(req.Messages, llm.UserText("question"),
			llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{{Type: llm.PartText, Text: "answer"},
				{Type: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: "x", Name: "t1", Arguments: json.RawMessage(`{"path":"a"}`), Signature: "sig"}}}})
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := buildRequest(req, false); err != nil {
			b.Fatal(err)
		}
	}
}
