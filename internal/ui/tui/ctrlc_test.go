package tui

import (
	"context"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/agent"
)

func ctrlCKey() tea.KeyPressMsg { return tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl} }

// newClockModel is a model without a session on the fake clock clk.
func newClockModel(clk *fakeClock) *model {
	m := newModel(context.Background(), Options{Now: clk.now}, nil, nil, newQueue())
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	return m
}

// On an idle prompt the first Ctrl+C shows the hint, the second within
// quitWindow quits; the hint goes away when the window closes, and a
// Ctrl+C after that starts over.
func TestCtrlCIdleQuitsOnTheSecondPress(t *testing.T) {
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	m := newClockModel(clk)
	m.Update(ctrlCKey())
	require.False(t, m.quitting)
	require.Equal(t, "Ctrl+C again to quit", m.status.note)

	clk.t = clk.t.Add(quitWindow)
	m.Update(quitHintMsg{n: m.quitHint})
	require.Empty(t, m.status.note, "the hint disappears when its window closes")

	m.Update(ctrlCKey())
	require.False(t, m.quitting, "the window closed: this press starts over")
	clk.t = clk.t.Add(quitWindow / 2)
	m.Update(ctrlCKey())
	require.True(t, m.quitting)
}

// A stale hint tick (an older window) leaves a newer hint alone.
func TestCtrlCStaleHintTickKeepsTheNewHint(t *testing.T) {
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	m := newClockModel(clk)
	m.Update(ctrlCKey())
	old := m.quitHint
	m.input.setValue("draft")
	m.Update(ctrlCKey())
	require.Equal(t, "input cleared · Ctrl+C again to quit", m.status.note)
	m.Update(quitHintMsg{n: old})
	require.Equal(t, "input cleared · Ctrl+C again to quit", m.status.note)
}

// Text in the input is cleared first, also during a run.
func TestCtrlCClearsTheInputFirst(t *testing.T) {
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	m := newClockModel(clk)
	stopped := false
	m.turn.running, m.turn.cancel = true, func() { stopped = true }
	m.input.setValue("draft")
	m.Update(ctrlCKey())
	require.Empty(t, m.input.Value())
	require.False(t, stopped, "the first Ctrl+C only cleared the input")
	require.False(t, m.quitting)
}

// During a run the first Ctrl+C stops the run (a waiting approval is
// denied), and does not count toward quitting; on the idle prompt that
// follows, two more quit.
func TestCtrlCDuringARunStopsIt(t *testing.T) {
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	m := newClockModel(clk)
	stopped := false
	m.turn.running, m.turn.cancel = true, func() { stopped = true }
	r := &askReq{req: agent.ApprovalInfo{Tool: "run_command", Command: "make"}, reply: make(chan answer, 1)}
	m.item(item{ask: r})
	m.Update(ctrlCKey())
	require.True(t, stopped, "the first Ctrl+C stops the run")
	require.False(t, m.quitting)
	require.Equal(t, agent.AnswerDeny, (<-r.reply).d, "the waiting approval is denied")
	require.NotContains(t, m.status.note, "again to quit")

	m.turn.running, m.turn.cancel = false, nil // the run ended
	m.Update(ctrlCKey())
	require.False(t, m.quitting)
	m.Update(ctrlCKey())
	require.True(t, m.quitting)
}
