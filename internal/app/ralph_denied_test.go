package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/ralph"
)

// A task whose changes were denied (headless: what asks is denied) is not
// done when no verification command checks it, whatever the agent reports.
func TestRunChangesDeniedIsNotDone(t *testing.T) {
	cases := []struct {
		name   string
		call   llmtest.Call
		report llmtest.Turn
		verify string
		want   ralph.Status
		reason string
	}{
		{"denied command, complete_task done", llmtest.Call{Name: "run_command", Args: `{"command":"touch made-by-agent"}`},
			llmtest.Turn{Calls: []llmtest.Call{complete("done", "created the file")}}, "", ralph.StatusFailed, ralph.ReasonChangesDenied},
		{"denied write, promise tag", llmtest.Call{Name: "write_file", Args: `{"path":".git/hooks/pre-commit","content":"x"}`},
			llmtest.Turn{Text: "Installed the hook.\n<promise>COMPLETE</promise>"}, "", ralph.StatusFailed, ralph.ReasonChangesDenied},
		{"denied command, a verify command decides", llmtest.Call{Name: "run_command", Args: `{"command":"touch made-by-agent"}`},
			llmtest.Turn{Calls: []llmtest.Call{complete("done", "created the file")}}, "true", ralph.StatusDone, "reported"},
		{"denied read-only command, done", llmtest.Call{Name: "run_command", Args: `{"command":"cat ../outside.txt"}`},
			llmtest.Turn{Calls: []llmtest.Call{complete("done", "read what it could")}}, "", ralph.StatusDone, "reported"},
		{"allowed write, done", llmtest.Call{Name: "write_file", Args: `{"path":"notes.txt","content":"x"}`},
			llmtest.Turn{Calls: []llmtest.Call{complete("done", "wrote notes")}}, "", ralph.StatusDone, "reported"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, llmtest.Turn{Calls: []llmtest.Call{c.call}}, c.report, llmtest.Turn{Text: "ok"})
			f.add(ralph.Task{Title: "make a change"})
			sum, err := f.svc.Run(context.Background(), ralph.RunOptions{Verify: c.verify}, f.emit)
			require.NoError(t, err)
			out := f.of(ralph.EventTaskDone)[0].Outcome
			require.Equal(t, c.want, out.Status, out.Summary)
			require.Equal(t, c.reason, out.Reason)
			tk := f.task("T-001")
			require.Equal(t, c.want, tk.Status)
			if c.want == ralph.StatusFailed {
				require.Equal(t, []string{"T-001"}, sum.Failed)
				require.Contains(t, tk.Result, "changes denied: 1 file change or command was denied")
				require.Contains(t, tk.Result, "verify_command")
				_, err := os.Stat(filepath.Join(f.ws, "made-by-agent"))
				require.True(t, os.IsNotExist(err), "the denied command did not run")
			}
		})
	}
}

// /implement (the caller's own session) judges denied changes the same way.
func TestImplementChangesDeniedIsNotDone(t *testing.T) {
	f := newFixture(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "run_command", Args: `{"command":"rm -rf build"}`}}},
		llmtest.Turn{Calls: []llmtest.Call{complete("done", "cleaned")}}, llmtest.Turn{Text: "ok"})
	f.add(ralph.Task{Title: "clean"})
	ctx := context.Background()
	im, err := f.svc.Implement(ctx, "T-001", "s1", "")
	require.NoError(t, err)
	sess, err := f.backend.NewSession(ctx)
	require.NoError(t, err)
	eng, closeEngine, err := f.backend.Engine(ctx, ralph.EngineRequest{SessionID: sess.ID, EngineTools: im.Tools})
	require.NoError(t, err)
	defer closeEngine()
	done, runErr := eng.Run(ctx, sess, []llm.Part{{Type: llm.PartText, Text: im.Prompt}}, func(agent.Event) {})
	require.NoError(t, runErr)
	require.Equal(t, 1, done.Denials)
	require.Equal(t, 1, done.DeniedChanges)
	tk, out, err := im.Finish(ctx, done, runErr)
	require.NoError(t, err)
	require.Equal(t, ralph.StatusFailed, out.Status)
	require.Equal(t, ralph.ReasonChangesDenied, out.Reason)
	require.Equal(t, ralph.StatusFailed, tk.Status)
}

// The planning run offers the model read-only tools only (kind read) and
// its own task tools: no file writes, no commands.
func TestPlanOffersReadOnlyTools(t *testing.T) {
	f := newFixture(t, llmtest.Turn{Text: "Plan:\n- [ ] Write the parser\n"})
	_, err := f.svc.Plan(context.Background(), ralph.PlanOptions{Goal: "parser"}, f.emit)
	require.NoError(t, err)
	var req struct {
		Tools []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	require.NoError(t, json.Unmarshal(f.script.Requests()[0], &req))
	reg, closeTools, err := f.backend.Runtime().engineRoom().registry()
	require.NoError(t, err)
	defer closeTools()
	var names []string
	for _, tl := range req.Tools {
		name := tl.Function.Name
		names = append(names, name)
		if d, ok := reg.Lookup(name); ok {
			require.Equal(t, kind.Read, d.Kind, "%s is offered in the plan run", name)
		}
	}
	require.Contains(t, names, "read_file")
	require.Contains(t, names, "propose_tasks")
	for _, no := range []string{"write_file", "edit_file", "run_command", "web_fetch"} {
		require.NotContains(t, names, no)
	}

	// The task loop itself still offers the write tools.
	g := newFixture(t, llmtest.Turn{Calls: []llmtest.Call{complete("done", "ok")}}, llmtest.Turn{Text: "ok"})
	g.add(ralph.Task{Title: "x"})
	_, err = g.svc.Run(context.Background(), ralph.RunOptions{}, g.emit)
	require.NoError(t, err)
	require.Contains(t, g.request(0), `"write_file"`)
}
