package tui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/zelvior/aidex/internal/ralph"
	"github.com/zelvior/aidex/internal/ui/commands"
)

// tasksView is the Ralph split view's state: the task list (reloaded from
// ralph_tasks.json on every change), the selected row, and the title
// being typed after `a`.
type tasksView struct {
	snap   ralph.Snapshot
	sel    int
	adding bool
	buf    string
}

// ralphLoop is the Ralph loop started from this UI and the transcripts of
// the tasks it ran, by task id (kept after the view closes).
type ralphLoop struct {
	running  bool
	stopping bool
	current  string
	cancel   context.CancelFunc
	done     chan struct{}
	logs     map[string]*commands.RalphLog
}

func (l *ralphLoop) log(id string) *commands.RalphLog {
	if l.logs == nil {
		l.logs = map[string]*commands.RalphLog{}
	}
	if l.logs[id] == nil {
		l.logs[id] = &commands.RalphLog{}
	}
	return l.logs[id]
}

// taskEditedMsg is the end of $EDITOR on a task's JSON.
type taskEditedMsg struct {
	id, path string
	before   []byte
	err      error
}

// tasksKeysHelp is the split view's key line.
const tasksKeysHelp = "↑/↓ select · a add · e edit · r run the loop · s stop · Esc back to chat"

// openTasks opens the split view on the current task list.
func (m *model) openTasks() {
	if m.ctrl == nil {
		return
	}
	if m.tv == nil {
		m.tv = &tasksView{}
	}
	m.refreshTasks()
	if m.rl.current != "" {
		m.selectTask(m.rl.current)
	}
}

// leaveAltDelay is how long output waits after the split view closes: a
// few frames, so the renderer has left the alternate screen.
const leaveAltDelay = 120 * time.Millisecond

// closeTasks closes the split view; the output held while it was open is
// printed once the renderer is back on the main screen.
func (m *model) closeTasks() tea.Cmd {
	m.tv, m.holdPrints = nil, true
	return tea.Tick(leaveAltDelay, func(time.Time) tea.Msg { return resumePrintsMsg{} })
}

// refreshTasks reloads the task list, keeping the selected task.
func (m *model) refreshTasks() {
	if m.tv == nil || m.ctrl == nil {
		return
	}
	keep := m.selectedID()
	snap, err := m.ctrl.Ralph().Snapshot()
	if err != nil {
		m.note = err.Error()
		return
	}
	m.tv.snap = snap
	m.tv.sel = min(m.tv.sel, max(len(snap.Tasks)-1, 0))
	if keep != "" {
		m.selectTask(keep)
	}
}

func (m *model) selectedID() string {
	if m.tv == nil || m.tv.sel >= len(m.tv.snap.Tasks) {
		return ""
	}
	return m.tv.snap.Tasks[m.tv.sel].ID
}

func (m *model) selectTask(id string) {
	for i, t := range m.tv.snap.Tasks {
		if t.ID == id {
			m.tv.sel = i
			return
		}
	}
}

// tasksKey handles a key in the split view.
func (m *model) tasksKey(k tea.KeyPressMsg) tea.Cmd {
	tv := m.tv
	if tv.adding {
		switch k.String() {
		case "esc":
			tv.adding, tv.buf = false, ""
		case "enter":
			title := strings.TrimSpace(tv.buf)
			tv.adding, tv.buf = false, ""
			if title != "" {
				return m.addTask(title)
			}
		case "backspace":
			if r := []rune(tv.buf); len(r) > 0 {
				tv.buf = string(r[:len(r)-1])
			}
		default:
			tv.buf += k.Text
		}
		return nil
	}
	switch k.String() {
	case "esc", "q":
		return m.closeTasks()
	case "up", "k":
		tv.sel = max(tv.sel-1, 0)
	case "down", "j":
		tv.sel = min(tv.sel+1, max(len(tv.snap.Tasks)-1, 0))
	case "a":
		tv.adding, tv.buf = true, ""
	case "e":
		if id := m.selectedID(); id != "" {
			return m.openTaskEditor(id)
		}
	case "r":
		return m.startRalph()
	case "s":
		m.stopRalph()
	}
	return nil
}

func (m *model) addTask(title string) tea.Cmd {
	ctrl := m.ctrl
	return m.runJob(func(ctx context.Context) jobDoneMsg {
		added, err := ctrl.Ralph().Add(ctx, ralph.Task{Title: title})
		return jobDoneMsg{err: err, then: func(m *model) tea.Cmd {
			if err == nil {
				m.note = fmt.Sprintf("added %s", added[0].ID)
				m.refreshTasks()
				if m.tv != nil {
					m.selectTask(added[0].ID)
				}
			}
			return nil
		}}
	})
}

// startRalph starts the loop over the pending tasks; its events go to the
// tasks' transcripts.
func (m *model) startRalph() tea.Cmd {
	if m.ctrl == nil {
		return nil
	}
	if m.rl.running {
		m.note = "the Ralph loop is already running (s stops it)"
		return nil
	}
	ctx, cancel := context.WithCancel(m.ctx)
	wait, err := m.ctrl.StartRalph(ctx, m.q.emitRalph)
	if err != nil {
		cancel()
		m.note = err.Error()
		return nil
	}
	m.note = "Ralph loop started"
	if n := m.ctrl.RalphNotice(); n != "" {
		m.commit(m.st.paint(m.st.yellow, "Ralph: "+n))
		m.note += fmt.Sprintf(" · %s mode: changes that need approval are denied", m.ctrl.Mode())
	}
	done := make(chan struct{})
	m.rl.running, m.rl.stopping, m.rl.cancel, m.rl.done, m.rl.current = true, false, cancel, done, ""
	q := m.q
	go func() {
		sum, err := wait()
		cancel()
		q.push(item{ralphEnd: &ralphEnd{sum: sum, err: err}})
		close(done)
	}()
	return nil
}

// stopRalph asks the loop to stop after the current task.
func (m *model) stopRalph() {
	if !m.rl.running || m.ctrl == nil {
		m.note = "the Ralph loop is not running (r starts it)"
		return
	}
	if err := m.ctrl.Ralph().Stop(); err != nil && !errors.Is(err, ralph.ErrNotRunning) {
		m.note = err.Error()
		return
	}
	m.rl.stopping = true
	m.note = "stopping after the current task"
}

// shutdownRalph interrupts a running loop and waits for it (the task goes
// back to pending), when the UI quits.
func (m *model) shutdownRalph() {
	if m.rl.cancel == nil {
		return
	}
	m.rl.cancel()
	<-m.rl.done
}

// ralphEvent routes a loop event to its task's transcript.
func (m *model) ralphEvent(ev ralph.Event) tea.Cmd {
	if ev.TaskID != "" {
		m.rl.log(ev.TaskID).Add(ev)
	}
	switch ev.Type {
	case ralph.EventTaskStart:
		m.rl.current = ev.TaskID
		m.refreshTasks()
		if m.tv != nil {
			m.selectTask(ev.TaskID)
		}
	case ralph.EventTaskDone:
		m.rl.current = ""
		m.refreshTasks()
		if m.tv == nil {
			m.commit(m.st.paint(m.st.cyan, "Ralph: "+commands.RalphEventLine(ev)))
		}
	case ralph.EventFinished:
		line := commands.RalphEventLine(ev)
		m.commit(m.st.paint(m.st.cyan, line))
		if m.tv != nil {
			m.note = line
		}
		m.refreshTasks()
	}
	return nil
}

func (m *model) ralphEnded(e *ralphEnd) tea.Cmd {
	m.rl.running, m.rl.stopping, m.rl.cancel, m.rl.current = false, false, nil, ""
	if e.err != nil {
		m.commit(m.st.paint(m.st.red, "Ralph: "+e.err.Error()))
	}
	m.refreshTasks()
	return nil
}

// startPlan runs /plan GOAL: the planning run streams like a chat run (Esc
// stops it), then the proposed tasks are shown for review.
func (m *model) startPlan(goal string) {
	ctx, cancel := context.WithCancel(m.ctx)
	m.cancel, m.running, m.runStart, m.stopped, m.note = cancel, true, time.Now(), false, ""
	m.commit(m.st.paint(m.st.faint, "planning in plan mode (read-only tools) · Esc stops"))
	ctrl, q := m.ctrl, m.q
	go func() {
		res, err := ctrl.Plan(ctx, goal, q.emit)
		q.push(item{end: &runEnd{err: err, then: func(m *model) tea.Cmd {
			if err == nil && res != nil {
				var b bytes.Buffer
				commands.WriteProposal(&b, res)
				m.commit(strings.TrimRight(b.String(), "\n"))
				m.planRes = res
			}
			return nil
		}}})
	}()
}

// planKey answers the plan review: y saves the tasks, n or Esc drops them.
func (m *model) planKey(k tea.KeyPressMsg) tea.Cmd {
	res := m.planRes
	switch strings.ToLower(k.String()) {
	case "y", "enter":
		m.planRes = nil
		ctrl := m.ctrl
		return m.runJob(func(ctx context.Context) jobDoneMsg {
			saved, err := ctrl.SavePlan(ctx, res.Tasks)
			out := ""
			if err == nil {
				out = fmt.Sprintf("saved %d tasks to %s: /tasks shows them (r there runs the loop), /implement ID runs one here", len(saved), ralph.FileName)
			}
			return jobDoneMsg{out: out, err: err}
		})
	case "n", "esc":
		m.planRes = nil
		m.commit(m.st.paint(m.st.faint, "nothing saved"))
	}
	return nil
}

// openTaskEditor opens $VISUAL/$EDITOR (vi) on the task's JSON.
func (m *model) openTaskEditor(id string) tea.Cmd {
	t, err := m.ctrl.Ralph().Get(id)
	if err != nil {
		m.note = err.Error()
		return nil
	}
	f, err := os.CreateTemp("", "aidex-task-*.json")
	if err != nil {
		m.note = err.Error()
		return nil
	}
	before := commands.TaskJSON(t)
	_, _ = f.Write(before)
	_ = f.Close()
	parts := strings.Fields(m.editor())
	c := exec.Command(parts[0], append(parts[1:], f.Name())...)
	return tea.ExecProcess(c, func(err error) tea.Msg {
		return taskEditedMsg{id: t.ID, path: f.Name(), before: before, err: err}
	})
}

func (m *model) editor() string {
	getenv := m.o.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	for _, k := range []string{"VISUAL", "EDITOR"} {
		if e := strings.TrimSpace(getenv(k)); e != "" {
			return e
		}
	}
	return "vi"
}

// taskEdited applies the edited task JSON.
func (m *model) taskEdited(msg taskEditedMsg) tea.Cmd {
	defer os.Remove(msg.path)
	if msg.err != nil {
		m.note = "editor: " + msg.err.Error()
		return nil
	}
	data, err := os.ReadFile(msg.path)
	if err != nil {
		m.note = err.Error()
		return nil
	}
	if bytes.Equal(bytes.TrimSpace(data), bytes.TrimSpace(msg.before)) {
		m.note = "no changes"
		return nil
	}
	ctrl := m.ctrl
	return m.runJob(func(ctx context.Context) jobDoneMsg {
		t, err := ctrl.ApplyTaskJSON(ctx, msg.id, data)
		return jobDoneMsg{err: err, then: func(m *model) tea.Cmd {
			if err == nil {
				m.note = "updated " + t.ID
				m.refreshTasks()
			}
			return nil
		}}
	})
}

// tasksScreen draws the split view with the status line under it.
func (m *model) tasksScreen() string {
	var logLines []string
	if id := m.selectedID(); id != "" && m.rl.logs[id] != nil {
		logLines = m.rl.logs[id].Lines()
	}
	spin := spinFrames[m.spin%len(spinFrames)]
	body := renderTasks(m.st, m.tv, m.rl, logLines, spin, m.width, max(m.height-1, 8))
	return body + "\n" + renderStatus(m.st, m.status(), m.width)
}

// renderTasks draws the split view in width × height cells: a header with
// the counts and the loop's state, the task list (status, id, priority,
// title) on the left, the selected task's detail and live transcript on
// the right, and the keys (or the title being added) at the bottom.
func renderTasks(s styles, tv *tasksView, rl ralphLoop, logLines []string, spin string, width, height int) string {
	tasks := tv.snap.Tasks
	loop := "loop idle"
	switch {
	case rl.running && rl.stopping:
		loop = "loop stopping after " + orDash(rl.current)
	case rl.running:
		loop = "loop running " + orDash(rl.current)
	case tv.snap.Running:
		loop = "a loop runs in another process"
	}
	header := s.paint(s.bold, "Ralph tasks") + s.paint(s.faint, " · "+commands.CountsLine(tv.snap.Counts)+" · ") + s.paint(s.yellow, loop)
	lines := []string{truncateLine(header, width), s.paint(s.faint, strings.Repeat("─", width))}
	bodyH := max(height-4, 3)
	leftW := min(max(width*2/5, 24), 48)
	if width < 50 {
		leftW = width / 2
	}
	rightW := max(width-leftW-3, 1)
	left := taskRows(s, tasks, tv.sel, rl, spin, leftW, bodyH)
	right := taskDetail(s, tasks, tv.sel, logLines, rightW, bodyH)
	sep := s.paint(s.faint, " │ ")
	for i := 0; i < bodyH; i++ {
		l, r := "", ""
		if i < len(left) {
			l = left[i]
		}
		if i < len(right) {
			r = right[i]
		}
		pad := max(leftW-ansi.StringWidth(l), 0)
		lines = append(lines, strings.TrimRight(l+strings.Repeat(" ", pad)+sep+r, " "))
	}
	lines = append(lines, s.paint(s.faint, strings.Repeat("─", width)))
	if tv.adding {
		lines = append(lines, truncateLine("New task title: "+tv.buf+"█  "+s.paint(s.faint, "(Enter adds, Esc cancels)"), width))
	} else {
		lines = append(lines, truncateLine(s.paint(s.faint, tasksKeysHelp), width))
	}
	return strings.Join(lines, "\n")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// taskRows are the list's rows, scrolled so the selected one shows.
func taskRows(s styles, tasks []ralph.Task, sel int, rl ralphLoop, spin string, width, height int) []string {
	if len(tasks) == 0 {
		return []string{"no tasks yet:", "a adds one,", "/plan GOAL proposes some"}
	}
	start := max(0, sel-height+1)
	var out []string
	for i := start; i < len(tasks) && len(out) < height; i++ {
		t := tasks[i]
		mark := commands.StatusMark(t.Status)
		switch t.Status {
		case ralph.StatusDone:
			mark = s.paint(s.green, mark)
		case ralph.StatusFailed:
			mark = s.paint(s.red, mark)
		case ralph.StatusInProgress:
			if rl.running && rl.current == t.ID {
				mark = spin
			}
			mark = s.paint(s.yellow, mark)
		}
		cursor := "  "
		if i == sel {
			cursor = s.paint(s.cyan, "› ")
		}
		row := fmt.Sprintf("%s%s %s %s %s", cursor, mark, t.ID, s.paint(s.faint, string(t.Priority)), t.Title)
		if i == sel {
			row = s.paint(s.bold, row)
		}
		out = append(out, truncateLine(row, width))
	}
	return out
}

// taskDetail is the selected task's detail, then its transcript (the last
// lines that fit).
func taskDetail(s styles, tasks []ralph.Task, sel int, logLines []string, width, height int) []string {
	if sel >= len(tasks) {
		return nil
	}
	var detail []string
	for _, l := range strings.Split(strings.TrimRight(ralph.FormatTask(tasks[sel]), "\n"), "\n") {
		detail = append(detail, strings.Split(ansi.Wrap(l, width, ""), "\n")...)
	}
	var wrapped []string
	for _, l := range logLines {
		for _, w := range strings.Split(ansi.Wrap(l, width, ""), "\n") {
			wrapped = append(wrapped, truncateLine(w, width))
		}
	}
	// The transcript gets up to half the height; the detail the rest.
	maxDetail := height
	if len(wrapped) > 0 {
		maxDetail = height - 1 - min(len(wrapped), height/2)
	}
	if len(detail) > maxDetail {
		detail = append(detail[:max(maxDetail-1, 0)], s.paint(s.faint, "…"))
	}
	if len(wrapped) == 0 {
		return detail
	}
	out := append(detail, truncateLine(s.paint(s.faint, "── transcript "+strings.Repeat("─", max(width-14, 0))), width))
	if room := height - len(out); len(wrapped) > room {
		wrapped = wrapped[len(wrapped)-max(room, 0):]
	}
	return append(out, wrapped...)
}
