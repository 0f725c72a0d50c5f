package commands

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app/multi"
	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/permission"
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

// Nexus Code's /mode round-robin|sequential|parallel|single is /multi MODE
// and says so; /mode alone still picks the permission mode.
func TestModeConversationAlias(t *testing.T) {
	f := closedFixture(t)
	_, _ = f.mustExec(t, "/multi add groq/meta-llama/llama-4-scout-17b-16e-instruct")
	out, _ := f.mustExec(t, "/mode round-robin")
	require.Contains(t, out, "/mode round-robin is the conversation mode: /multi round-robin")
	require.Contains(t, out, "mode: round-robin")
	require.Equal(t, "round-robin", string(f.c.Multi().Mode))
	require.Equal(t, "ask", f.c.Mode(), "the permission mode is unchanged")
	out, _ = f.mustExec(t, "/mode single")
	require.Contains(t, out, "mode: single")
	_, o := f.mustExec(t, "/mode")
	require.Equal(t, ActPickMode, o.Action)
}

// No permission mode and conversation mode share a name, so /mode NAME
// always means one of them.
func TestModeNamesDisjoint(t *testing.T) {
	for _, pm := range permission.Modes() {
		_, err := multi.ParseMode(string(pm))
		require.Error(t, err, "permission mode %q is also a conversation mode", pm)
	}
	for _, mm := range multi.Modes() {
		_, err := permission.ParseMode(string(mm))
		require.Error(t, err, "conversation mode %q is also a permission mode", mm)
	}
}

// /permissions lists the saved rules with their sources; /permissions
// remove takes one out of its config file and the session's policy.
func TestPermissionsCommand(t *testing.T) {
	f := closedFixture(t)
	global := f.c.Runtime().Config.Paths.ConfigFile
	data, err := os.ReadFile(global)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(global, append(data, []byte("\n[permissions]\nallow = [\"run_command(make *)\"]\n")...), 0o600))
	_, err = f.c.svc.Reload(context.Background(), nil)
	require.NoError(t, err)

	out, _ := f.mustExec(t, "/permissions")
	require.Contains(t, out, "allow  run_command(make *)  "+global+":")
	out, _ = f.mustExec(t, "/permissions remove allow run_command(make *)")
	require.Contains(t, out, "removed allow rule run_command(make *)")
	require.Empty(t, f.c.Runtime().Config.Permissions.Allow, "the session's policy no longer has it")
	out, _ = f.mustExec(t, "/permissions")
	require.Contains(t, out, "no saved permission rules")
	_, _, err = f.exec(t, "/permissions remove")
	require.ErrorContains(t, err, "name the rule")
}

// /undo right after /implement undoes the run's changes and puts the task
// back to pending; after another turn it leaves the task alone.
func TestUndoAfterImplementResetsTask(t *testing.T) {
	f := newFixture(t, "",
		llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"hello.txt","content":"hi"}`}}},
		llmtest.Turn{Calls: []llmtest.Call{{Name: "complete_task", Args: `{"status":"done","summary":"wrote it"}`}}},
		llmtest.Turn{Text: "Finished."})
	_, err := f.c.Ralph().Add(context.Background(), ralph.Task{Title: "Write hello"})
	require.NoError(t, err)
	require.NoError(t, f.c.SetMode(context.Background(), "auto-edit"))
	_, o := f.mustExec(t, "/implement T-001")
	done, runErr := f.c.RunWith(context.Background(), BuildPrompt(f.ws, o.Prompt).Parts, o.Tools, func(agent.Event) {})
	require.NoError(t, runErr)
	require.Equal(t, "T-001 is done: wrote it", o.After(context.Background(), done, runErr))
	_, err = os.Stat(filepath.Join(f.ws, "hello.txt"))
	require.NoError(t, err)

	out, _ := f.mustExec(t, "/undo")
	require.Regexp(t, `deleted \S*hello.txt`, out)
	require.Contains(t, out, "T-001 is pending again")
	task, _ := f.c.Ralph().Get("T-001")
	require.Equal(t, ralph.StatusPending, task.Status)
	_, err = os.Stat(filepath.Join(f.ws, "hello.txt"))
	require.ErrorIs(t, err, os.ErrNotExist)
}
