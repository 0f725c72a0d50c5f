package tui

import (
	"context"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/stretchr/testify/require"
)

// A shrinking frame keeps its height, blank rows under the content and
// the cursor inside the content, until its settleMsg: then it shrinks,
// unless a frame drawn meanwhile had its cursor lower than the content's
// last row.
func TestFrameHoldShrinksInTwoSteps(t *testing.T) {
	var f frameHold
	require.Nil(t, f.plan("a\nb\nc\nd\ne", nil, 30), "the first frame is drawn as it is")
	require.Nil(t, f.plan("a\nb\nc\nd\ne\nf", nil, 30), "a growing frame is drawn as it is")

	cmd := f.plan("x\ny\nstatus", nil, 30)
	require.NotNil(t, cmd, "a shrink waits for the settle tick")
	content, cur := f.apply("x\ny\nstatus", nil, 80)
	require.Equal(t, "x\ny\nstatus\n\n\n", content, "the frame keeps its six rows")
	require.Equal(t, tea.Position{X: len("status"), Y: 2}, cur.Position, "the cursor is parked on the content's last line")
	require.Nil(t, f.plan("x\ny\nstatus", nil, 30), "a held frame arms no second tick")

	f.settled(settleMsg{gen: f.gen - 1})
	require.False(t, f.release, "a stale tick does not end the hold")
	f.settled(cmd().(settleMsg))
	cmd = f.plan("status", nil, 30)
	require.NotNil(t, cmd, "a cursor drawn on row 2 is below a one-row frame: the hold goes on")
	content, _ = f.apply("status", nil, 80)
	require.Equal(t, 6, strings.Count(content, "\n")+1)

	f.settled(cmd().(settleMsg))
	require.Nil(t, f.plan("status", nil, 30))
	content, cur = f.apply("status", tea.NewCursor(2, 0), 80)
	require.Equal(t, "status", content, "settled: the frame shrinks")
	require.Equal(t, 0, cur.Y)
}

// A frame never holds more rows than the screen has.
func TestFrameHoldCapsAtTheScreen(t *testing.T) {
	var f frameHold
	f.plan(strings.Repeat("l\n", 20)+"s", nil, 30)
	require.NotNil(t, f.plan("s", nil, 10))
	content, _ := f.apply("s", nil, 80)
	require.Equal(t, 10, strings.Count(content, "\n")+1)
}

// The notes about a run or job in progress go when it ends; others stay.
func TestStatusWorkEndedDropsRunNotes(t *testing.T) {
	s := statusModel{st: newStyles(false), width: 200}
	for _, n := range []string{noteStopping, "busy: wait for the answer, or press Esc to stop it"} {
		s, _ = s.Update(noteMsg(n))
		require.NotContains(t, s.workEnded().View(statusInfo{}), n)
	}
	s, _ = s.Update(noteMsg("copied 3 characters (OSC 52)"))
	require.Contains(t, s.workEnded().View(statusInfo{}), "copied 3 characters")
}

// Inline, no frame is drawn before the terminal's size is known: one
// drawn at a guessed width on the screen's top row stayed in tmux's
// scrollback when the size came (the first redraw erases from the
// top-left corner).
func TestNoInlineFrameBeforeTheSize(t *testing.T) {
	m := newModel(context.Background(), Options{}, nil, nil, newQueue())
	require.Empty(t, m.View().Content)
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	require.Contains(t, m.View().Content, "›")
}
