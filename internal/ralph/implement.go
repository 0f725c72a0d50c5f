package ralph

import (
	"context"
	"fmt"
	"strings"

	"github.com/zelvior/aidex/internal/agent"
)

// Implementation is one task being worked on in a session the caller owns
// (the TUI's /implement ID runs it in the current chat session): the task
// (now in_progress), the prompt to send, and the engine-owned tools to
// offer during that run (complete_task, list_tasks, show_task).
type Implementation struct {
	Task   Task
	Prompt string
	Tools  []agent.EngineTool
	svc    *Service
	rep    *Reporter
	verify string
}

// Implement marks a pending (or failed/skipped/done) task in_progress for
// a run in session sessionID and returns what that run needs. Add Tools to
// the engine's Config.EngineTools for the run, send Prompt, then call
// Finish with the run's result. verify is the verification command that
// the prompt mentions ("" for none; the caller runs it). Errors: unknown
// task, a task already in_progress, a task whose dependencies are not done.
func (s *Service) Implement(ctx context.Context, ref, sessionID, verify string) (*Implementation, error) {
	var task Task
	err := s.store.Change(ctx, func(l *List) error {
		t, err := l.Find(ref)
		if err != nil {
			return err
		}
		if t.Status == StatusInProgress {
			return fmt.Errorf("task %s is already in_progress: reset it first (aidex ralph reset %s)", t.ID, t.ID)
		}
		status := map[string]Status{}
		for _, x := range l.Tasks {
			status[strings.ToUpper(x.ID)] = x.Status
		}
		if needs := unmet(*t, status); len(needs) > 0 {
			return fmt.Errorf("task %s waits for %v", t.ID, needs)
		}
		t.Status, t.Attempts, t.SessionID, t.UpdatedAt = StatusInProgress, t.Attempts+1, sessionID, s.now().UTC()
		task = t.Clone()
		return nil
	})
	if err != nil {
		return nil, err
	}
	rep := NewReporter(task.ID)
	return &Implementation{Task: task, Prompt: TaskPrompt(task, verify), svc: s, rep: rep, verify: verify,
		Tools: append([]agent.EngineTool{rep.Tool()}, TaskTools(s.store)...)}, nil
}

// Finish judges the run like the loop does (complete_task, the promise
// tag, limits, errors; ctx cancelled puts the task back to pending; a
// done run with denied changes and no verification command is failed,
// ReasonChangesDenied) and records the outcome. It returns the task as stored and the outcome.
func (im *Implementation) Finish(ctx context.Context, done *agent.DoneInfo, runErr error) (Task, Outcome, error) {
	out := judge(ctx, ctx, RunOptions{}, im.rep, done, runErr, 0)
	if im.verify == "" && done != nil {
		out = changesDenied(out, done.DeniedChanges)
	}
	if out.Reason == "max_turns" {
		out.Summary = "reached the limit of model responses (max_tool_turns) before reporting the task complete"
	}
	out.Attempts = 1
	t, err := im.svc.record(im.Task.ID, func(t *Task) {
		t.Status, t.Result = out.Status, capText(out.Summary, maxSummary)
	})
	return t, out, err
}
