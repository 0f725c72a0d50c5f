package anthropic

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm"
)

// benchStream is a streamed answer of n text deltas and one tool call.
func benchStream(n int) string {
	events := []string{evStart, evText0}
	for i := range n {
		events = append(events, fmt.Sprintf(`content_block_delta {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"word %d "}}`, i))
	}
	events = append(events, evStop0,
		`content_block_start {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_A","name":"read","input":{}}}`,
		`content_block_delta {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"path\": \"a.go\"}"}}`,
		`content_block_stop {"type":"content_block_stop","index":1}`, evDelta, evEnd)
	return sseBody(events...)
}

// BenchmarkReadStream measures decoding a 1000-delta stream (bytes/s and
// allocations per stream).
func BenchmarkReadStream(b *testing.B) {
	body := benchStream(1000)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		acc := llm.NewAccumulator(func(llm.Event) {})
		if err := readStream(strings.NewReader(body), acc, "anthropic"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBuildRequest measures encoding a 200-message conversation with
// tool calls and caching to JSON.
func BenchmarkBuildRequest(b *testing.B) {
	var msgs []llm.Message
	for i := range 50 {
		id := fmt.Sprintf("toolu_%d", i)
		msgs = append(msgs,
			llm.UserText(strings.Repeat("question ", 50)),
			llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{
				{Type: llm.PartReasoning, Text: strings.Repeat("thinking ", 100), Signature: strings.Repeat("S", 300)},
				{Type: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: id, Name: "read", Arguments: json.RawMessage(`{"path":"a.go"}`)}},
			}},
			llm.ToolResults(llm.ToolResult{CallID: id, Content: strings.Repeat("line\n", 200)}),
			llm.AssistantText(strings.Repeat("answer ", 50)),
		)
	}
	req := &llm.Request{Model: "m", System: strings.Repeat("sys ", 500), Messages: msgs, CacheControl: true, ThinkingBudget: 4096}
	b.ReportAllocs()
	for b.Loop() {
		wr, err := buildRequest(req)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := json.Marshal(wr); err != nil {
			b.Fatal(err)
		}
	}
}
