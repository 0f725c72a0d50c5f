package ralph

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/llm"
)

// RunOptions bound a run.
//
// MaxIterations is the most tasks to run (0: no bound). TaskIDs limits the
// run to these tasks (empty: the whole list). Verify is the verification
// command run in the workspace after the agent reports done ("" for none;
// the CLI passes verify_command or --verify); VerifyTimeout bounds each
// verification (0: 10 min, the maximum). MaxAttempts is how many times the
// agent may try a task when verification fails (0: 2). TaskTimeout bounds
// one task, agent and verification together (0: none). MaxTurns bounds
// model responses per agent run (0: max_tool_turns). MaxCostUSD bounds
// what the whole run may spend, in US dollars (0: no bound): each task's
// agent may spend what is left (a task its budget stops goes back to
// pending), and no task starts once it is spent; the run then finishes
// with FinishBudget.
type RunOptions struct {
	MaxIterations int
	TaskIDs       []string
	Verify        string
	VerifyTimeout time.Duration
	MaxAttempts   int
	TaskTimeout   time.Duration
	MaxTurns      int
	MaxCostUSD    float64
	// costLeft is what the task being run may spend (0: no bound).
	costLeft float64
}

// DefaultMaxAttempts is RunOptions.MaxAttempts's default.
const DefaultMaxAttempts = 2

// maxSummary caps a task's stored result, in bytes.
const maxSummary = 4000

// pausePoll is how often a paused loop looks for the pause marker to go.
const pausePoll = 500 * time.Millisecond

// Run works through the task list: it picks the next task (highest
// priority first, ties by list order, dependencies done), runs it in a new
// session with headless rules, records the outcome, and repeats until no
// task is left, the limits are reached, a stop is requested, or ctx ends.
// Events go to emit (never nil) as they happen, one at a time; the last is
// finished, whose Summary is also returned.
//
// A task interrupted by ctx goes back to pending. Errors: ErrRunning when
// a run is already going in the workspace, ErrNoBackend, a task list that
// cannot be read or written, a session that cannot be created.
func (s *Service) Run(ctx context.Context, o RunOptions, emit func(Event)) (*Summary, error) {
	wait, err := s.Start(ctx, o, emit)
	if err != nil {
		return nil, err
	}
	return wait()
}

// Start is Run in the background, for front ends that must answer before
// the run ends (the web UI's POST /api/ralph/run answers 409 on
// ErrRunning before it opens the event stream). It claims the run at once
// — ErrRunning or ErrNoBackend come back before any event — then works in
// a new goroutine; wait blocks until the run ends and returns what Run
// returns. Call wait exactly once.
func (s *Service) Start(ctx context.Context, o RunOptions, emit func(Event)) (wait func() (*Summary, error), err error) {
	if s.backend == nil {
		return nil, ErrNoBackend
	}
	release, err := s.claim()
	if err != nil {
		return nil, err
	}
	type result struct {
		sum *Summary
		err error
	}
	ch := make(chan result, 1)
	go func() {
		sum, err := s.run(ctx, o, emit)
		release() // before wait returns: the run is over for every caller
		ch <- result{sum, err}
	}()
	return func() (*Summary, error) {
		r := <-ch
		return r.sum, r.err
	}, nil
}

func (s *Service) run(ctx context.Context, o RunOptions, emit func(Event)) (*Summary, error) {
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = DefaultMaxAttempts
	}
	sum := &Summary{}
	stuck, err := s.store.Tasks()
	if err != nil {
		return nil, err
	}
	for _, t := range stuck {
		if t.Status == StatusInProgress {
			sum.Stuck = append(sum.Stuck, t.ID)
		}
	}
	reason, err := s.loop(ctx, o, emit, sum)
	if err != nil {
		return nil, err
	}
	return s.finish(reason, sum, emit)
}

func (s *Service) finish(reason FinishReason, sum *Summary, emit func(Event)) (*Summary, error) {
	sum.Reason = reason
	tasks, err := s.store.Tasks()
	if err != nil {
		return nil, err
	}
	sum.Counts = Counts(tasks)
	emit(Event{Type: EventFinished, Summary: sum})
	return sum, nil
}

func (s *Service) loop(ctx context.Context, o RunOptions, emit func(Event), sum *Summary) (FinishReason, error) {
	for {
		if ctx.Err() != nil {
			return FinishInterrupted, nil
		}
		if s.exists("ralph.stop") {
			return FinishStopped, nil
		}
		if !s.waitWhilePaused(ctx, emit) {
			continue // stopped or cancelled while paused
		}
		tasks, err := s.store.Tasks()
		if err != nil {
			return "", err
		}
		i, waiting := Next(tasks, o.TaskIDs)
		if i < 0 {
			if len(waiting) > 0 {
				sum.Waiting = waiting
				return FinishBlocked, nil
			}
			return FinishCompleted, nil
		}
		if o.MaxIterations > 0 && sum.Ran >= o.MaxIterations {
			return FinishMaxIterations, nil
		}
		if budgetUsed(o, sum, nil) {
			return FinishBudget, nil
		}
		o.costLeft, _ = budgetLeft(o, sum)
		out, err := s.runTask(ctx, tasks[i].ID, o, emit)
		if err != nil {
			return "", err
		}
		if out == nil {
			continue // the task changed under us; pick again
		}
		sum.Ran++
		sum.CostUSD += out.CostUSD
		switch out.Status {
		case StatusDone:
			sum.Done++
		case StatusFailed:
			sum.Failed = append(sum.Failed, tasks[i].ID)
		case StatusSkipped:
			sum.Skipped++
		}
		if budgetUsed(o, sum, out) {
			return FinishBudget, nil
		}
	}
}

// waitWhilePaused blocks while the pause marker exists; it reports false
// when it returned because of a stop or ctx (the caller re-checks them).
func (s *Service) waitWhilePaused(ctx context.Context, emit func(Event)) bool {
	if !s.exists("ralph.pause") {
		return true
	}
	emit(Event{Type: EventPaused})
	t := time.NewTicker(pausePoll)
	defer t.Stop()
	for s.exists("ralph.pause") {
		if ctx.Err() != nil || s.exists("ralph.stop") {
			return false
		}
		select {
		case <-ctx.Done():
		case <-s.wake:
		case <-t.C:
		}
	}
	emit(Event{Type: EventResumed})
	return true
}

// begin marks a pending task in_progress (attempts + 1). It returns false
// when the task is no longer pending.
func (s *Service) begin(ctx context.Context, id string) (Task, bool, error) {
	var out Task
	ok := false
	err := s.store.Change(ctx, func(l *List) error {
		i := l.index(id)
		if i < 0 || l.Tasks[i].Status != StatusPending {
			return nil
		}
		t := &l.Tasks[i]
		t.Status, t.Attempts, t.UpdatedAt = StatusInProgress, t.Attempts+1, s.now().UTC()
		out, ok = t.Clone(), true
		return nil
	})
	return out, ok, err
}

// record stores fields of a task by id; a task removed meanwhile is not
// an error.
func (s *Service) record(id string, fn func(t *Task)) (Task, error) {
	var out Task
	// Outcomes are saved even when the run's context was cancelled.
	err := s.store.Change(context.Background(), func(l *List) error {
		i := l.index(id)
		if i < 0 {
			return nil
		}
		fn(&l.Tasks[i])
		l.Tasks[i].UpdatedAt = s.now().UTC()
		out = l.Tasks[i].Clone()
		return nil
	})
	return out, err
}

// runTask runs one task to its outcome. A nil outcome means the task was
// not pending any more.
func (s *Service) runTask(ctx context.Context, id string, o RunOptions, emit func(Event)) (*Outcome, error) {
	task, ok, err := s.begin(ctx, id)
	if err != nil || !ok {
		return nil, err
	}
	s.setCurrent(id)
	defer s.setCurrent("")
	sess, err := s.backend.NewSession(ctx)
	if err != nil {
		_, _ = s.record(id, func(t *Task) { t.Status = StatusPending })
		return nil, fmt.Errorf("ralph: new session for %s: %w", id, err)
	}
	task, err = s.record(id, func(t *Task) { t.SessionID = sess.ID })
	if err != nil {
		return nil, err
	}
	started := task.Clone()
	emit(Event{Type: EventTaskStart, TaskID: id, Task: &started})
	cost := 0.0
	out := s.work(ctx, task, sess, o, costCounter(emit, &cost))
	out.CostUSD = cost
	task, err = s.record(id, func(t *Task) {
		t.Status, t.Result = out.Status, capText(out.Summary, maxSummary)
	})
	if err != nil {
		return nil, err
	}
	emit(Event{Type: EventTaskDone, TaskID: id, Task: &task, Outcome: &out})
	return &out, nil
}

// work runs the agent on a task in its session, with verification and the
// retries it allows, and judges the outcome.
func (s *Service) work(ctx context.Context, task Task, sess *agent.Conversation, o RunOptions, emit func(Event)) Outcome {
	return workTask(ctx, s.backend, task, sess, o, TaskTools(s.store), emit)
}

// WorkTask runs one task outside any task list, as a distributed worker
// does: a new session of b, the agent with complete_task only (no list
// tools: the list lives with the coordinator), verification with the
// retries o allows. It returns the outcome with the session's id, usage
// and cost filled in. Errors: a session that cannot be created.
func WorkTask(ctx context.Context, b Backend, task Task, o RunOptions, emit func(Event)) (Outcome, error) {
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = DefaultMaxAttempts
	}
	sess, err := b.NewSession(ctx)
	if err != nil {
		return Outcome{}, fmt.Errorf("ralph: new session for %s: %w", task.ID, err)
	}
	var mu sync.Mutex
	var usage llm.Usage
	cost := 0.0
	count := func(ev Event) {
		if ev.Agent != nil && ev.Agent.Type == agent.EventDone && ev.Agent.Done != nil {
			mu.Lock()
			usage = usage.Add(ev.Agent.Done.Usage)
			cost = ev.Agent.Done.CostUSD
			mu.Unlock()
		}
		emit(ev)
	}
	out := workTask(ctx, b, task, sess, o, nil, count)
	out.SessionID, out.Usage, out.CostUSD = sess.ID, &usage, cost
	return out, nil
}

func workTask(ctx context.Context, b Backend, task Task, sess *agent.Conversation, o RunOptions, extra []agent.EngineTool, emit func(Event)) Outcome {
	rep := NewReporter(task.ID)
	tools := append([]agent.EngineTool{rep.Tool()}, extra...)
	eng, closeEngine, err := b.Engine(ctx, EngineRequest{SessionID: sess.ID, EngineTools: tools, Notes: runNotes(), MaxTurns: o.MaxTurns, MaxCostUSD: o.costLeft})
	if err != nil {
		return Outcome{Status: StatusFailed, Reason: "engine_error", Summary: "could not start the agent: " + err.Error()}
	}
	defer closeEngine()
	tctx := ctx
	if o.TaskTimeout > 0 {
		var cancel context.CancelFunc
		tctx, cancel = context.WithTimeout(ctx, o.TaskTimeout)
		defer cancel()
	}
	forward := func(ev agent.Event) { emit(Event{Type: EventType(ev.Type), TaskID: task.ID, Agent: &ev}) }
	input, nudged := TaskPrompt(task, o.Verify), false
	denied := 0 // denied changes over the task's runs
	for attempt := 1; ; {
		rep.Reset()
		done, runErr := eng.Run(tctx, sess, []llm.Part{{Type: llm.PartText, Text: input}}, forward)
		if done != nil {
			denied += done.DeniedChanges
		}
		out := judge(ctx, tctx, o, rep, done, runErr, maxTurns(eng))
		out.Attempts = attempt
		if out.Reason == "no_report" && !nudged {
			input, nudged = nudgeText(task.ID), true
			continue
		}
		if o.Verify == "" {
			return changesDenied(out, denied)
		}
		if out.Status != StatusDone {
			return out
		}
		info := VerifyInfo{Command: o.Verify, Attempt: attempt, MaxAttempts: o.MaxAttempts}
		emit(Event{Type: EventVerifyStart, TaskID: task.ID, Verify: &info})
		vr := b.Verify(tctx, o.Verify, o.VerifyTimeout)
		res := info
		res.Result = &vr
		emit(Event{Type: EventVerify, TaskID: task.ID, Verify: &res})
		if stop := interrupted(ctx, tctx, o); stop != nil {
			stop.Attempts = attempt
			return *stop
		}
		if vr.OK {
			return out
		}
		if attempt >= o.MaxAttempts {
			return Outcome{Status: StatusFailed, Reason: "verify_failed", Attempts: attempt,
				Summary: fmt.Sprintf("verification `%s` still failed after %d attempts: %s\n%s", o.Verify, attempt, verifyError(vr), tail(vr.Output, 1500))}
		}
		attempt++
		input = verifyFeedback(o.Verify, vr, attempt, o.MaxAttempts)
	}
}

func maxTurns(r Runner) int {
	if n := r.MaxTurns(); n > 0 {
		return n
	}
	return 25
}

// judge turns an agent run into an outcome: the complete_task report
// first, then interruption and failures, then the promise tag.
func judge(ctx, tctx context.Context, o RunOptions, rep *Reporter, done *agent.DoneInfo, runErr error, turns int) Outcome {
	if stop := interrupted(ctx, tctx, o); stop != nil {
		return *stop
	}
	if r, ok := rep.Report(); ok {
		return Outcome{Status: r.Status, Reason: "reported", Summary: r.Summary}
	}
	if runErr != nil {
		return Outcome{Status: StatusFailed, Reason: "provider_error", Summary: "the model request failed: " + runErr.Error()}
	}
	if done == nil {
		return Outcome{Status: StatusFailed, Reason: "engine_error", Summary: "the agent ended without a result"}
	}
	switch done.StopReason {
	case agent.StopBudget:
		return budgetOutcome(done)
	case agent.StopMaxTurns:
		return Outcome{Status: StatusFailed, Reason: "max_turns", Summary: fmt.Sprintf("reached the limit of %d model responses (max_tool_turns) before reporting the task complete", turns)}
	case agent.StopLoop:
		return Outcome{Status: StatusFailed, Reason: "loop", Summary: done.Result}
	case agent.StopError:
		return Outcome{Status: StatusFailed, Reason: "provider_error", Summary: "the run failed: " + done.Result}
	}
	if strings.Contains(done.Result, PromiseTag) {
		summary := strings.TrimSpace(strings.ReplaceAll(done.Result, PromiseTag, ""))
		if summary == "" {
			summary = "completed"
		}
		return Outcome{Status: StatusDone, Reason: "promise", Summary: summary}
	}
	return Outcome{Status: StatusFailed, Reason: "no_report", Summary: "the agent stopped without reporting the task complete (no complete_task call, no " + PromiseTag + "): " + tail(done.Result, 1000)}
}

// changesDenied turns a done outcome into a failed one when the run had
// denied changes (file writes or commands, see agent.DoneInfo's
// DeniedChanges) and no verification command can tell whether the task
// got done anyway: the agent may report done about work that never
// happened.
func changesDenied(out Outcome, denied int) Outcome {
	if out.Status != StatusDone || denied == 0 {
		return out
	}
	calls := "1 file change or command was"
	if denied > 1 {
		calls = fmt.Sprintf("%d file changes or commands were", denied)
	}
	out.Status, out.Reason = StatusFailed, ReasonChangesDenied
	out.Summary = fmt.Sprintf("changes denied: %s denied by the permission policy, and no verify_command checks the task; "+
		"allow them (--allow, a permission rule or --permission-mode) or set verify_command, then run the task again. The agent's report: %s",
		calls, out.Summary)
	return out
}

// interrupted is the outcome when the run was cancelled (back to pending)
// or the task timed out (failed); nil otherwise.
func interrupted(ctx, tctx context.Context, o RunOptions) *Outcome {
	if ctx.Err() != nil {
		return &Outcome{Status: StatusPending, Reason: "interrupted", Summary: "interrupted before it finished; it is pending again"}
	}
	if errors.Is(tctx.Err(), context.DeadlineExceeded) {
		return &Outcome{Status: StatusFailed, Reason: "timeout", Summary: fmt.Sprintf("timed out after %s (--task-timeout)", o.TaskTimeout)}
	}
	return nil
}

func verifyError(r VerifyResult) string {
	if r.Error != "" {
		return r.Error
	}
	return fmt.Sprintf("exit code %d", r.ExitCode)
}

// capText cuts s to at most n bytes (at a rune boundary), marking the cut.
func capText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !isRuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + " [...]"
}

// tail keeps the last n bytes of s (at a rune boundary).
func tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	cut := len(s) - n
	for cut < len(s) && !isRuneStart(s[cut]) {
		cut++
	}
	return "[...] " + s[cut:]
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
