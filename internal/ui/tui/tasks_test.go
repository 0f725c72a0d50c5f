package tui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"
	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/memstore"
	"github.com/zelvior/aidex/internal/ralph"
	"github.com/zelvior/aidex/internal/ui/commands"
)

func press(r rune) tea.Msg { return tea.KeyPressMsg{Code: r, Text: string(r)} }

func sampleTasks() []ralph.Task {
	return []ralph.Task{
		{ID: "T-001", Title: "Parse the config file", Priority: ralph.P1, Type: ralph.TypeTask, Status: ralph.StatusDone, Attempts: 1, Result: "parser in config.go, tests pass"},
		{ID: "US-001", Title: "Show a login page with a very long title that does not fit the list column", Priority: ralph.P0, Type: ralph.TypeStory,
			Status: ralph.StatusInProgress, Attempts: 1, SessionID: "s-123", Description: "Add /login with a form.",
			AcceptanceCriteria: []string{"GET /login returns 200", "the form posts to /session"}},
		{ID: "T-002", Title: "Write docs", Priority: ralph.P3, Type: ralph.TypeTask, Status: ralph.StatusFailed, DependsOn: []string{"T-001"}},
		{ID: "T-003", Title: "Clean up", Priority: ralph.P2, Type: ralph.TypeTask, Status: ralph.StatusPending},
	}
}

func TestGoldenTasksView(t *testing.T) {
	s := newStyles(false)
	tasks := sampleTasks()
	tv := &tasksView{snap: ralph.Snapshot{Tasks: tasks, RunState: ralph.RunState{Counts: ralph.Counts(tasks)}}, sel: 1}
	var log commands.RalphLog
	start := tasks[1]
	log.Add(ralph.Event{Type: ralph.EventTaskStart, TaskID: "US-001", Task: &start})
	log.Add(ralph.Event{TaskID: "US-001", Agent: &agent.Event{Type: agent.EventText, Text: "I will read the routes first.\n"}})
	log.Add(ralph.Event{TaskID: "US-001", Agent: &agent.Event{Type: agent.EventToolCall, ToolCall: &agent.ToolCallInfo{Name: "read_file", Arguments: []byte(`{"path":"routes.go"}`)}}})
	log.Add(ralph.Event{TaskID: "US-001", Agent: &agent.Event{Type: agent.EventToolResult, ToolResult: &agent.ToolResultInfo{OK: true, Output: "package web"}}})
	log.Add(ralph.Event{TaskID: "US-001", Agent: &agent.Event{Type: agent.EventText, Text: "Adding the handl"}})
	rl := ralphLoop{running: true, current: "US-001"}
	t.Run("running", func(t *testing.T) {
		golden.RequireEqual(t, renderTasks(s, tv, rl, log.Lines(), "*", 100, 20))
	})
	t.Run("adding", func(t *testing.T) {
		tv := *tv
		tv.sel, tv.adding, tv.buf = 0, true, "New tas"
		golden.RequireEqual(t, renderTasks(s, &tv, ralphLoop{}, nil, "*", 80, 14))
	})
	t.Run("empty", func(t *testing.T) {
		golden.RequireEqual(t, renderTasks(s, &tasksView{snap: ralph.Snapshot{RunState: ralph.RunState{Counts: ralph.Counts(nil)}}}, ralphLoop{}, nil, "*", 80, 10))
	})
}

func TestRenderTasksFitsTheScreen(t *testing.T) {
	s := newStyles(true)
	tasks := sampleTasks()
	for i := 0; i < 40; i++ {
		tasks = append(tasks, ralph.Task{ID: "T-1" + string(rune('a'+i%26)), Title: strings.Repeat("long ", 30), Priority: ralph.P2, Status: ralph.StatusPending})
	}
	tv := &tasksView{snap: ralph.Snapshot{Tasks: tasks, RunState: ralph.RunState{Counts: ralph.Counts(tasks)}}, sel: 30}
	lines := make([]string, 300)
	for i := range lines {
		lines[i] = strings.Repeat("transcript ", 20)
	}
	for _, size := range [][2]int{{100, 30}, {60, 12}, {20, 8}} {
		out := renderTasks(s, tv, ralphLoop{}, lines, "*", size[0], size[1])
		rows := strings.Split(out, "\n")
		require.Len(t, rows, size[1], "the view is exactly the height it is given (%v)", size)
		for _, r := range rows {
			require.LessOrEqual(t, lipgloss.Width(r), size[0], "no row is wider than the screen (%v)", size)
		}
		require.Contains(t, out, tasks[30].ID, "the selected task stays visible")
	}
}

// newTasksHarness is a harness with tasks already in the list.
func newTasksHarness(t *testing.T, o Options, titles []string, turns ...llmtest.Turn) *harness {
	t.Helper()
	h := newHarnessWith(t, o, turns...)
	for _, title := range titles {
		_, err := h.ctrl.Ralph().Add(context.Background(), ralph.Task{Title: title})
		require.NoError(t, err)
	}
	return h
}

func TestTasksViewRunsTheLoop(t *testing.T) {
	h := newTasksHarness(t, Options{Version: "test"}, []string{"Write hello.txt"},
		llmtest.Turn{Text: "Working on it.\n", Calls: []llmtest.Call{{Name: "complete_task", Args: `{"status":"done","summary":"wrote hello"}`}}},
		llmtest.Turn{Text: "All finished."})
	h.tm.Type("/tasks")
	h.tm.Send(enter())
	h.waitFor(t, "Ralph tasks", "Write hello.txt")
	h.tm.Send(press('r'))
	h.waitFor(t, "T-001 done (reported): wrote hello", "finished (completed): ran 1")
	h.tm.Send(press('a'))
	h.waitFor(t, "New task title:")
	h.tm.Type("Second task")
	h.tm.Send(enter())
	h.waitFor(t, "added T-002")
	h.tm.Send(press('s'))
	h.waitFor(t, "not running")
	h.tm.Send(tea.KeyPressMsg{Code: tea.KeyEscape})
	h.waitFor(t, "Ask anything")
	require.NoError(t, h.tm.Quit())
	fm := h.tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(*model)
	require.Nil(t, fm.tasks.tv, "Esc goes back to the chat")
	t1, err := h.ctrl.Ralph().Get("T-001")
	require.NoError(t, err)
	require.Equal(t, ralph.StatusDone, t1.Status)
	require.Equal(t, "wrote hello", t1.Result)
	t2, err := h.ctrl.Ralph().Get("T-002")
	require.NoError(t, err)
	require.Equal(t, "Second task", t2.Title)
	log := strings.Join(fm.tasks.rl.logs["T-001"].Lines(), "\n")
	require.Contains(t, log, "Working on it.", "the live transcript is routed by task id")
	require.Contains(t, log, "→ complete_task done")
	require.Empty(t, h.ctrl.Session().Messages, "the loop runs in its own sessions, not the chat's")
}

func TestTasksViewStopsTheLoop(t *testing.T) {
	h := newTasksHarness(t, Options{Version: "test"}, []string{"Slow one", "Never reached"},
		llmtest.Turn{Text: "thinking", Hang: true})
	h.tm.Type("/implement-all")
	h.tm.Send(enter())
	h.waitFor(t, "Ralph tasks")
	<-h.script.Started
	h.tm.Send(press('s'))
	h.waitFor(t, "stopping after the current task")
	require.NoError(t, h.tm.Quit())
	fm := h.tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(*model)
	fm.tasks.shutdownRalph()
	t1, _ := h.ctrl.Ralph().Get("T-001")
	require.Equal(t, ralph.StatusPending, t1.Status, "quitting interrupts the task; it goes back to pending")
	t2, _ := h.ctrl.Ralph().Get("T-002")
	require.Equal(t, ralph.StatusPending, t2.Status)
	st, err := h.ctrl.Ralph().State()
	require.NoError(t, err)
	require.False(t, st.Running)
}

func TestTasksViewEditsInEditor(t *testing.T) {
	dir := t.TempDir()
	editor := filepath.Join(dir, "ed.sh")
	require.NoError(t, os.WriteFile(editor, []byte("#!/bin/sh\nsed -i 's/\"P2\"/\"P0\"/; s/Old title/New title/' \"$1\"\n"), 0o755))
	env := map[string]string{"EDITOR": editor}
	h := newTasksHarness(t, Options{Version: "test", Getenv: func(k string) string { return env[k] }}, []string{"Old title"})
	h.tm.Type("/tasks")
	h.tm.Send(enter())
	h.waitFor(t, "Old title")
	h.tm.Send(press('e'))
	h.waitFor(t, "updated T-001")
	require.NoError(t, h.tm.Quit())
	h.tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
	task, _ := h.ctrl.Ralph().Get("T-001")
	require.Equal(t, "New title", task.Title)
	require.Equal(t, ralph.P0, task.Priority)
}

func TestPlanReviewSaves(t *testing.T) {
	h := newHarness(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "propose_tasks", Args: `{"tasks":[{"id":"T-001","title":"Parse input","description":"in parse.go","acceptance_criteria":["tests pass"],"priority":"P1"}]}`}}},
		llmtest.Turn{Text: "Plan ready."},
		llmtest.Turn{Calls: []llmtest.Call{{Name: "propose_tasks", Args: `{"tasks":[{"title":"Dropped","description":"x","acceptance_criteria":["y"],"priority":"P2"}]}`}}},
		llmtest.Turn{Text: "Another plan."})
	h.tm.Type("/plan parse input")
	h.tm.Send(enter())
	h.waitFor(t, "Save these 1 tasks to ralph_tasks.json?", "T-001 [P1] task: Parse input")
	h.tm.Send(press('y'))
	h.waitFor(t, "saved 1 tasks")
	h.tm.Type("/plan again")
	h.tm.Send(enter())
	h.waitFor(t, "Dropped")
	h.tm.Send(press('n'))
	h.waitFor(t, "nothing saved")
	require.NoError(t, h.tm.Quit())
	tasks, err := h.ctrl.Ralph().List()
	require.NoError(t, err)
	require.Len(t, tasks, 1)
	require.Equal(t, "Parse input", tasks[0].Title)
}

func TestImplementRunsInTheChat(t *testing.T) {
	h := newTasksHarness(t, Options{Version: "test"}, []string{"Say hi"},
		llmtest.Turn{Calls: []llmtest.Call{{Name: "complete_task", Args: `{"status":"done","summary":"said hi"}`}}},
		llmtest.Turn{Text: "Hi there."})
	h.tm.Type("/implement T-001")
	h.tm.Send(enter())
	h.waitFor(t, "T-001 is done: said hi")
	require.NoError(t, h.tm.Quit())
	task, _ := h.ctrl.Ralph().Get("T-001")
	require.Equal(t, ralph.StatusDone, task.Status)
	require.Equal(t, h.ctrl.Session().ID, task.SessionID)
}

func TestMemoryAndNotesCommandsInTUI(t *testing.T) {
	h := newHarness(t)
	_, err := h.ctrl.Memory().Save(context.Background(), memstore.ScopeProject, memstore.Entry{Content: "Prefer table-driven tests"})
	require.NoError(t, err)
	h.tm.Type("/memory")
	h.tm.Send(enter())
	h.waitFor(t, "Prefer table-driven tests")
	h.tm.Type("/notes")
	h.tm.Send(enter())
	h.waitFor(t, "no notes yet")
	require.NoError(t, h.tm.Quit())
}

// A run with several workers shows one row per worker under the header
// (id, host, task or idle, paused), and the view keeps its size.
func TestRenderTasksWorkerRows(t *testing.T) {
	s := newStyles(false)
	tasks := sampleTasks()
	now := time.Now()
	st := ralph.RunState{Running: true, Counts: ralph.Counts(tasks), Workers: []ralph.WorkerRow{
		{ID: "w1", Host: "box", Tasks: []string{"US-001"}, LastHeartbeat: now},
		{ID: "w2", Host: "box", Tasks: []string{}, Paused: true, LastHeartbeat: now},
		{ID: "w3\x1b[31m", Host: "other", Tasks: []string{"T-003"}, LastHeartbeat: now},
	}}
	tv := &tasksView{snap: ralph.Snapshot{Tasks: tasks, RunState: st}}
	out := renderTasks(s, tv, ralphLoop{}, nil, "*", 100, 20)
	rows := strings.Split(out, "\n")
	require.Len(t, rows, 20)
	require.Contains(t, rows[1], "w1 @box US-001 · 0s ago")
	require.Contains(t, rows[2], "w2 @box idle (paused)")
	require.Contains(t, rows[3], "@other T-003")
	require.NotContains(t, out, "\x1b[31m", "ids are shown, not obeyed")
	require.Contains(t, rows[4], "───")
	// One worker: no rows.
	tv.snap.Workers = tv.snap.Workers[:1]
	require.Contains(t, strings.Split(renderTasks(s, tv, ralphLoop{}, nil, "*", 100, 20), "\n")[1], "───")
	// A small screen keeps its height.
	tv.snap.Workers = st.Workers
	require.Len(t, strings.Split(renderTasks(s, tv, ralphLoop{}, nil, "*", 40, 9), "\n"), 9)
}
