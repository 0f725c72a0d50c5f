package tui

import (
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/stretchr/testify/require"
)

// Ctrl+Q (ayder-cli's key) quits at once, with text in the input too.
func TestCtrlQQuits(t *testing.T) {
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	m := newClockModel(clk)
	m.input.setValue("draft")
	m.Update(tea.KeyPressMsg{Code: 'q', Mod: tea.ModCtrl})
	require.True(t, m.quitting)
}
