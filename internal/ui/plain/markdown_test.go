package plain

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/agent"
)

// The line mode prints answers as readable text: no raw ** or #, code
// blocks kept with their indentation, each block printed once it is
// complete, the rest when the answer ends; no escape codes without
// colour.
func TestAnswersAreRenderedMarkdown(t *testing.T) {
	var out strings.Builder
	r := New(strings.NewReader(""), &out, false)
	for _, chunk := range []string{"## Plan\n\nThis is **important** and ", "*emphasised*.\n\n```go\nfunc f() {\n\treturn\n}\n```\n\n- one\n- two"} {
		r.Printer.Event(agent.Event{Type: agent.EventText, Text: chunk})
	}
	require.Contains(t, out.String(), "Plan", "the heading, complete, is printed while the answer streams")
	require.NotContains(t, out.String(), "- two", "the list is not complete yet")
	r.Printer.Event(agent.Event{Type: agent.EventDone, Done: &agent.DoneInfo{}})
	s := out.String()
	for _, raw := range []string{"**", "## ", "```", "\x1b["} {
		require.NotContains(t, s, raw)
	}
	for _, want := range []string{"This is important and emphasised.", "func f() {", "    return", "one", "two"} {
		require.Contains(t, s, want)
	}
	require.Equal(t, 1, strings.Count(s, "important"), "each block printed once")
}
