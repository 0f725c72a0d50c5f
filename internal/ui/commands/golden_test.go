package commands

import (
	"bytes"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/zelvior/aidex/internal/ralph"
)

func goldenTasks() []ralph.Task {
	return []ralph.Task{
		{ID: "T-001", Title: "Parse input", Priority: ralph.P1, Type: ralph.TypeTask, Status: ralph.StatusDone, Description: "in parse.go",
			AcceptanceCriteria: []string{"tests pass"}},
		{ID: "US-001", Title: "Show results", Priority: ralph.P0, Type: ralph.TypeStory, Status: ralph.StatusInProgress, DependsOn: []string{"T-001"},
			Description: "print a table\nwith totals", AcceptanceCriteria: []string{"prints", "totals add up"}},
		{ID: "T-002", Title: "Write docs", Priority: ralph.P3, Type: ralph.TypeTask, Status: ralph.StatusFailed},
	}
}

// TestGoldenCommandOutput fixes the text of /help, /tasks, the plan review,
// /task-edit's help and the task JSON edited in $EDITOR.
func TestGoldenCommandOutput(t *testing.T) {
	tasks := goldenTasks()
	var b bytes.Buffer
	b.WriteString("== /help\n")
	Default().Help(&b)
	b.WriteString("== /tasks\n")
	WriteTasks(&b, ralph.Snapshot{Tasks: tasks, RunState: ralph.RunState{Counts: ralph.Counts(tasks), Running: true, Current: "US-001"}})
	b.WriteString("== /tasks (empty)\n")
	WriteTasks(&b, ralph.Snapshot{})
	b.WriteString("== plan review\n")
	WriteProposal(&b, &ralph.PlanResult{SessionID: "s-1", Tasks: tasks[:2]})
	b.WriteString("== /task-edit ID (line mode)\n")
	b.WriteString(TaskEditHelp(tasks[1]))
	b.WriteString("== task JSON ($EDITOR)\n")
	b.Write(TaskJSON(tasks[1]))
	golden.RequireEqual(t, b.String())
}
