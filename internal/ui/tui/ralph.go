package tui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/zelvior/aidex/internal/ralph"
	"github.com/zelvior/aidex/internal/ui/commands"
)

// tasksCtl is the model's Ralph side: the split view of the task list,
// the plan under review, the loop started from here and the task editor.
// It owns that state and works on the model it belongs to (model.tasks).
type tasksCtl struct {
	*model
	// tv is the Ralph split view while open (nil while closed).
	tv *tasksView
	// planRes is the plan awaiting review (nil when none).
	planRes *ralph.PlanResult
	// rl is the Ralph loop started from here and its tasks' transcripts
	// (kept while the split view is closed).
	rl ralphLoop
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

// openTasks opens the split view on the current task list.
func (m *tasksCtl) openTasks() {
	if m.ctrl == nil {
		return
	}
	if m.tv == nil {
		m.tv = &tasksView{}
	}
	m.tasks.refreshTasks()
	if m.rl.current != "" {
		m.tv.selectTask(m.rl.current)
	}
}

// leaveAltDelay is how long output waits after the split view closes: a
// few frames, so the renderer has left the alternate screen (lines
// printed before that would land on it and be lost).
const leaveAltDelay = 120 * time.Millisecond

// closeTasks closes the split view; the output held while it was open is
// printed once the renderer is back on the main screen.
func (m *tasksCtl) closeTasks() tea.Cmd {
	m.tv = nil
	m.stream.hold()
	return tea.Tick(leaveAltDelay, func(time.Time) tea.Msg { return resumePrintsMsg{} })
}

// refreshTasks reloads the task list, keeping the selected task.
func (m *tasksCtl) refreshTasks() {
	if m.tv == nil || m.ctrl == nil {
		return
	}
	snap, err := m.ctrl.Ralph().Snapshot()
	if err != nil {
		m.note(err.Error())
		return
	}
	m.tv.setSnapshot(snap)
}

func (m *tasksCtl) addTask(title string) tea.Cmd {
	ctrl := m.ctrl
	return m.turn.runJob(func(ctx context.Context) jobDoneMsg {
		added, err := ctrl.Ralph().Add(ctx, ralph.Task{Title: title})
		return jobDoneMsg{err: err, then: func(m *model) tea.Cmd {
			if err == nil {
				m.note(fmt.Sprintf("added %s", added[0].ID))
				m.tasks.refreshTasks()
				if m.tasks.tv != nil {
					m.tasks.tv.selectTask(added[0].ID)
				}
			}
			return nil
		}}
	})
}

// startRalph starts the loop over the pending tasks; its events go to the
// tasks' transcripts.
func (m *tasksCtl) startRalph() tea.Cmd {
	if m.ctrl == nil {
		return nil
	}
	if m.rl.running {
		m.note("the Ralph loop is already running (s stops it)")
		return nil
	}
	ctx, cancel := context.WithCancel(m.ctx)
	wait, err := m.ctrl.Tasks().Start(ctx, m.q.emitRalph)
	if err != nil {
		cancel()
		m.note(err.Error())
		return nil
	}
	note := "Ralph loop started"
	if n := m.ctrl.Tasks().Notice(); n != "" {
		m.commit(m.st.paint(m.st.yellow, "Ralph: "+n))
		note += fmt.Sprintf(" · %s mode: changes that need approval are denied", m.ctrl.Mode())
	}
	m.note(note)
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
func (m *tasksCtl) stopRalph() {
	if !m.rl.running || m.ctrl == nil {
		m.note("the Ralph loop is not running (r starts it)")
		return
	}
	if err := m.ctrl.Ralph().Stop(); err != nil && !errors.Is(err, ralph.ErrNotRunning) {
		m.note(err.Error())
		return
	}
	m.rl.stopping = true
	m.note("stopping after the current task")
}

// shutdownRalph interrupts a running loop and waits for it (the task goes
// back to pending), when the UI quits.
func (m *tasksCtl) shutdownRalph() {
	if m.rl.cancel == nil {
		return
	}
	m.rl.cancel()
	<-m.rl.done
}

// ralphEvent routes a loop event to its task's transcript.
func (m *tasksCtl) ralphEvent(ev ralph.Event) {
	if ev.TaskID != "" {
		m.rl.log(ev.TaskID).Add(ev)
	}
	switch ev.Type {
	case ralph.EventTaskStart:
		m.rl.current = ev.TaskID
		m.tasks.refreshTasks()
		if m.tv != nil {
			m.tv.selectTask(ev.TaskID)
		}
	case ralph.EventTaskDone:
		m.rl.current = ""
		m.tasks.refreshTasks()
		if m.tv == nil {
			m.commit(m.st.paint(m.st.cyan, "Ralph: "+commands.RalphEventLine(ev)))
		}
	case ralph.EventFinished:
		line := commands.RalphEventLine(ev)
		m.commit(m.st.paint(m.st.cyan, line))
		if m.tv != nil {
			m.note(line)
		}
		m.tasks.refreshTasks()
	}
}

func (m *tasksCtl) ralphEnded(e *ralphEnd) {
	m.rl.running, m.rl.stopping, m.rl.cancel, m.rl.current = false, false, nil, ""
	if e.err != nil {
		m.commit(m.st.paint(m.st.red, "Ralph: "+e.err.Error()))
	}
	m.tasks.refreshTasks()
}

// startPlan runs /plan GOAL: the planning run streams like a chat run (Esc
// stops it), then the proposed tasks are shown for review.
func (m *tasksCtl) startPlan(goal string) {
	ctx := m.turn.beginRun()
	m.commit(m.st.paint(m.st.faint, "planning in plan mode (read-only tools) · Esc stops"))
	ctrl, q := m.ctrl, m.q
	go func() {
		res, err := ctrl.Tasks().Plan(ctx, goal, q.emit)
		q.push(item{end: &runEnd{err: err, then: func(m *model) tea.Cmd {
			if err == nil && res != nil {
				var b bytes.Buffer
				commands.WriteProposal(&b, res)
				m.commit(strings.TrimRight(b.String(), "\n"))
				m.tasks.planRes = res
			}
			return nil
		}}})
	}()
}

// planKey answers the plan review: y saves the tasks, n or Esc drops them.
func (m *tasksCtl) planKey(k tea.KeyPressMsg) tea.Cmd {
	res := m.planRes
	switch strings.ToLower(k.String()) {
	case "y", "enter":
		m.planRes = nil
		ctrl := m.ctrl
		return m.turn.runJob(func(ctx context.Context) jobDoneMsg {
			saved, err := ctrl.Tasks().SavePlan(ctx, res.Tasks)
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
