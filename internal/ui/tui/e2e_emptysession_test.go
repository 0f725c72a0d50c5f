package tui_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// The terminal UI opened and quit without a message leaves `aidex -c` on
// the real conversation, and `aidex sessions list` shows only that one
// (the binary, in tmux).
func TestE2EQuitWithoutMessageKeepsContinueOnTheConversation(t *testing.T) {
	script := llmtest.NewScript(t, llmtest.Turn{Text: "The bug is in parse."}, llmtest.Turn{Text: "Fixed."})
	e := startSetup(t, script, func(home, ws string) {
		cmd := exec.Command(aidexBin, "-w", ws, "-p", "find the bug")
		cmd.Env = []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, "config"),
			"XDG_DATA_HOME=" + filepath.Join(home, "data"), "XDG_STATE_HOME=" + filepath.Join(home, "state"),
			"XDG_CACHE_HOME=" + filepath.Join(home, "cache")}
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, string(out))
	}, "")
	e.waitFor("fake/scripted-a", "ask")
	e.typeLine("/exit")
	e.waitFor("EXIT=0")

	list := e.aidex("sessions", "list")
	require.Equal(t, 2, strings.Count(list, "\n"), "sessions list shows more than the conversation:\n%s", list)
	require.Contains(t, list, "find the bug")
	e.aidex("-c", "-p", "fix it")
	last := string(script.Requests()[len(script.Requests())-1])
	for _, want := range []string{"find the bug", "The bug is in parse.", "fix it"} {
		require.Contains(t, last, want, "aidex -c resumed the session the terminal UI left empty")
	}
}
