package commands

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/ralph"
)

// /tasks says when the list is ayder-cli's task files, not yet saved.
func TestWriteTasksNamesAyderFolder(t *testing.T) {
	var b bytes.Buffer
	WriteTasks(&b, ralph.Snapshot{Tasks: []ralph.Task{{ID: "TASK-001", Title: "Add auth", Priority: ralph.P2, Status: ralph.StatusPending}},
		From: "/ws/.ayder/tasks", RunState: ralph.RunState{Counts: map[ralph.Status]int{ralph.StatusPending: 1}}})
	require.Contains(t, b.String(), "read from /ws/.ayder/tasks")
	require.Contains(t, b.String(), "TASK-001")
}
