package plain

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/agent"
)

// A subagent's tool calls print labelled and indented; its text does not
// print as the answer; its approvals name it.
func TestSubagentEventsAreLabelled(t *testing.T) {
	var out strings.Builder
	r := New(strings.NewReader("y\n"), &out, false)
	p := r.Printer
	child := func(e agent.Event) {
		e.ParentToolCallID, e.Subagent = "t1", "explore: find tests"
		p.Event(e)
	}
	child(agent.Event{Type: agent.EventText, Text: "CHILD TEXT"})
	child(agent.Event{Type: agent.EventToolCall, ToolCall: &agent.ToolCallInfo{ID: "g", Name: "grep", Arguments: json.RawMessage(`{"pattern":"Test"}`)}})
	child(agent.Event{Type: agent.EventToolResult, ToolResult: &agent.ToolResultInfo{ID: "g", Name: "grep", Error: "bad pattern"}})
	require.NotContains(t, out.String(), "CHILD TEXT")
	require.Contains(t, out.String(), "  [explore: find tests] → grep Test\n")
	require.Contains(t, out.String(), "  [explore: find tests] ✗ bad pattern\n")

	_, _, err := r.Approver().Approve(context.Background(), agent.ApprovalInfo{Tool: "write_file",
		Arguments: json.RawMessage(`{"path":"a.txt"}`), Rule: "mode ask", Subagent: "general: write"})
	require.NoError(t, err)
	require.Contains(t, out.String(), "(for subagent general: write)")
}
