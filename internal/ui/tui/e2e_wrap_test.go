package tui_test

import (
	"os/exec"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// TestE2EHelpWrapsAtNarrowWidth resizes the terminal to 48 columns and
// checks that /help comes out in lines that fit (capture-pane -J joins
// the lines the terminal itself had to wrap) with every word whole.
func TestE2EHelpWrapsAtNarrowWidth(t *testing.T) {
	e := start(t, llmtest.NewScript(t), "")
	e.waitFor("fake/scripted-a")
	out, err := exec.Command("tmux", "-L", e.socket, "resize-window", "-t", "t", "-x", "48", "-y", "32").CombinedOutput()
	require.NoError(t, err, string(out))
	e.poll("the narrow width", func() bool {
		w, _ := exec.Command("tmux", "-L", e.socket, "display", "-p", "-t", "t", "#{pane_width}").Output()
		return strings.TrimSpace(string(w)) == "48"
	})
	e.typeLine("/help")
	s := e.waitFor("Ctrl+L", "back to chat")
	help := s[strings.LastIndex(s, "› /help"):]
	for _, l := range strings.Split(help, "\n") {
		require.LessOrEqual(t, utf8.RuneCountInString(strings.TrimRight(l, " ")), 48, "a line the terminal had to wrap: %q", l)
	}
	for _, w := range []string{"Shift+Enter/Alt+Enter/Ctrl+J", "permission", "(keeps", "approvals:"} {
		require.Contains(t, strings.Fields(help), w, "the word %q is whole", w)
	}
}
