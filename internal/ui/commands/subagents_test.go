package commands

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/llm/llmtest"
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
