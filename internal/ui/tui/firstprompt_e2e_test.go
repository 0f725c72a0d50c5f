package tui_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// `aidex "PROMPT"` on a terminal starts the terminal UI and sends that
// first message at once (as Claude Code does); the session goes on.
func TestE2EPositionalPromptStartsTUI(t *testing.T) {
	script := llmtest.NewScript(t, llmtest.Turn{Text: "First answer from the model."}, llmtest.Turn{Text: "Second answer."})
	e := start(t, script, "", `"explain this repo"`)
	s := e.waitFor("fake/scripted-a", "explain this repo", "First answer from the model.")
	require.NotContains(t, s, "EXIT=", "the terminal UI must stay open")
	require.Contains(t, string(script.Requests()[0]), "explain this repo")
	e.typeLine("and more")
	e.waitFor("Second answer.")
	e.typeLine("/exit")
	s = e.waitFor("EXIT=0")
	require.Equal(t, 1, strings.Count(s, "First answer from the model."), "the first message is sent once")
}

// With --plain on a terminal the line mode takes the positional prompt as
// its first message; piped, the same command runs headless and exits.
func TestE2EPositionalPromptPlainAndPiped(t *testing.T) {
	script := llmtest.NewScript(t, llmtest.Turn{Text: "Plain first answer."}, llmtest.Turn{Text: "Piped answer."})
	e := start(t, script, "", "--plain", `"say hi"`)
	e.waitFor("/help for commands", "Plain first answer.")
	e.typeLine("/exit")
	e.waitFor("EXIT=0")

	p := start(t, script, "%s | cat", `"say hi"`)
	s := p.waitFor("Piped answer.", "EXIT=0")
	require.NotContains(t, s, "/help for commands", "piped: headless, no line mode")
}
