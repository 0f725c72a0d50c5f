package tui

import (
	"bytes"
	"io"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"
	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// iTerm is the environment of an iTerm2 terminal (OSC 9 notifications).
func iTerm(k string) string {
	if k == "TERM_PROGRAM" {
		return "iTerm.app"
	}
	return ""
}

func TestApprovalRingsTheTerminal(t *testing.T) {
	h := newHarnessWith(t, Options{Version: "test", Getenv: iTerm, NotifyAfter: time.Hour},
		llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"a.txt","content":"A\n"}`}}},
		llmtest.Turn{Text: "written"})
	h.tm.Type("write a")
	h.tm.Send(enter())
	h.waitFor(t, "\x1b]9;aidex: approval needed: write_file\a")
	h.answer(tea.KeyPressMsg{Code: 'y', Text: "y"})
	var seen []byte
	teatest.WaitFor(t, h.tm.Output(), func(b []byte) bool {
		seen = b
		return bytes.Contains(b, []byte("written"))
	}, teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
	require.NoError(t, h.tm.Quit())
	rest, err := io.ReadAll(h.tm.FinalOutput(t, teatest.WithFinalTimeout(5*time.Second)))
	require.NoError(t, err)
	require.NotContains(t, string(seen)+string(rest), "finished after", "a run shorter than NotifyAfter ends silently")
}

func TestLongRunEndRingsTheTerminal(t *testing.T) {
	h := newHarnessWith(t, Options{Version: "test", Getenv: iTerm, NotifyAfter: time.Nanosecond},
		llmtest.Turn{Text: "all done"})
	h.tm.Type("go")
	h.tm.Send(enter())
	h.waitFor(t, "\x1b]9;aidex: finished after 0s; waiting for you\a")
	require.NoError(t, h.tm.Quit())
}
