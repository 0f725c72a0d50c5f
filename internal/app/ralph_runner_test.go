package app

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/ralph"
)

func TestRunPriorityOrderAndOutcomes(t *testing.T) {
	f := newFixture(t,
		// P0 first: reports failed through complete_task.
		llmtest.Turn{Calls: []llmtest.Call{complete("failed", "the API it needs does not exist")}},
		llmtest.Turn{Text: "Giving up."},
		// P1 next: done through complete_task.
		llmtest.Turn{Calls: []llmtest.Call{complete("done", "added the flag")}},
		llmtest.Turn{Text: "Finished."},
		// P3 last: done through the promise tag.
		llmtest.Turn{Text: "Wrote the docs.\n<promise>COMPLETE</promise>"},
	)
	f.add(ralph.Task{Title: "Low docs", Priority: ralph.P3, Description: "write docs"},
		ralph.Task{Title: "Urgent API", Priority: ralph.P0, AcceptanceCriteria: []string{"the endpoint answers 200"}},
		ralph.Task{Title: "Normal flag", Priority: ralph.P1})
	sum, err := f.svc.Run(context.Background(), ralph.RunOptions{}, f.emit)
	require.NoError(t, err)

	var order []string
	for _, ev := range f.of(ralph.EventTaskStart) {
		order = append(order, ev.Task.Title)
		require.Equal(t, ralph.StatusInProgress, ev.Task.Status)
		require.NotEmpty(t, ev.Task.SessionID)
	}
	require.Equal(t, []string{"Urgent API", "Normal flag", "Low docs"}, order)
	require.Equal(t, ralph.FinishCompleted, sum.Reason)
	require.Equal(t, 3, sum.Ran)
	require.Equal(t, 2, sum.Done)
	require.Equal(t, []string{"T-002"}, sum.Failed)

	api, flag, docs := f.task("T-002"), f.task("T-003"), f.task("T-001")
	require.Equal(t, ralph.StatusFailed, api.Status)
	require.Equal(t, "the API it needs does not exist", api.Result)
	require.Equal(t, ralph.StatusDone, flag.Status)
	require.Equal(t, "added the flag", flag.Result)
	require.Equal(t, ralph.StatusDone, docs.Status)
	require.Equal(t, "Wrote the docs.", docs.Result)
	for _, tk := range []ralph.Task{api, flag, docs} {
		require.Equal(t, 1, tk.Attempts)
		require.NotEmpty(t, tk.SessionID)
	}
	require.NotEqual(t, api.SessionID, flag.SessionID, "each task gets a new session")

	// The prompt carries the task; complete_task is offered.
	first := f.request(0)
	require.Contains(t, first, "Urgent API")
	require.Contains(t, first, "the endpoint answers 200")
	require.Contains(t, first, `"complete_task"`)
	require.Contains(t, first, `"list_tasks"`)
	require.NotContains(t, first, "Low docs", "a task's prompt holds that task only")

	done := f.of(ralph.EventTaskDone)
	require.Len(t, done, 3)
	require.Equal(t, "reported", done[0].Outcome.Reason)
	require.Equal(t, "promise", done[2].Outcome.Reason)
	fin := f.of(ralph.EventFinished)
	require.Len(t, fin, 1)
	require.Equal(t, 2, fin[0].Summary.Counts[ralph.StatusDone])
	// Engine events are forwarded with the task id.
	require.NotEmpty(t, f.of("tool_call"))
	require.Equal(t, "T-002", f.of("tool_call")[0].TaskID)
}

func TestRunVerifyFailsOnceThenPasses(t *testing.T) {
	f := newFixture(t,
		llmtest.Turn{Calls: []llmtest.Call{complete("done", "first try")}},
		llmtest.Turn{Text: "ok"},
		llmtest.Turn{Calls: []llmtest.Call{complete("done", "fixed the test")}},
		llmtest.Turn{Text: "ok again"},
	)
	f.add(ralph.Task{Title: "Make the check pass"})
	verify := "if [ -f .ok ]; then echo passing; else touch .ok; echo 'FAIL: expected 3, got 2'; exit 1; fi"
	sum, err := f.svc.Run(context.Background(), ralph.RunOptions{Verify: verify}, f.emit)
	require.NoError(t, err)
	require.Equal(t, 1, sum.Done)
	tk := f.task("T-001")
	require.Equal(t, ralph.StatusDone, tk.Status)
	require.Equal(t, "fixed the test", tk.Result)

	vs := f.of(ralph.EventVerify)
	require.Len(t, vs, 2)
	require.False(t, vs[0].Verify.Result.OK)
	require.Equal(t, 1, vs[0].Verify.Result.ExitCode)
	require.True(t, vs[1].Verify.Result.OK)
	require.Equal(t, 2, vs[1].Verify.Attempt)
	// The failure went back to the agent in the same session.
	third := f.request(2)
	require.Contains(t, third, "FAIL: expected 3, got 2")
	require.Contains(t, third, "first try", "same session: the earlier turns are in the request")
	require.Equal(t, 2, f.of(ralph.EventTaskDone)[0].Outcome.Attempts)
}

func TestRunVerifyExhaustsAttempts(t *testing.T) {
	f := newFixture(t,
		llmtest.Turn{Calls: []llmtest.Call{complete("done", "a")}},
		llmtest.Turn{Text: "ok"},
		llmtest.Turn{Calls: []llmtest.Call{complete("done", "b")}},
		llmtest.Turn{Text: "ok"},
	)
	f.add(ralph.Task{Title: "never passes"})
	sum, err := f.svc.Run(context.Background(), ralph.RunOptions{Verify: "echo broken; exit 3", MaxAttempts: 2}, f.emit)
	require.NoError(t, err)
	require.Equal(t, []string{"T-001"}, sum.Failed)
	tk := f.task("T-001")
	require.Equal(t, ralph.StatusFailed, tk.Status)
	require.Contains(t, tk.Result, "still failed after 2 attempts")
	require.Contains(t, tk.Result, "broken")
	require.Len(t, f.of(ralph.EventVerify), 2)
}

func TestRunStopBetweenTasks(t *testing.T) {
	f := newFixture(t,
		llmtest.Turn{Text: "one <promise>COMPLETE</promise>"},
		llmtest.Turn{Text: "two <promise>COMPLETE</promise>"},
	)
	f.add(ralph.Task{Title: "first", Priority: ralph.P0}, ralph.Task{Title: "second"})
	// Another Service on the same workspace stands for `aidex ralph stop`
	// in another process.
	other := ralph.NewService(ralph.Options{Workspace: f.svc.Workspace()})
	emit := func(ev ralph.Event) {
		f.emit(ev)
		if ev.Type == ralph.EventTaskStart {
			st, err := other.State()
			require.NoError(t, err)
			require.True(t, st.Running)
			require.Equal(t, ev.TaskID, st.Current)
			require.NoError(t, other.Stop())
		}
	}
	sum, err := f.svc.Run(context.Background(), ralph.RunOptions{}, emit)
	require.NoError(t, err)
	require.Equal(t, ralph.FinishStopped, sum.Reason)
	require.Equal(t, 1, sum.Ran)
	require.Equal(t, ralph.StatusDone, f.task("T-001").Status, "the current task finishes")
	require.Equal(t, ralph.StatusPending, f.task("T-002").Status)
	st, err := other.State()
	require.NoError(t, err)
	require.False(t, st.Running)
	require.ErrorIs(t, other.Stop(), ralph.ErrNotRunning)
	_, err = os.Stat(filepath.Join(f.ws, ".aidex", "ralph.stop"))
	require.ErrorIs(t, err, os.ErrNotExist, "the stop marker is cleared")
}

func TestRunDependencyHeldBack(t *testing.T) {
	f := newFixture(t,
		llmtest.Turn{Text: "base <promise>COMPLETE</promise>"},
		llmtest.Turn{Text: "top <promise>COMPLETE</promise>"},
	)
	added := f.add(ralph.Task{ID: "T-001", Title: "base", Priority: ralph.P3},
		ralph.Task{Title: "needs base", Priority: ralph.P0, DependsOn: []string{"T-001"}})
	require.Equal(t, "T-002", added[1].ID)
	i, _ := ralph.Next(mustTasks(t, f.svc), nil)
	require.Equal(t, 0, i, "the P0 task waits for its dependency")
	sum, err := f.svc.Run(context.Background(), ralph.RunOptions{}, f.emit)
	require.NoError(t, err)
	starts := f.of(ralph.EventTaskStart)
	require.Len(t, starts, 2)
	require.Equal(t, "T-001", starts[0].TaskID)
	require.Equal(t, "T-002", starts[1].TaskID)
	require.Equal(t, 2, sum.Done)
}

func TestRunBlockedByFailedDependency(t *testing.T) {
	f := newFixture(t,
		llmtest.Turn{Calls: []llmtest.Call{complete("failed", "no")}},
		llmtest.Turn{Text: "sorry"},
	)
	f.add(ralph.Task{Title: "base"}, ralph.Task{Title: "top", DependsOn: []string{"T-001"}})
	sum, err := f.svc.Run(context.Background(), ralph.RunOptions{}, f.emit)
	require.NoError(t, err)
	require.Equal(t, ralph.FinishBlocked, sum.Reason)
	require.Equal(t, []ralph.Waiting{{ID: "T-002", Needs: []string{"T-001 (failed)"}}}, sum.Waiting)
	require.Equal(t, ralph.StatusPending, f.task("T-002").Status)
}

func TestRunMaxIterationsAndOnly(t *testing.T) {
	f := newFixture(t, llmtest.Turn{Text: "x <promise>COMPLETE</promise>"})
	f.add(ralph.Task{Title: "a"}, ralph.Task{Title: "b"}, ralph.Task{Title: "c"})
	sum, err := f.svc.Run(context.Background(), ralph.RunOptions{MaxIterations: 1, TaskIDs: []string{"t-002", "T-003"}}, f.emit)
	require.NoError(t, err)
	require.Equal(t, ralph.FinishMaxIterations, sum.Reason)
	require.Equal(t, 1, sum.Ran)
	require.Equal(t, ralph.StatusPending, f.task("T-001").Status)
	require.Equal(t, ralph.StatusDone, f.task("T-002").Status)
	require.Equal(t, ralph.StatusPending, f.task("T-003").Status)
}

func TestRunFailures(t *testing.T) {
	t.Run("max turns", func(t *testing.T) {
		f := newFixture(t,
			llmtest.Turn{Calls: []llmtest.Call{{Name: "list_tasks", Args: `{}`}}},
			llmtest.Turn{Calls: []llmtest.Call{{Name: "list_tasks", Args: `{"status":"done"}`}}},
		)
		f.add(ralph.Task{Title: "endless"})
		_, err := f.svc.Run(context.Background(), ralph.RunOptions{MaxTurns: 2}, f.emit)
		require.NoError(t, err)
		tk := f.task("T-001")
		require.Equal(t, ralph.StatusFailed, tk.Status)
		require.Contains(t, tk.Result, "limit of 2 model responses")
		require.Equal(t, "max_turns", f.of(ralph.EventTaskDone)[0].Outcome.Reason)
	})
	t.Run("provider error", func(t *testing.T) {
		f := newFixture(t, llmtest.Turn{Status: 400, ErrorBody: `{"error":{"message":"model m does not exist","type":"invalid_request_error"}}`})
		f.add(ralph.Task{Title: "x"})
		sum, err := f.svc.Run(context.Background(), ralph.RunOptions{}, f.emit)
		require.NoError(t, err)
		require.Equal(t, []string{"T-001"}, sum.Failed)
		require.Contains(t, f.task("T-001").Result, "does not exist")
		require.Equal(t, "provider_error", f.of(ralph.EventTaskDone)[0].Outcome.Reason)
	})
	t.Run("task timeout", func(t *testing.T) {
		f := newFixture(t, llmtest.Turn{Text: "thinking...", Hang: true})
		f.add(ralph.Task{Title: "slow"})
		_, err := f.svc.Run(context.Background(), ralph.RunOptions{TaskTimeout: 300 * time.Millisecond}, f.emit)
		require.NoError(t, err)
		tk := f.task("T-001")
		require.Equal(t, ralph.StatusFailed, tk.Status)
		require.Contains(t, tk.Result, "timed out after 300ms")
	})
	t.Run("no report after a nudge", func(t *testing.T) {
		f := newFixture(t, llmtest.Turn{Text: "I looked around."}, llmtest.Turn{Text: "Still looking."})
		f.add(ralph.Task{Title: "vague"})
		_, err := f.svc.Run(context.Background(), ralph.RunOptions{}, f.emit)
		require.NoError(t, err)
		tk := f.task("T-001")
		require.Equal(t, ralph.StatusFailed, tk.Status)
		require.Contains(t, tk.Result, "without reporting")
		require.Contains(t, f.request(1), "without reporting on task T-001")
	})
	t.Run("nudge then report", func(t *testing.T) {
		f := newFixture(t, llmtest.Turn{Text: "I did it."},
			llmtest.Turn{Calls: []llmtest.Call{complete("skipped", "it was already there")}}, llmtest.Turn{Text: "ok"})
		f.add(ralph.Task{Title: "maybe"})
		sum, err := f.svc.Run(context.Background(), ralph.RunOptions{}, f.emit)
		require.NoError(t, err)
		require.Equal(t, 1, sum.Skipped)
		require.Equal(t, ralph.StatusSkipped, f.task("T-001").Status)
	})
}

func TestRunInterruptedGoesBackToPending(t *testing.T) {
	f := newFixture(t, llmtest.Turn{Text: "working", Hang: true})
	f.add(ralph.Task{Title: "long"})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-f.script.Started
		cancel()
	}()
	sum, err := f.svc.Run(ctx, ralph.RunOptions{}, f.emit)
	require.NoError(t, err)
	require.Equal(t, ralph.FinishInterrupted, sum.Reason)
	tk := f.task("T-001")
	require.Equal(t, ralph.StatusPending, tk.Status)
	require.Equal(t, 1, tk.Attempts)
}

func TestRunRefusesSecondRunAndClear(t *testing.T) {
	f := newFixture(t, llmtest.Turn{Text: "working", Hang: true})
	f.add(ralph.Task{Title: "long"})
	ctx, cancel := context.WithCancel(context.Background())
	other := ralph.NewService(ralph.Options{Workspace: f.svc.Workspace(), Backend: f.backend})
	errs := make(chan error, 4)
	go func() {
		<-f.script.Started
		_, err := other.Run(context.Background(), ralph.RunOptions{}, func(ralph.Event) {})
		errs <- err
		_, err = other.Clear(context.Background())
		errs <- err
		_, err = other.Reset(context.Background(), "T-001")
		errs <- err
		cancel()
	}()
	_, err := f.svc.Run(ctx, ralph.RunOptions{}, f.emit)
	require.NoError(t, err)
	require.ErrorIs(t, <-errs, ralph.ErrRunning)
	require.ErrorIs(t, <-errs, ralph.ErrRunning)
	require.ErrorContains(t, <-errs, "being worked on")
	n, err := other.Clear(context.Background())
	require.NoError(t, err, "clear works once the run ended")
	require.Equal(t, 1, n)
}

func TestRunPauseResume(t *testing.T) {
	f := newFixture(t,
		llmtest.Turn{Text: "a <promise>COMPLETE</promise>"},
		llmtest.Turn{Text: "b <promise>COMPLETE</promise>"},
	)
	f.add(ralph.Task{Title: "a"}, ralph.Task{Title: "b"})
	emit := func(ev ralph.Event) {
		f.emit(ev)
		switch ev.Type {
		case ralph.EventTaskDone:
			if ev.TaskID == "T-001" {
				require.NoError(t, f.svc.Pause())
			}
		case ralph.EventPaused:
			st, err := f.svc.State()
			require.NoError(t, err)
			require.True(t, st.Paused)
			require.Equal(t, ralph.StatusPending, f.task("T-002").Status, "nothing starts while paused")
			go func() { require.NoError(t, f.svc.Resume()) }()
		}
	}
	sum, err := f.svc.Run(context.Background(), ralph.RunOptions{}, emit)
	require.NoError(t, err)
	require.Equal(t, 2, sum.Done)
	require.Len(t, f.of(ralph.EventPaused), 1)
	require.Len(t, f.of(ralph.EventResumed), 1)
}

func TestRunLeavesStuckTasksAlone(t *testing.T) {
	f := newFixture(t, llmtest.Turn{Text: "b <promise>COMPLETE</promise>"})
	f.add(ralph.Task{Title: "crashed", Status: ralph.StatusInProgress}, ralph.Task{Title: "fresh"})
	sum, err := f.svc.Run(context.Background(), ralph.RunOptions{}, f.emit)
	require.NoError(t, err)
	require.Equal(t, []string{"T-001"}, sum.Stuck)
	require.Equal(t, ralph.FinishCompleted, sum.Reason)
	require.Equal(t, ralph.StatusInProgress, f.task("T-001").Status, "a crashed task waits for a person")
	tk, err := f.svc.Reset(context.Background(), "crashed")
	require.NoError(t, err)
	require.Equal(t, ralph.StatusPending, tk.Status)
}

func TestRunConfinedEvenWhenConfineFalse(t *testing.T) {
	f := newFixture(t)
	b := f.backend
	b.Runtime().Config.Confine = false
	ws, err := b.runtime(false).NewWorkspace(false)
	require.NoError(t, err)
	require.False(t, ws.Unconfined())
	require.False(t, b.Runtime().Config.Confine, "the caller's runtime is not changed")
	outside := filepath.Join(t.TempDir(), "x")
	_, err = ws.Resolve(outside)
	require.Error(t, err)
}

func TestPlanProposesAndSaves(t *testing.T) {
	f := newFixture(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"x.txt","content":"no"}`}}},
		llmtest.Turn{Calls: []llmtest.Call{{Name: "propose_tasks", Args: `{"tasks":[
			{"id":"T-001","title":"Add the model","description":"in model.go","acceptance_criteria":["go test passes"],"priority":"P1"},
			{"id":"US-001","title":"Show the page","description":"route /page","acceptance_criteria":["GET /page is 200"],"priority":"P0","task_type":"story","depends_on":["T-001"]}]}`}}},
		llmtest.Turn{Text: "Two tasks: the model, then the page."},
	)
	f.add(ralph.Task{ID: "T-001", Title: "existing"})
	res, err := f.svc.Plan(context.Background(), ralph.PlanOptions{Goal: "add a page"}, f.emit)
	require.NoError(t, err)
	require.Len(t, res.Tasks, 2)
	require.Equal(t, "Two tasks: the model, then the page.", res.Answer)
	// Plan mode: the write was refused by the policy.
	var denied bool
	for _, ev := range f.of("tool_result") {
		if ev.Agent.ToolResult.Name == "write_file" {
			denied = !ev.Agent.ToolResult.OK && ev.Agent.ToolResult.Category == "permission"
		}
	}
	require.True(t, denied, "plan mode refuses writes")
	_, err = os.Stat(filepath.Join(f.ws, "x.txt"))
	require.ErrorIs(t, err, os.ErrNotExist)
	require.Contains(t, f.request(0), "add a page")

	saved, err := f.svc.SavePlan(context.Background(), res.Tasks)
	require.NoError(t, err)
	require.Equal(t, "T-002", saved[0].ID, "a colliding id is renumbered")
	require.Equal(t, "US-001", saved[1].ID)
	require.Equal(t, []string{"T-002"}, saved[1].DependsOn, "dependencies follow the renaming")
	require.Equal(t, ralph.TypeStory, saved[1].Type)
	all := mustTasks(t, f.svc)
	require.Len(t, all, 3)
}

func TestPlanFallsBackToChecklistAnswer(t *testing.T) {
	f := newFixture(t, llmtest.Turn{Text: "Plan:\n- [ ] [P1] Write the parser\n  - parses empty input\n- [ ] Write the docs\n"})
	res, err := f.svc.Plan(context.Background(), ralph.PlanOptions{Goal: "parser"}, f.emit)
	require.NoError(t, err)
	require.Len(t, res.Tasks, 2)
	require.Equal(t, ralph.P1, res.Tasks[0].Priority)
	require.Equal(t, []string{"parses empty input"}, res.Tasks[0].AcceptanceCriteria)
}

func TestPlanNoTasks(t *testing.T) {
	f := newFixture(t, llmtest.Turn{Text: "I have no idea."})
	_, err := f.svc.Plan(context.Background(), ralph.PlanOptions{Goal: "x"}, f.emit)
	require.ErrorContains(t, err, "proposed no tasks")
	_, err = f.svc.Plan(context.Background(), ralph.PlanOptions{Goal: "  "}, f.emit)
	require.ErrorContains(t, err, "goal is empty")
}

func mustTasks(t *testing.T, s *ralph.Service) []ralph.Task {
	t.Helper()
	tasks, err := s.List()
	require.NoError(t, err)
	return tasks
}

func TestStartClaimsAtOnce(t *testing.T) {
	f := newFixture(t, llmtest.Turn{Text: "working", Hang: true})
	f.add(ralph.Task{Title: "long"})
	ctx, cancel := context.WithCancel(context.Background())
	wait, err := f.svc.Start(ctx, ralph.RunOptions{}, f.emit)
	require.NoError(t, err)
	_, err = f.svc.Start(context.Background(), ralph.RunOptions{}, f.emit)
	require.ErrorIs(t, err, ralph.ErrRunning, "a second start is refused before any event")
	<-f.script.Started
	cancel()
	sum, err := wait()
	require.NoError(t, err)
	require.Equal(t, ralph.FinishInterrupted, sum.Reason)
}

func TestImplementInOwnSession(t *testing.T) {
	f := newFixture(t, llmtest.Turn{Calls: []llmtest.Call{complete("done", "implemented")}}, llmtest.Turn{Text: "ok"})
	f.add(ralph.Task{Title: "base"}, ralph.Task{Title: "top", DependsOn: []string{"T-001"}})
	ctx := context.Background()
	_, err := f.svc.Implement(ctx, "T-002", "s1", "")
	require.ErrorContains(t, err, "waits for")
	im, err := f.svc.Implement(ctx, "base", "s1", "make test")
	require.NoError(t, err)
	require.Equal(t, ralph.StatusInProgress, f.task("T-001").Status)
	require.Contains(t, im.Prompt, "`make test` is run")
	_, err = f.svc.Implement(ctx, "T-001", "s1", "")
	require.ErrorContains(t, err, "already in_progress")

	// The caller's own session and engine, with the Implementation's tools.
	sess, err := f.backend.NewSession(ctx)
	require.NoError(t, err)
	eng, closeEngine, err := f.backend.Engine(ctx, ralph.EngineRequest{SessionID: sess.ID, EngineTools: im.Tools})
	require.NoError(t, err)
	defer closeEngine()
	done, runErr := eng.Run(ctx, sess, []llm.Part{{Type: llm.PartText, Text: im.Prompt}}, func(agent.Event) {})
	tk, out, err := im.Finish(ctx, done, runErr)
	require.NoError(t, err)
	require.Equal(t, ralph.StatusDone, out.Status)
	require.Equal(t, ralph.StatusDone, tk.Status)
	require.Equal(t, "implemented", tk.Result)
	require.Equal(t, "s1", tk.SessionID)
}
