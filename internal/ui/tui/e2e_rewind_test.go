package tui_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// TestE2ERewindPicker: the model writes a file; /rewind opens a picker of
// the checkpoints, then of the scope; "code and conversation" deletes the
// file (new since the checkpoint), marks the cut in the scrollback and
// puts the prompt back into the input; sent again, the model gets a
// conversation without the rewound exchange.
func TestE2ERewindPicker(t *testing.T) {
	script := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"notes.txt","content":"one\n"}`}}},
		llmtest.Turn{Text: "Wrote notes.txt."},
		llmtest.Turn{Text: "Second try answered."})
	e := start(t, script, "", "--permission-mode", "auto-edit")
	e.waitFor("fake/scripted-a")
	e.typeLine("create the notes")
	e.waitFor("Wrote notes.txt.")
	require.FileExists(t, filepath.Join(e.ws, "notes.txt"))

	e.typeLine("/rewind")
	e.waitFor("Rewind to before which prompt?", "1 file  create the notes")
	e.keys("Enter")
	e.waitFor("restore what?", "code and conversation", "code only", "conversation only")
	e.keys("Enter")
	s := e.waitFor("── rewound to before: create the notes ──", "deleted notes.txt (new since the checkpoint)", "to undo this")
	require.NotContains(t, s, "error:")
	_, err := os.Stat(filepath.Join(e.ws, "notes.txt"))
	require.True(t, os.IsNotExist(err), "notes.txt was new since the checkpoint")
	e.poll("the prompt back in the input (under its first echo)", func() bool {
		return count(e.screen(), "› create the notes") == 2 && strings.Contains(e.statusLine(), "conversation rewound")
	})

	e.keys("Enter")
	e.waitFor("Second try answered.")
	reqs := script.Requests()
	last := string(reqs[len(reqs)-1])
	require.Equal(t, 1, strings.Count(last, "create the notes"), "the rewound exchange is gone from the conversation: %s", last)
	require.NotContains(t, last, "Wrote notes.txt.")
}
