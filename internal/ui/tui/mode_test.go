package tui

import (
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/stretchr/testify/require"
)

// /mode with no argument opens a picker of the permission modes (the
// current one chosen); picking one sets it.
func TestModeWithoutArgumentOpensAPicker(t *testing.T) {
	h := newHarness(t)
	h.tm.Type("/mode")
	h.tm.Send(enter())
	h.waitFor(t, "Permission mode (current: ask)", "auto-edit", "file changes in the workspace run too")
	h.tm.Send(tea.KeyPressMsg{Code: tea.KeyDown})
	h.tm.Send(enter())
	h.waitFor(t, "permission mode: auto-edit")
	require.NoError(t, h.tm.Quit())
	h.tm.WaitFinished(t)
	require.Equal(t, "auto-edit", h.ctrl.Mode())
}
