package tui_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// A task call shows as a subagent card: its approval is labelled with
// the subagent, and the finished card shows type, description, status
// and usage, not the subagent's own text.
func TestE2ESubagentCard(t *testing.T) {
	script := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "task", Args: `{"subagent_type":"general","description":"write notes","prompt":"write notes.txt"}`}}},
		llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"notes.txt","content":"hi\n"}`}}},
		llmtest.Turn{Text: "CHILD-ANSWER-TEXT", InputTokens: 200, OutputTokens: 20},
		llmtest.Turn{Text: "The subagent wrote the notes."})
	e := start(t, script, "")
	e.waitFor("fake/scripted-a")
	e.typeLine("make notes")
	e.waitFor("Allow write_file notes.txt?", "for subagent general: write notes")
	e.answer("y")
	s := e.waitFor("The subagent wrote the notes.", "subagent general: write notes · done · 1 tool calls · 330 tokens")
	require.NotContains(t, s, "CHILD-ANSWER-TEXT", "collapsed, the card does not show the subagent's answer")
	data, err := os.ReadFile(filepath.Join(e.ws, "notes.txt"))
	require.NoError(t, err)
	require.Equal(t, "hi\n", string(data))
	require.Equal(t, 1, strings.Count(s, "subagent general: write notes · done"), "one finished card per subagent")
}
