package commands

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/ralph"
)

// /cost lists each subagent's tokens, cost and tool calls.
func TestCostListsSubagents(t *testing.T) {
	f := newFixture(t, "",
		llmtest.Turn{Calls: []llmtest.Call{{Name: "task", Args: `{"subagent_type":"explore","description":"find tests","prompt":"find the tests"}`}}},
		llmtest.Turn{Text: "tests are in x_test.go", InputTokens: 300, OutputTokens: 30},
		llmtest.Turn{Text: "done"})
	_, err := f.c.Run(context.Background(), []llm.Part{{Type: llm.PartText, Text: "go"}}, func(agent.Event) {})
	require.NoError(t, err)
	out, _ := f.mustExec(t, "/cost")
	require.Contains(t, out, "subagents (1):\n  explore: find tests · input 300 · output 30 tokens · ")
	require.Contains(t, out, "0 tool calls")
	require.Contains(t, out, "total with subagents: ")
}

// The tasks view's log leaves a subagent's text out (its calls stay).
func TestRalphLogLeavesSubagentTextOut(t *testing.T) {
	var l RalphLog
	l.Add(ralph.Event{TaskID: "T-1", Agent: &agent.Event{Type: agent.EventText, Text: "CHILD\n", ParentToolCallID: "t1"}})
	l.Add(ralph.Event{TaskID: "T-1", Agent: &agent.Event{Type: agent.EventToolCall, ParentToolCallID: "t1",
		ToolCall: &agent.ToolCallInfo{Name: "read_file", Arguments: json.RawMessage(`{"path":"a.go"}`)}}})
	require.Equal(t, []string{"→ read_file a.go"}, l.Lines())
}
