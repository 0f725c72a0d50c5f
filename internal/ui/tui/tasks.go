package tui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/zelvior/aidex/internal/ralph"
	"github.com/zelvior/aidex/internal/ui/commands"
	"github.com/zelvior/aidex/internal/ui/termsafe"
)

// tasksView is the Ralph split view: the task list (reloaded from
// ralph_tasks.json on every change), the selected row, and the title
// being typed after a. What needs the session — adding, editing, running
// and stopping, closing the view — it asks of the top-level model
// (addTaskMsg, editTaskMsg, runLoopMsg, stopLoopMsg, closeTasksMsg).
type tasksView struct {
	outbox
	snap   ralph.Snapshot
	sel    int
	adding bool
	buf    string
}

// tasksKeysHelp is the split view's key line.
const tasksKeysHelp = "↑/↓ select · a add · e edit · r run the loop · s stop · Esc back to chat"

// Update handles a key; it returns nil once the view closed (Esc, q).
func (tv *tasksView) Update(msg tea.Msg) (*tasksView, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return tv, nil
	}
	if tv.adding {
		tv.titleKey(k)
		return tv, nil
	}
	switch k.String() {
	case "esc", "q":
		tv.request(closeTasksMsg{})
		return nil, nil
	case "up", "k":
		tv.sel = max(tv.sel-1, 0)
	case "down", "j":
		tv.sel = min(tv.sel+1, max(len(tv.snap.Tasks)-1, 0))
	case "a":
		tv.adding, tv.buf = true, ""
	case "e":
		if id := tv.selectedID(); id != "" {
			tv.request(editTaskMsg{id: id})
		}
	case "r":
		tv.request(runLoopMsg{})
	case "s":
		tv.request(stopLoopMsg{})
	}
	return tv, nil
}

// titleKey edits the title of the task being added: Enter adds it, Esc
// gives up.
func (tv *tasksView) titleKey(k tea.KeyPressMsg) {
	switch k.String() {
	case "esc":
		tv.cancelAdd()
	case "enter":
		title := strings.TrimSpace(tv.buf)
		tv.cancelAdd()
		if title != "" {
			tv.request(addTaskMsg{title: title})
		}
	default:
		tv.buf = editLine(tv.buf, k)
	}
}

// cancelAdd drops the title being typed.
func (tv *tasksView) cancelAdd() { tv.adding, tv.buf = false, "" }

// setSnapshot shows a new task list, keeping the selected task.
func (tv *tasksView) setSnapshot(snap ralph.Snapshot) {
	keep := tv.selectedID()
	tv.snap = snap
	tv.sel = min(tv.sel, max(len(snap.Tasks)-1, 0))
	if keep != "" {
		tv.selectTask(keep)
	}
}

// selectedID is the selected task's id ("" for none or a nil view).
func (tv *tasksView) selectedID() string {
	if tv == nil || tv.sel >= len(tv.snap.Tasks) {
		return ""
	}
	return tv.snap.Tasks[tv.sel].ID
}

// selectTask selects the task id, when listed.
func (tv *tasksView) selectTask(id string) {
	for i, t := range tv.snap.Tasks {
		if t.ID == id {
			tv.sel = i
			return
		}
	}
}

// View draws the view in width × height cells (renderTasks) with the
// selected task's transcript from rl.
func (tv *tasksView) View(s styles, rl ralphLoop, spin string, width, height int) string {
	var logLines []string
	if id := tv.selectedID(); id != "" && rl.logs[id] != nil {
		logLines = rl.logs[id].Lines()
	}
	return renderTasks(s, tv, rl, logLines, spin, width, height)
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
	lines := []string{truncateLine(header, width)}
	workers := workerRows(s, tv.snap.Workers, width, max(height-8, 0))
	lines = append(lines, workers...)
	lines = append(lines, s.paint(s.faint, strings.Repeat("─", width)))
	bodyH := max(height-4-len(workers), 3)
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

// workerRows are the rows of a run with several workers, one per worker
// (id, host, task or idle, last heartbeat), at most limit of them: none
// for a one-worker run.
func workerRows(s styles, ws []ralph.WorkerRow, width, limit int) []string {
	if len(ws) < 2 || limit <= 0 {
		return nil
	}
	var out []string
	for i, w := range ws {
		if i == limit-1 && len(ws) > limit {
			out = append(out, truncateLine(s.paint(s.faint, fmt.Sprintf("  … %d more workers", len(ws)-i)), width))
			break
		}
		task := strings.Join(w.Tasks, ",")
		if task == "" {
			task = "idle"
		}
		if w.Paused {
			task += " (paused)"
		}
		ago := time.Since(w.LastHeartbeat).Round(time.Second)
		row := fmt.Sprintf("  %s %s %s", termsafe.Clean(w.ID), s.paint(s.faint, "@"+termsafe.Clean(w.Host)), task) + s.paint(s.faint, fmt.Sprintf(" · %s ago", ago))
		out = append(out, truncateLine(row, width))
	}
	return out
}
