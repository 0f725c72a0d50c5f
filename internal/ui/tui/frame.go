package tui

import (
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

// settleDelay is how long a shrinking inline frame keeps its height (the
// freed rows blank) before it shrinks; several of Bubble Tea's frames
// (30 a second) pass meanwhile.
const settleDelay = 120 * time.Millisecond

// settleMsg ends the hold of generation gen (see frameHold).
type settleMsg struct{ gen int }

// frameHold keeps the inline frame from shrinking in one step.
//
// Bubble Tea redraws a frame whose height changed from the frame's top
// row, which it finds by moving the cursor up from where the last frame
// left it; when the frame shrinks, that distance is capped at the new
// height, so the redraw starts too low and the old frame's top rows
// (a picker's header, a running tool card, an approval box) stay in the
// scrollback. So a shrinking frame is drawn first at its old height, the
// freed rows blank and the cursor in the content (parked on its last line
// when the input is hidden), and shrinks settleDelay later if no frame
// drawn meanwhile had its cursor below the content's last row: the
// terminal's cursor is then inside the smaller frame and the redraw
// starts at its top. Otherwise the hold goes on for another settleDelay.
type frameHold struct {
	height  int  // the height of the frame drawn (0 before the first)
	holding bool // the frame is taller than its content
	lowest  int  // the lowest cursor row drawn while holding
	gen     int  // the settleMsg generation that may end the hold
	release bool // that settleMsg arrived
}

// plan decides the frame for content (natural height and cursor) and
// returns the command that ends a hold (nil when none is needed).
func (f *frameHold) plan(content string, cur *tea.Cursor, maxHeight int) tea.Cmd {
	h := strings.Count(content, "\n") + 1
	row := h - 1
	if cur != nil {
		row = cur.Y
	}
	f.height = min(f.height, maxHeight)
	switch {
	case h >= f.height || f.height == 0 || (f.release && f.lowest <= h-1):
		*f = frameHold{height: h, gen: f.gen}
		return nil
	case f.holding && !f.release:
		f.lowest = max(f.lowest, row)
		return nil
	}
	f.holding, f.release, f.lowest = true, false, row
	f.gen++
	gen := f.gen
	return tea.Tick(settleDelay, func(time.Time) tea.Msg { return settleMsg{gen: gen} })
}

// settled ends the hold of msg's generation: the next frame shrinks.
func (f *frameHold) settled(msg settleMsg) {
	if f.holding && msg.gen == f.gen {
		f.release = true
	}
}

// apply pads content to the held height with blank rows and, while
// holding, puts the cursor inside the content: where it is, or parked at
// the end of the content's last line (at most width-1).
func (f *frameHold) apply(content string, cur *tea.Cursor, width int) (string, *tea.Cursor) {
	h := strings.Count(content, "\n") + 1
	if !f.holding || h >= f.height {
		return content, cur
	}
	if cur == nil {
		last := content[strings.LastIndexByte(content, '\n')+1:]
		cur = tea.NewCursor(min(lipgloss.Width(last), max(width-1, 0)), h-1)
		cur.Blink = false
	}
	return content + strings.Repeat("\n", f.height-h), cur
}
