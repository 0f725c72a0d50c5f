package tui_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// The line mode on a terminal reads the idle prompt with a line editor:
// Tab completes slash commands (built-in and custom), the terminal is
// back in cooked mode for runs, Ctrl+C at the prompt asks for a second
// press, Ctrl+D quits.
func TestE2EPlainTabCompletesCommands(t *testing.T) {
	script := llmtest.NewScript(t, llmtest.Turn{Text: "answer after completion"})
	e := startSetup(t, script, func(home, ws string) {
		dir := filepath.Join(ws, ".claude", "commands")
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "deploy-docs.md"), []byte("Deploy the docs.\n"), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "deploy-site.md"), []byte("Deploy the site.\n"), 0o644))
	}, "", "--plain")
	e.waitFor("/help for commands")

	// one match: completed, Enter runs it
	e.keys("-l", "/he")
	e.keys("Tab")
	e.poll("completed /help", func() bool { return e.linesEndingWith("> /help") > 0 })
	e.keys("Enter")
	e.waitFor("list the commands and keys")

	// several custom matches: listed, the word grows to their common prefix
	e.keys("-l", "/dep")
	e.keys("Tab")
	e.waitFor("/deploy-docs", "/deploy-site")
	e.poll("common prefix", func() bool { return e.linesEndingWith("> /deploy-") > 0 })
	e.keys("-l", "s")
	e.keys("Tab")
	e.poll("completed /deploy-site", func() bool { return e.linesEndingWith("> /deploy-site") > 0 })
	e.keys("C-u")

	// Ctrl+C at the prompt asks for a second press; a run afterwards works
	e.keys("-l", "half typed")
	e.keys("C-c")
	e.waitFor("(Ctrl+C again or /exit to quit)")
	e.typeLine("hello")
	e.waitFor("answer after completion")

	// Ctrl+D on an empty line quits
	e.poll("prompt", func() bool { return strings.HasSuffix(strings.TrimRight(e.screen(), " \n"), ">") })
	e.keys("C-d")
	e.waitFor("EXIT=0")
	require.NotContains(t, e.screen(), "half typed\n> hello", "Ctrl+C drops the half-typed line")
}

// After the editor's prompt the terminal is in cooked mode again: an
// approval reads its answer as a typed line, and the prompt comes back.
func TestE2EPlainApprovalAfterEditedPrompt(t *testing.T) {
	script := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"p.txt","content":"plain\n"}`}}},
		llmtest.Turn{Text: "written"})
	e := start(t, script, "", "--plain")
	e.waitFor("/help for commands")
	e.typeLine("write it")
	e.waitFor("Allow? [y]es/[s]ession/[a]lways/[n]o")
	e.typeLine("y")
	e.waitFor("written")
	data, err := os.ReadFile(filepath.Join(e.ws, "p.txt"))
	require.NoError(t, err)
	require.Equal(t, "plain\n", string(data))
	e.keys("-l", "/exi")
	e.keys("Tab", "Enter")
	e.waitFor("EXIT=0")
}

// A line typed during a run (cooked mode) is queued and run when the run
// ends; the editor's prompt then comes back.
func TestE2EPlainTypeAheadThenEditedPrompt(t *testing.T) {
	script := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "run_command", Args: `{"command":"sleep 3"}`}}},
		llmtest.Turn{Text: "slept"})
	e := start(t, script, "", "--plain")
	e.waitFor("/help for commands")
	e.typeLine("sleep a while")
	e.waitFor("Allow? [y]es/[s]ession/[a]lways/[n]o")
	e.typeLine("y")
	e.typeLine("/help")
	e.waitFor("queued: /help")
	e.waitFor("slept", "list the commands and keys")
	e.keys("-l", "/exi")
	e.keys("Tab")
	e.poll("completed /exit", func() bool { return e.linesEndingWith("> /exit") > 0 })
	e.keys("Enter")
	e.waitFor("EXIT=0")
}
