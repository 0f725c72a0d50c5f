package tui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/zelvior/aidex/internal/ralph"
)

// View draws the live part of the screen: the streaming answer's tail,
// running tool cards, an approval prompt or picker, the completion menu,
// the input and the status line. Finished output is already in the
// scrollback (inline) or the transcript (fullscreen).
func (m *model) View() tea.View {
	var v tea.View
	v.AltScreen = m.o.Fullscreen
	if m.quitting {
		return v
	}
	if m.tv != nil && m.ask == nil {
		// The split view uses the alternate screen while it is open; the
		// chat's output waits (flushPrints) and reaches the scrollback
		// when the view closes.
		v.AltScreen = true
		v.SetContent(m.tasksScreen())
		return v
	}
	bottom, cursorRow := m.bottom()
	bottomLines := strings.Count(bottom, "\n") + 1
	room := m.height - bottomLines
	var top []string
	if m.o.Fullscreen {
		top = m.transcriptView(room)
	}
	liveLines := m.liveLines()
	if !m.o.Fullscreen && len(liveLines) > room {
		liveLines = liveLines[len(liveLines)-max(room, 0):]
	}
	if m.o.Fullscreen {
		top = append(top, liveLines...)
		if len(top) > room {
			top = top[len(top)-max(room, 0):]
		}
		for len(top) < room {
			top = append([]string{""}, top...)
		}
	} else {
		top = liveLines
	}
	content := bottom
	if len(top) > 0 {
		content = strings.Join(top, "\n") + "\n" + bottom
	}
	v.SetContent(content)
	if cursorRow >= 0 {
		if c := m.input.Cursor(); c != nil {
			c.Y += len(top) + cursorRow
			v.Cursor = c
		}
	}
	return v
}

// transcriptView is the fullscreen history scrolled by m.scroll lines.
func (m *model) transcriptView(room int) []string {
	t := m.transcript
	end := max(len(t)-m.scroll, 0)
	start := max(end-room, 0)
	return t[start:end]
}

// liveLines are the streaming reasoning, answer and running cards.
func (m *model) liveLines() []string {
	var parts []string
	if m.reasoning.Len() > 0 {
		parts = append(parts, renderReasoning(m.st, m.reasoning.String(), m.expandRsn || m.verbose, m.width, 3))
	}
	if m.live != "" {
		parts = append(parts, m.live)
	}
	for _, c := range m.cards {
		parts = append(parts, renderCard(m.st, c, spinFrames[m.spin%len(spinFrames)], m.width, m.verbose))
	}
	if len(parts) == 0 {
		return nil
	}
	return strings.Split(strings.Join(parts, "\n"), "\n")
}

// bottom draws what sits under the live output and the row of the input's
// first line in it (-1 when the input is hidden).
func (m *model) bottom() (string, int) {
	var above []string
	switch {
	case m.ask != nil:
		above = append(above, renderApproval(m.st, m.ask.req, m.typingReason, m.reasonBuf, m.width))
	case m.keyFor != "":
		above = append(above, fmt.Sprintf("API key for %s (stored in your global config file; Esc cancels): %s█",
			m.keyFor, strings.Repeat("•", len([]rune(m.keyBuf)))))
	case m.picker != nil:
		above = append(above, m.picker.render(m.st, m.width, max(3, min(12, m.height-8))))
	case m.planRes != nil:
		above = append(above, m.st.paint(m.st.bold, fmt.Sprintf("Save these %d tasks to %s? [y] yes  [n] no (Esc)", len(m.planRes.Tasks), ralph.FileName)))
	}
	status := renderStatus(m.st, m.status(), m.width)
	hideInput := m.ask != nil || m.keyFor != "" || m.picker != nil || m.planRes != nil
	var b strings.Builder
	row := -1
	lines := 0
	for _, a := range above {
		b.WriteString(a)
		b.WriteByte('\n')
		lines += strings.Count(a, "\n") + 1
	}
	if !hideInput {
		sep := m.st.paint(m.st.faint, strings.Repeat("─", max(m.width, 1)))
		b.WriteString(sep + "\n")
		lines++
		row = lines
		b.WriteString(m.input.View())
		b.WriteByte('\n')
		for i, it := range m.menu {
			line := "  " + it.label
			if i == m.menuSel {
				line = m.st.paint(m.st.cyan, "› ") + it.label
			}
			b.WriteString(truncateLine(line, m.width) + "\n")
		}
	}
	b.WriteString(status)
	return b.String(), row
}

func (m *model) status() statusInfo {
	st := statusInfo{Mode: "", Tokens: m.tokens, CostUSD: m.cost, ContextPct: m.ctxPct,
		TodosDone: m.todosDone, TodosAll: m.todosAll, Note: m.note}
	if m.ctrl != nil {
		rt := m.ctrl.Runtime()
		st.Provider, st.Model, st.Mode = rt.Provider.Name, rt.Model, m.ctrl.Mode()
		st.Pending = m.ctrl.PendingContext()
	} else {
		st.Provider, st.Model, st.Mode = "no provider", "-", "setup"
	}
	if st.Note == "" && m.rl.running {
		st.Note = "Ralph loop running"
		if m.rl.current != "" {
			st.Note += " on " + m.rl.current
		}
		if m.tv == nil {
			st.Note += " (/tasks shows it)"
		}
	}
	if m.running || m.busy {
		st.Working = true
		st.Spin = spinFrames[m.spin%len(spinFrames)]
		if !m.runStart.IsZero() && m.running {
			st.Elapsed = time.Since(m.runStart).Truncate(time.Second)
		}
	}
	return st
}
