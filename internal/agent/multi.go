package agent

import (
	"context"
	"slices"

	"github.com/zelvior/aidex/internal/llm"
)

// The pieces below let a caller (app's multi-model turns) answer one user
// turn with several engines over one Conversation: Propose asks a model without
// changing the session, Record adds what the caller keeps, and Continue
// runs the session on from there (the kept answer's tool calls, further
// turns) as Run does.

// newRun is the state of a run of e on s, its events to emit labelled
// with the model. A budgeted run (Run, Continue) also accounts its usage
// events against the engine's Budget.
func newRun(ctx context.Context, e *Engine, s *Conversation, emit func(Event), budgeted bool) (*run, context.Context) {
	r := &run{e: e, s: s, cfg: e.Config}
	r.normalize()
	r.started = r.e.Now()
	if budgeted {
		emit, ctx = r.watchBudget(ctx, emit)
	}
	r.emit = serialized(labelled(emit, r.modelID))
	return r, ctx
}

// Propose asks the model once for an answer to s's messages followed by
// a user message of input, and returns the response without changing s
// or the store: a candidate answer of a parallel turn. Several engines
// may propose on one session at once (s is only read; no Run or Record
// may change it meanwhile). Events go to emit labelled with the model:
// waiting, text and reasoning (no session, usage or done event: the
// usage is the caller's to record with Record). The response is never
// nil; a failed request keeps the text it delivered, its tool calls
// dropped. Errors: the provider's, ctx's.
func (e *Engine) Propose(ctx context.Context, s *Conversation, input []llm.Part, emit func(Event)) (*llm.Response, error) {
	msgs := append(slices.Clone(s.Messages), llm.Message{Role: llm.RoleUser, Parts: input})
	tmp := &Conversation{ID: s.ID, Workspace: s.Workspace, Messages: msgs, Todos: s.Todos}
	r, ctx := newRun(ctx, e, tmp, emit, false)
	return r.call(ctx)
}

// Record adds m to s and to the store, with u (nil for a user message)
// priced at this engine's model, and reports u as a usage event. An
// assistant message without a model gets this engine's. A message without
// parts is not added: only u is recorded (the cost of a discarded
// proposal). Errors: agent.ErrBusy while a run of s goes on, the store's.
func (e *Engine) Record(ctx context.Context, s *Conversation, m llm.Message, u *llm.Usage, emit func(Event)) error {
	if err := e.acquire(s.ID); err != nil {
		return err
	}
	defer e.release(s.ID)
	r, ctx := newRun(ctx, e, s, emit, false)
	var used llm.Usage
	if u != nil {
		used = *u
	}
	if len(m.Parts) == 0 {
		r.saveUsage(ctx, used)
		r.account(used)
		return nil
	}
	if m.Role == llm.RoleAssistant && m.Model == "" {
		m.Model = e.Config.Model.ID()
	}
	if err := r.append(ctx, m, u); err != nil {
		return err
	}
	r.account(used)
	return nil
}

// Continue runs s on from its messages as they are, as Run does after it
// added its user message: when the last message is an assistant's (an
// answer kept with Record), its tool calls run first (it counts as the
// run's first turn), and the run goes on until the model answers without
// tool calls; when it is a user message or tool results, the model is
// asked. The engine's Budget applies as in Run, except that a kept
// answer's tool calls run before a used-up limit stops it. Events and
// results are as Run's. Errors: agent.ErrBusy, as Run's.
func (e *Engine) Continue(ctx context.Context, s *Conversation, emit func(Event)) (*DoneInfo, error) {
	if err := e.acquire(s.ID); err != nil {
		return nil, err
	}
	defer e.release(s.ID)
	r, ctx := newRun(ctx, e, s, emit, true)
	r.start(ctx, false)
	r.budgetBase(ctx) // a used-up limit stops the run at its first step boundary
	if n := len(s.Messages); n > 0 && s.Messages[n-1].Role == llm.RoleAssistant {
		r.turns = 1
		if d, end, err := r.handle(ctx, s.Messages[n-1]); end {
			return d, err
		}
	}
	return r.steps(ctx)
}

// Settle answers the tool calls a run that died between its calls and
// their results left open at the end of s ("not run"), as Run does
// before it adds its user message: a request may carry no unanswered
// call. Errors: agent.ErrBusy while a run of s goes on.
func (e *Engine) Settle(ctx context.Context, s *Conversation, emit func(Event)) error {
	if err := e.acquire(s.ID); err != nil {
		return err
	}
	defer e.release(s.ID)
	if calls := unansweredCalls(s.Messages); len(calls) > 0 {
		r, ctx := newRun(ctx, e, s, emit, false)
		r.closeCalls(ctx, calls, false, "not run: the previous run ended before this call completed")
	}
	return nil
}

// MaxTurns returns the engine's cap of model responses per run
// (Config.MaxTurns; 0: the default, 25).
func (e *Engine) MaxTurns() int { return e.Config.MaxTurns }
