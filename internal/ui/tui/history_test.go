package tui

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/llm"
)

// A resumed session shows its last historyExchanges exchanges, counts the
// messages before them, leaves attached files out and marks failed calls.
func TestHistoryShowsTheLastExchanges(t *testing.T) {
	var msgs []llm.Message
	for i := 1; i <= historyExchanges+2; i++ {
		msgs = append(msgs, llm.UserText(fmt.Sprintf("prompt %d", i)), llm.AssistantText(fmt.Sprintf("answer %d", i)))
	}
	call := llm.ToolCall{ID: "c1", Name: "run_command", Arguments: json.RawMessage(`{"command":"make test"}`)}
	msgs = append(msgs,
		llm.UserText("look at @main.go\n\n<file path=\"main.go\">\npackage main\n</file>"),
		llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{{Type: llm.PartToolCall, ToolCall: &call}}},
		llm.ToolResults(llm.ToolResult{CallID: "c1", Name: "run_command", Content: "FAIL", IsError: true}),
		llm.AssistantText("The tests fail."))
	s := newStream(newStyles(false), false, false, 80)
	out := strings.Join(s.history(msgs, len(msgs)), "\n")
	require.Contains(t, out, "… 6 earlier messages not shown")
	require.NotContains(t, out, "› prompt 3\n", "older exchanges are left out")
	for _, want := range []string{"› prompt 4", "answer 12", "› look at @main.go", "✗ run_command $ make test", "The tests fail."} {
		require.Contains(t, out, want)
	}
	require.NotContains(t, out, "package main", "attached files are not shown")

	// From the last messages of a longer conversation (PickRecent): the
	// count includes the messages not loaded yet.
	out = strings.Join(s.history(msgs[4:], len(msgs)+100), "\n")
	require.Contains(t, out, "… 106 earlier messages not shown")
	require.Contains(t, out, "› prompt 4")
}
