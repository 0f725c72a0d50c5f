package tui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/zelvior/aidex/internal/ralph"
	"github.com/zelvior/aidex/internal/ui/format"
)

// screenCtl draws the model's frame: the live part, the overlay or input
// below it and the status line. It works on the model it belongs to
// (model.screen).
type screenCtl struct{ *model }

// View draws the live part of the screen: the stream's View (the
// streaming answer's tail, running tool cards; fullscreen, the
// transcript too), then an overlay (approval prompt, API key prompt,
// picker or plan review) or the input, then the status line. Finished
// output is already in the scrollback (inline) or the transcript
// (fullscreen). The Ralph split view replaces all of it while open.
func (m *model) View() tea.View {
	var v tea.View
	v.AltScreen = m.o.Fullscreen
	if m.quitting || (!m.sized && !m.o.Fullscreen) {
		// Inline, nothing is drawn before the terminal's size is known: a
		// frame drawn at a guessed width on the screen's top row was left
		// in the scrollback when the size came (the redraw erases from
		// the top-left corner, which makes tmux save the screen).
		return v
	}
	if m.cp != nil && !m.approval.active() {
		v.AltScreen = true
		v.SetContent(m.cp.View(m.st, m.ctxInfo(), m.width, max(m.height-1, 8)) + "\n" + m.status.View(m.screen.statusLine()))
		return v
	}
	if m.tasks.tv != nil && !m.approval.active() {
		// The split view uses the alternate screen while it is open; the
		// chat's output waits (flushPrints) and reaches the scrollback
		// when the view closes.
		v.AltScreen = true
		v.SetContent(m.tasks.tv.View(m.st, m.tasks.rl, m.spinFrame(), m.width, max(m.height-1, 8)) + "\n" + m.status.View(m.screen.statusLine()))
		return v
	}
	var content string
	var cursor *tea.Cursor
	if p := m.planned; p != nil {
		content, cursor = p.content, p.cursor // drawn by holdFrame just now
	} else {
		content, cursor = m.screen.frame()
	}
	m.planned = nil
	if !m.o.Fullscreen {
		content, cursor = m.hold.apply(content, cursor, m.width)
		if m.stream.prints%2 == 1 {
			// A print leaves the terminal's cursor at the frame's top
			// and Bubble Tea skips an unchanged frame, cursor move
			// included: an invisible difference after each print puts
			// the cursor back in the input.
			content += "\x1b[m"
		}
	}
	v.SetContent(content)
	v.Cursor = cursor
	return v
}

// frame draws the chat's live part (see View) and returns it with the
// input's cursor (nil when an overlay hides the input).
func (m screenCtl) frame() (string, *tea.Cursor) {
	m.frames++
	bottom, cursorRow := m.screen.bottom()
	rows := m.height
	if !m.o.Fullscreen {
		// An inline frame leaves the screen's top row alone: a terminal
		// (tmux among them) moves the whole screen into its scrollback
		// when a redraw clears it from the top-left corner.
		rows--
	}
	if lines := strings.Split(bottom, "\n"); len(lines) > rows {
		bottom = strings.Join(lines[len(lines)-rows:], "\n")
		cursorRow = -1
	}
	room := rows - (strings.Count(bottom, "\n") + 1)
	top := m.stream.View(m.spinFrame(), room)
	content := bottom
	if len(top) > 0 {
		content = strings.Join(top, "\n") + "\n" + bottom
	}
	if cursorRow >= 0 {
		if c := m.input.Cursor(); c != nil {
			c.Y += len(top) + cursorRow
			return content, c
		}
	}
	return content, nil
}

// holdFrame plans the next inline frame (see frameHold); the Ralph split
// view and fullscreen draw on the alternate screen and need no hold.
func (m screenCtl) holdFrame() tea.Cmd {
	m.planned = nil
	if m.o.Fullscreen || m.quitting || (m.viewOpen() && !m.approval.active()) {
		m.hold = frameHold{}
		return nil
	}
	content, cursor := m.screen.frame()
	m.planned = &plannedFrame{content: content, cursor: cursor}
	return m.hold.plan(content, cursor, m.height)
}

// plannedFrame is a frame drawn by holdFrame, kept for the View that
// follows the Update.
type plannedFrame struct {
	content string
	cursor  *tea.Cursor
}

// bottom draws what sits under the live output — an overlay or the
// input, then the status line — and the row of the input's first line in
// it (-1 when an overlay hides the input).
func (m screenCtl) bottom() (string, int) {
	status := m.status.View(m.screen.statusLine())
	if above := m.screen.overlay(); above != "" {
		if v := m.input.Value(); v != "" && m.approval.active() {
			// Type-ahead the card did not take waits in the input box.
			above += "\n" + m.st.paint(m.st.faint, truncateLine("› "+format.FirstLine(v, m.width)+" · kept for your next message · answer with 1-4", m.width))
		}
		return above + "\n" + status, -1
	}
	queued := m.turn.queuedView()
	return queued + m.input.View() + status, strings.Count(queued, "\n") + m.input.inputRow()
}

// overlay draws the open overlay that replaces the input ("" for none).
func (m screenCtl) overlay() string {
	switch {
	case m.approval.active():
		return m.approval.View()
	case m.turn.choosing != nil:
		return m.turn.chooseView()
	case m.keys != nil:
		return m.keys.View(m.width)
	case m.picker != nil:
		return m.picker.View(m.st, m.width, max(3, min(12, m.height-8)))
	case m.tasks.planRes != nil:
		return m.st.paint(m.st.bold, fmt.Sprintf("Save these %d tasks to %s? [y] yes  [n] no (Esc)", len(m.tasks.planRes.Tasks), ralph.FileName))
	}
	return ""
}

// statusLine is what the status line shows that the top-level model
// knows: the provider, model and mode, queued shell output, whether
// something works, and the Ralph loop's state as the note when no other
// is set (see statusModel.View).
func (m screenCtl) statusLine() statusInfo {
	var st statusInfo
	if m.ctrl != nil {
		rt := m.ctrl.Runtime()
		st.Provider, st.Model, st.Mode = rt.Provider.Name, rt.Model, m.ctrl.Mode()
		st.Multi = m.ctrl.MultiLabel()
		st.Pending = m.ctrl.PendingContext()
	} else {
		st.Provider, st.Model, st.Mode = "no provider", "-", "setup"
	}
	if m.tasks.rl.running {
		st.Note = "Ralph loop running"
		if m.tasks.rl.current != "" {
			st.Note += " on " + m.tasks.rl.current
		}
		if m.tasks.tv == nil {
			st.Note += " (/tasks shows it)"
		}
	}
	if m.turn.running || m.turn.busy {
		st.Working = true
		st.Spin = m.spinFrame()
		st.Queued = len(m.turn.queued) > 0
		if !m.turn.runStart.IsZero() && m.turn.running {
			st.Elapsed = time.Since(m.turn.runStart).Truncate(time.Second)
		}
	}
	return st
}
