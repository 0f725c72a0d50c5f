package tui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// gateCall is a shell tool call that runs until the file "release"
// exists in the workspace: a run that lasts exactly as long as the test
// wants.
var gateCall = llmtest.Call{Name: "run_command", Args: `{"command":"while [ ! -e release ]; do sleep 0.05; done"}`}

func TestMessagesTypedDuringARunAreQueuedAndSentInOrder(t *testing.T) {
	h := newHarness(t,
		llmtest.Turn{Calls: []llmtest.Call{gateCall}},
		llmtest.Turn{Text: "answer one"},
		llmtest.Turn{Text: "answer two"},
		llmtest.Turn{Text: "answer three"})
	require.NoError(t, h.ctrl.SetMode(context.Background(), "yolo"))
	h.tm.Type("first")
	h.tm.Send(enter())
	h.waitFor(t, "while [ ! -e release ]")
	h.tm.Type("second")
	h.tm.Send(enter())
	h.tm.Type("/cost")
	h.tm.Send(enter())
	h.waitFor(t, "queued: second", "queued: /cost · Esc edits")
	require.NoError(t, os.WriteFile(filepath.Join(h.ws, "release"), nil, 0o600))
	h.waitFor(t, "answer one", "answer two", "cache write")
	require.NoError(t, h.tm.Quit())
	fm := h.tm.FinalModel(t).(*model)
	require.Empty(t, fm.turn.queued)
	reqs := h.script.Requests()
	require.Len(t, reqs, 3, "the first run (two requests), then the queued prompt; /cost is a command")
	require.Contains(t, string(reqs[2]), "second")
}

func TestEscTakesQueuedMessagesBackThenStops(t *testing.T) {
	h := newHarness(t, llmtest.Turn{Text: "partial", Hang: true})
	h.tm.Type("first")
	h.tm.Send(enter())
	<-h.script.Started
	h.waitFor(t, "partial")
	h.tm.Type("second")
	h.tm.Send(enter())
	h.tm.Type("third")
	h.tm.Send(enter())
	h.waitFor(t, "queued: third · Esc edits")
	h.tm.Send(tea.KeyPressMsg{Code: tea.KeyEscape})
	h.waitFor(t, "queued messages back in the input")
	h.tm.Send(tea.KeyPressMsg{Code: tea.KeyEscape})
	h.waitFor(t, "stopped; the partial answer is kept")
	require.NoError(t, h.tm.Quit())
	fm := h.tm.FinalModel(t).(*model)
	require.Empty(t, fm.turn.queued)
	require.Equal(t, "second\nthird", fm.input.Value(), "the queued messages wait in the input for editing")
	require.Len(t, h.script.Requests(), 1, "nothing queued was sent")
	require.False(t, strings.Contains(string(h.script.Requests()[0]), "second"))
}
