package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/zelvior/aidex/internal/ui/format"
)

// Messages typed while a run or job goes on are queued (model.queued):
// shown dimmed above the input, sent one after another when the UI is
// free again (sendQueued), and taken back into the input by Esc
// (unqueue), after which a second Esc stops the run.

// sendQueued submits the first queued message when nothing runs and no
// overlay waits for the user.
func (m *turnCtl) sendQueued() tea.Cmd {
	if len(m.turn.queued) == 0 || m.ctrl == nil || m.turn.running || m.turn.busy || m.approval.active() ||
		m.keys != nil || m.picker != nil || m.tasks.planRes != nil || m.viewOpen() || m.quitting {
		return nil
	}
	text := m.turn.queued[0]
	m.turn.queued = m.turn.queued[1:]
	m.note("")
	return m.turn.submit(text)
}

// unqueue puts the queued messages back into the input, before what is
// typed there, one a line, for editing.
func (m *turnCtl) unqueue() {
	text := strings.Join(m.turn.queued, "\n")
	if cur := m.input.Value(); cur != "" {
		text += "\n" + cur
	}
	m.turn.queued = nil
	m.input.setValue(text)
}

// queuedView draws the queued messages, one line each, ending in a
// newline ("" when none is queued).
func (m *turnCtl) queuedView() string {
	var b strings.Builder
	for i, q := range m.turn.queued {
		line, hint := "queued: "+format.FirstLine(q, m.width), ""
		if i == len(m.turn.queued)-1 {
			hint = " · Esc edits"
		}
		line = truncateLine(line, m.width-len([]rune(hint))) + hint
		b.WriteString(m.st.paint(m.st.faint, line) + "\n")
	}
	return b.String()
}
