package engine

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/llm"
)

// benchSession is a 2,000-message session: 500 exchanges of a prompt, a
// read_file call, its result and an answer.
func benchSession() *agent.Conversation {
	s := &agent.Conversation{ID: "s"}
	for i := range 500 {
		id := fmt.Sprintf("c%d", i)
		s.Messages = append(s.Messages, llm.UserText("please look at file number "+id),
			llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{{Type: llm.PartText, Text: "reading it"},
				{Type: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: id, Name: "read_file", Arguments: json.RawMessage(`{"path":"src/a.go"}`)}}}},
			llm.Message{Role: llm.RoleTool, Parts: []llm.Part{{Type: llm.PartToolResult, ToolResult: &llm.ToolResult{CallID: id, Name: "read_file", Content: "package a\n\nfunc A() {}\n"}}}},
			llm.AssistantText("done with "+id))
	}
	return s
}

// BenchmarkClaudeTranscript renders benchSession (1,000 tool calls and
// results) in Claude Code's transcript format, as every hook run writes
// it.
func BenchmarkClaudeTranscript(b *testing.B) {
	s := benchSession()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ClaudeTranscript(s, "/ws"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTranscriptPlainMessages is the former format (each message as
// aidex stores it), for comparison.
func BenchmarkTranscriptPlainMessages(b *testing.B) {
	s := benchSession()
	b.ReportAllocs()
	for b.Loop() {
		for _, m := range s.Messages {
			if _, err := json.Marshal(map[string]any{"type": m.Role, "message": m}); err != nil {
				b.Fatal(err)
			}
		}
	}
}
