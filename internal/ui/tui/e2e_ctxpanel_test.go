package tui_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// F2 opens the context panel over the chat (model, usage, the
// workspace's file tree) and F2 closes it again (issue 36 item 12).
func TestE2EContextPanel(t *testing.T) {
	e := start(t, llmtest.NewScript(t), "")
	require.NoError(t, os.MkdirAll(filepath.Join(e.ws, "pkg"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(e.ws, "notes.md"), []byte("x"), 0o644))
	e.waitFor("fake/scripted-a")
	e.keys("F2")
	e.waitFor("Context", "model      fake/scripted-a", "Files", "▸ pkg/", "notes.md", "F2 or Esc back to chat")
	e.keys("F2")
	e.poll("the panel closed", func() bool { return !strings.Contains(e.screen(), "F2 or Esc back to chat") })
}
