package plain

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/app/apptest"
	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/ralph"
	"github.com/zelvior/aidex/internal/sharedtest"
	"github.com/zelvior/aidex/internal/ui/commands"
)

// runREPL runs the line mode on input against a scripted model and
// returns its output and the controller.
func runREPL(t *testing.T, input string, turns ...llmtest.Turn) (string, *commands.Controller) {
	t.Helper()
	return runREPLWith(t, input, nil, turns...)
}

// runREPLWith is runREPL with setup applied to the REPL and the
// environment before the session starts.
func runREPLWith(t *testing.T, input string, setup func(r *REPL, env map[string]string), turns ...llmtest.Turn) (string, *commands.Controller) {
	t.Helper()
	script := llmtest.NewScript(t, turns...)
	home := apptest.NewHome(t, apptest.FakeProvider(script.URL, []string{"m1"}, ""))
	ws, env := home.WS, home.Env
	var out sharedtest.Buffer
	r := New(strings.NewReader(input), &out, false)
	if setup != nil {
		setup(r, env)
	}
	ctx := context.Background()
	opts := app.Options{Workspace: ws, Flags: map[string]string{}, Getenv: func(k string) string { return env[k] }}
	svc, err := app.Start(ctx, app.StartOptions{Options: opts})
	require.NoError(t, err)
	t.Cleanup(func() { svc.Close() })
	sess, err := svc.Pick(ctx, "", false)
	require.NoError(t, err)
	ctrl, err := commands.New(ctx, commands.Config{Service: svc, Session: sess, Approver: r.Approver()})
	require.NoError(t, err)
	t.Cleanup(ctrl.Close)
	require.NoError(t, r.Run(ctx, ctrl, commands.Default()))
	return out.String(), ctrl
}

const proposal = `{"tasks":[{"id":"T-001","title":"Parse input","description":"in parse.go","acceptance_criteria":["tests pass"],"priority":"P1"}]}`

func TestLineModePlanSavesOnYes(t *testing.T) {
	out, ctrl := runREPL(t, "/plan parse the input\ny\n/tasks\n/exit\n",
		llmtest.Turn{Calls: []llmtest.Call{{Name: "propose_tasks", Args: proposal}}},
		llmtest.Turn{Text: "Plan ready."})
	require.Contains(t, out, "→ propose_tasks")
	require.Contains(t, out, "Plan ready.")
	require.Contains(t, out, "T-001 [P1] task: Parse input\n  in parse.go\n  - [ ] tests pass")
	require.Contains(t, out, "Save these 1 tasks to ralph_tasks.json? [y/N] ")
	require.Contains(t, out, "saved 1 tasks to ralph_tasks.json")
	require.Contains(t, out, "T-001  P1  ○ pending  Parse input")
	tasks, err := ctrl.Ralph().List()
	require.NoError(t, err)
	require.Len(t, tasks, 1)
}

func TestLineModePlanDiscardsOnNo(t *testing.T) {
	out, ctrl := runREPL(t, "/plan parse the input\nn\n",
		llmtest.Turn{Calls: []llmtest.Call{{Name: "propose_tasks", Args: proposal}}},
		llmtest.Turn{Text: "Plan ready."})
	require.Contains(t, out, "nothing saved")
	tasks, err := ctrl.Ralph().List()
	require.NoError(t, err)
	require.Empty(t, tasks)
}

func TestLineModeImplementAllAndTaskEdit(t *testing.T) {
	out, ctrl := runREPL(t, "/tasks add Say hello\n/task-edit T-001\n/task-edit T-001 priority=P0 criteria=\"says hello\"\n/implement-all\n/implement T-001\n/exit\n",
		llmtest.Turn{Text: "Saying hello.\n", Calls: []llmtest.Call{{Name: "complete_task", Args: `{"status":"done","summary":"said hello"}`}}},
		llmtest.Turn{Text: "Done."},
		llmtest.Turn{Calls: []llmtest.Call{{Name: "complete_task", Args: `{"status":"failed","summary":"could not say it twice"}`}}},
		llmtest.Turn{Text: "Gave up."})
	require.Contains(t, out, "added T-001 [P2]: Say hello")
	require.Contains(t, out, "Change it with /task-edit T-001 FIELD=VALUE", "no fields: the task and how to edit it")
	require.Contains(t, out, "updated T-001")
	require.Contains(t, out, "note: permission mode ask")
	require.Contains(t, out, "▶ T-001 [P0] Say hello")
	require.Contains(t, out, "Saying hello.\n→ complete_task")
	require.Contains(t, out, "✓ T-001 done (reported): said hello")
	require.Contains(t, out, "Ralph finished (completed): ran 1 · 1 done")
	require.Contains(t, out, "T-001 is failed (reported): could not say it twice", "/implement runs a done task again, in this session")
	task, err := ctrl.Ralph().Get("T-001")
	require.NoError(t, err)
	require.Equal(t, ralph.StatusFailed, task.Status)
	require.Equal(t, []string{"says hello"}, task.AcceptanceCriteria)
	require.Equal(t, ctrl.Session().ID, task.SessionID)
}
