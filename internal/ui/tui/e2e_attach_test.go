package tui_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/loader/loadertest"
)

// TestE2EImageMentionAndPastedPathChips types @shot.png and pastes the
// path of an image outside the workspace (as a terminal pastes a file
// dropped on it): both show as chips above the input, and sending
// attaches both; the text-only scripted model gets the note instead of
// the pictures.
func TestE2EImageMentionAndPastedPathChips(t *testing.T) {
	script := llmtest.NewScript(t, llmtest.Turn{Text: "Two gradients."})
	e := start(t, script, "")
	e.waitFor("fake/scripted-a", "ask")
	require.NoError(t, os.WriteFile(filepath.Join(e.ws, "shot.png"), loadertest.PNG(t, 16, 16), 0o644))
	dropped := filepath.Join(t.TempDir(), "drop.png")
	require.NoError(t, os.WriteFile(dropped, loadertest.PNG(t, 8, 8), 0o644))

	e.keys("-l", "describe @shot.png ")
	e.waitFor("attach: [image shot.png]")
	out, err := exec.Command("tmux", "-L", e.socket, "set-buffer", "--", dropped).CombinedOutput()
	require.NoError(t, err, string(out))
	out, err = exec.Command("tmux", "-L", e.socket, "paste-buffer", "-p", "-t", "t").CombinedOutput()
	require.NoError(t, err, string(out))
	e.waitFor("attach: [image shot.png] [image drop.png]", "@"+dropped)
	e.keys("Enter")
	e.waitFor("attached: shot.png, "+dropped, "Two gradients.")
	s := e.screen()
	require.Contains(t, s, "this model cannot see images")
	reqs := script.Requests()
	require.NotEmpty(t, reqs)
	body := string(reqs[len(reqs)-1])
	require.True(t, strings.Contains(body, "Image shot.png") && strings.Contains(body, "Image drop.png"), "the request names both images")
}
