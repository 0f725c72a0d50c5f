package tui_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// `aidex --full` chooses the full-screen terminal UI (issue 23 item 22):
// the pane switches to the alternate screen, and /exit ends with 0.
func TestE2EFullFlagUsesAlternateScreen(t *testing.T) {
	e := start(t, llmtest.NewScript(t), "", "--full")
	e.waitFor("fake/scripted-a")
	e.poll("the alternate screen", func() bool {
		out, _ := exec.Command("tmux", "-L", e.socket, "display", "-p", "-t", "t", "#{alternate_on}").Output()
		return strings.TrimSpace(string(out)) == "1"
	})
	e.typeLine("/exit")
	e.waitFor("EXIT=0")
}
