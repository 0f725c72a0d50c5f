package tui_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// Typing at an approval card does not answer it (issue 30, item 2): the
// words typed as the card appears — a word holding y, a slash command, a
// word starting with n — neither approve nor deny the command; they stay
// in the input box for the next message, and a card key pressed on its
// own answers.
func TestE2ETypeAheadNeverAnswersTheCard(t *testing.T) {
	script := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "run_command", Args: `{"command":"touch made-by-test"}`}}},
		llmtest.Turn{Text: "Ran it."})
	e := start(t, script, "")
	captureOnFailure(t, e, "item2-failed.txt")
	e.waitFor("fake/scripted-a")
	e.typeLine("make the file")
	e.keys("-l", "yesterday today /model nope")
	e.waitFor("Allow run_command?")
	time.Sleep(time.Second) // the typed keys have all arrived
	e.keys("Enter")         // right after typing: not an answer
	time.Sleep(500 * time.Millisecond)
	s := e.screen()
	saveCapture(t, "item2-typed-at-the-card.txt", e.scrollback())
	require.Contains(t, s, "Allow run_command?", "the card still waits")
	require.NotContains(t, s, "Reason for the model", "no denial reason field was opened")
	require.Contains(t, s, "yesterday today /model nope · kept for your next message")
	_, err := os.Stat(filepath.Join(e.ws, "made-by-test"))
	require.True(t, os.IsNotExist(err), "typing did not approve the command")

	e.answer("1")
	e.waitFor("Ran it.")
	s = e.screen()
	saveCapture(t, "item2-answered-with-1.txt", e.scrollback())
	require.Contains(t, s, "› yesterday today /model nope", "the typed text is in the input box for the next message")
	_, err = os.Stat(filepath.Join(e.ws, "made-by-test"))
	require.NoError(t, err, "1 pressed on its own approved the command")
}

// Ctrl+C (issue 30, item 6): during a run the first press stops the run;
// on the idle prompt the first shows a hint that goes away when its
// window closes, and two presses quit.
func TestE2ECtrlCStopsTheRunThenQuits(t *testing.T) {
	script := llmtest.NewScript(t, llmtest.Turn{Text: "A partial answer.\n\nMore", Hang: true})
	e := start(t, script, "")
	captureOnFailure(t, e, "item6-failed.txt")
	e.waitFor("fake/scripted-a")
	e.typeLine("tell me a long story")
	e.waitFor("A partial answer.")
	e.keys("C-c")
	time.Sleep(time.Second)
	saveCapture(t, "item6-ctrl-c-during-a-run.txt", e.scrollback())
	e.waitFor("stopped; the partial answer is kept")
	require.NotContains(t, e.screen(), "EXIT=", "the first Ctrl+C of a run does not quit")
	require.NotContains(t, e.statusLine(), "again to quit")

	e.keys("C-c")
	e.waitFor("Ctrl+C again to quit")
	saveCapture(t, "item6-hint.txt", e.scrollback())
	e.poll("the hint to go away", func() bool { return !strings.Contains(e.screen(), "again to quit") })
	saveCapture(t, "item6-hint-gone.txt", e.scrollback())
	require.NotContains(t, e.screen(), "EXIT=")

	e.keys("C-c")
	e.waitFor("Ctrl+C again to quit")
	e.keys("C-c")
	e.waitFor("EXIT=0")
	saveCapture(t, "item6-quit.txt", e.scrollback())
}
