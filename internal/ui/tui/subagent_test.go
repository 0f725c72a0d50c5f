package tui

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/llm"
)

// A subagent's events go to its task card, not to the answer or the
// status line; expanded, the card lists its calls (a grandchild's
// nested) and its answer.
func TestSubagentEventsFillTheTaskCard(t *testing.T) {
	s := newStream(styles{}, false, false, 100)
	st := statusModel{}
	s.event(agent.Event{Type: agent.EventToolCall, ToolCall: &agent.ToolCallInfo{ID: "t1", Name: "task",
		Arguments: json.RawMessage(`{"subagent_type":"explore","description":"find tests","prompt":"x"}`)}})
	child := func(e agent.Event, parent string) {
		e.ParentToolCallID, e.Subagent = parent, "explore: find tests"
		s.event(e)
		st.event(e)
	}
	child(agent.Event{Type: agent.EventText, Text: "CHILD TEXT"}, "t1")
	child(agent.Event{Type: agent.EventToolCall, ToolCall: &agent.ToolCallInfo{ID: "c1", Name: "task", Arguments: json.RawMessage(`{"description":"deeper"}`)}}, "t1")
	child(agent.Event{Type: agent.EventToolCall, ToolCall: &agent.ToolCallInfo{ID: "g1", Name: "grep", Arguments: json.RawMessage(`{"pattern":"Test"}`)}}, "c1")
	child(agent.Event{Type: agent.EventToolResult, ToolResult: &agent.ToolResultInfo{ID: "g1", Name: "grep", OK: true}}, "c1")
	child(agent.Event{Type: agent.EventUsage, Usage: &agent.UsageInfo{Session: llm.Usage{InputTokens: 500, OutputTokens: 50}, CostUSD: 0.01}}, "t1")
	child(agent.Event{Type: agent.EventDone, Done: &agent.DoneInfo{Result: "found 3 test files", StopReason: agent.StopDone}}, "t1")
	require.Empty(t, s.text, "a subagent's text is not the answer")
	require.Zero(t, st.tokens, "a subagent's usage is not the session's")

	c := s.card("t1")
	require.NotNil(t, c)
	collapsed := renderSubagentCard(s.st, c, "*", 100, false)
	require.Equal(t, "* subagent explore: find tests · running · 2 tool calls · 550 tokens · $0.0100", collapsed)
	c.Done, c.Result = true, &agent.ToolResultInfo{ID: "t1", OK: true}
	expanded := renderSubagentCard(s.st, c, "", 100, true)
	lines := strings.Split(expanded, "\n")
	require.Contains(t, lines[0], "✓ subagent explore: find tests · done")
	require.Equal(t, "  … task general: deeper", strings.TrimRight(lines[1], " "))
	require.Equal(t, "    ✓ grep Test", strings.TrimRight(lines[2], " "))
	require.Contains(t, expanded, "found 3 test files")
}
