package tui_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// TestE2EQueuedMessages types two messages while a run goes on: they are
// shown as queued, Esc takes them back into the input (the run goes on),
// Enter queues them again and they are sent when the run ends.
func TestE2EQueuedMessages(t *testing.T) {
	script := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "run_command", Args: `{"command":"while [ ! -e release ]; do sleep 0.05; done"}`}}},
		llmtest.Turn{Text: "First answer."},
		llmtest.Turn{Text: "Queued answer."})
	e := start(t, script, "", "--permission-mode", "yolo")
	e.waitFor("fake/scripted-a")
	e.typeLine("wait for the release")
	e.waitFor("while [ ! -e release ]")
	e.typeLine("add the tests")
	e.typeLine("and the docs")
	e.waitFor("queued: add the tests", "queued: and the docs · Esc edits")
	require.Contains(t, e.statusLine(), "Esc edits the queue", "with messages queued, Esc does not stop the run")
	e.keys("Escape")
	s := e.waitFor("queued messages back in the input")
	require.NotContains(t, s, "queued: add the tests", "the queued lines are gone from the screen")
	require.NotContains(t, s, "stopped", "the first Esc does not stop the run")
	e.keys("Enter")
	e.waitFor("queued: add the tests")
	require.NoError(t, os.WriteFile(filepath.Join(e.ws, "release"), nil, 0o600))
	s = e.waitFor("First answer.", "Queued answer.")
	require.Less(t, strings.Index(s, "First answer."), strings.LastIndex(s, "› add the tests"), "the queued message goes out after the run")
	reqs := script.Requests()
	require.Len(t, reqs, 3)
	require.Contains(t, string(reqs[2]), `add the tests\nand the docs`, "the edited queue is sent as one message")
	e.poll("the runs' end", func() bool { return !strings.Contains(e.statusLine(), "Esc") })
	require.NotContains(t, e.statusLine(), "queued messages back", "the note ends with the run it was about")
}
