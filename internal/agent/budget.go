package agent

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/zelvior/aidex/internal/llm"
)

// Budget is a run's cost governor (zero fields: no limit). RunUSD bounds
// what this run spends (--max-cost), SessionUSD what the session spends
// over all its runs, DailyUSD what every session together spends since
// local midnight, all in US dollars; MaxTokens bounds the session's
// tokens (input and output of every model response, cached input
// included). Subagents' spending counts toward each: their usage events
// reach the run's stream.
//
// At 80% of a limit the run emits a budget event (a warning); at 100% it
// emits one with Exhausted set, finishes the tool calls of the current
// step and stops before the next model request with [StopBudget]. A run
// that starts with a limit used up stops at once, before its prompt is
// added to the session. Spent reports what was spent before the run (the
// store's sums); nil uses the session's own cost and tokens and knows of
// no daily spending. An error from Spent is reported as a non-fatal error
// event and the session's own figures are used.
type Budget struct {
	RunUSD     float64
	SessionUSD float64
	DailyUSD   float64
	MaxTokens  int
	Spent      func(ctx context.Context, sessionID string) (Spending, error)
}

// Spending is what was spent before a run: SessionUSD and SessionTokens
// (input + output) of the session and its subagents' sessions, DailyUSD of
// every session since local midnight, in US dollars and tokens.
type Spending struct {
	SessionUSD    float64
	SessionTokens int
	DailyUSD      float64
}

// active reports whether b has any limit.
func (b Budget) active() bool {
	return b.RunUSD > 0 || b.SessionUSD > 0 || b.DailyUSD > 0 || b.MaxTokens > 0
}

// BudgetInfo describes a budget event: which limit (Limit: "run",
// "session", "daily" or "tokens"; Key: the setting that sets it,
// "--max-cost", "budget.session_usd", "budget.daily_usd",
// "budget.max_tokens"), what was spent of it (Spent of Max, in Unit
// "usd" or "tokens"; Percent = 100·Spent/Max), whether it is used up
// (Exhausted: the run stops at the next step boundary) and a sentence for
// the user (Message).
type BudgetInfo struct {
	Limit     string  `json:"limit"`
	Key       string  `json:"key"`
	Spent     float64 `json:"spent"`
	Max       float64 `json:"max"`
	Unit      string  `json:"unit"`
	Percent   float64 `json:"percent"`
	Exhausted bool    `json:"exhausted,omitempty"`
	Message   string  `json:"message"`
}

// budgetWarnAt is the share of a limit at which a run warns.
const budgetWarnAt = 0.8

// budgetState is a run's account against its Budget. Usage events (the
// run's own and its subagents') update it under mu: they arrive from the
// serialised event stream, the checks from the run's loop.
type budgetState struct {
	b    Budget
	base Spending
	mu   sync.Mutex
	// usd and tokens are what this run spent so far.
	usd    float64
	tokens int
	warned map[string]bool
	hit    *BudgetInfo
}

// accountKey is the context key of a run's budget account (budgetSlot).
type accountKey struct{}

// budgetSlot holds the account every run under one context shares: the
// first run that has a budget opens it; its subagents' runs (the task
// tool runs them under the run's context) and, under [ShareBudget], the
// other runs of one turn use it.
type budgetSlot struct {
	mu sync.Mutex
	st *budgetState
}

// ShareBudget returns ctx under which every run — a turn's architect and
// editor phases, its active models, and all their subagents — is charged
// to one account and checked against it before each model request: the
// limits of the first run that has a budget. Without it each top-level
// Run has an account of its own that its subagents share.
func ShareBudget(ctx context.Context) context.Context {
	if _, ok := ctx.Value(accountKey{}).(*budgetSlot); ok {
		return ctx
	}
	return context.WithValue(ctx, accountKey{}, &budgetSlot{})
}

// watchBudget returns emit that also accounts each of the run's own usage
// events against the account the run is charged to and adds budget events
// to the stream (emit itself when there is no account), and ctx carrying
// that account for the run's tool calls (its subagents). A subagent's
// usage event that reaches this stream was charged by the subagent's own
// run, so it is not charged again.
func (r *run) watchBudget(ctx context.Context, emit func(Event)) (func(Event), context.Context) {
	ctx = ShareBudget(ctx)
	slot := ctx.Value(accountKey{}).(*budgetSlot)
	slot.mu.Lock()
	switch {
	case slot.st != nil:
		r.budget, r.inherited = slot.st, true
	case r.e.Config.Budget.active():
		slot.st = &budgetState{b: r.e.Config.Budget, warned: map[string]bool{}}
		r.budget = slot.st
	}
	slot.mu.Unlock()
	if r.budget == nil {
		return emit, ctx
	}
	return func(ev Event) {
		emit(ev)
		if ev.Type != EventUsage || ev.Usage == nil || ev.ParentToolCallID != "" {
			return
		}
		t := ev.Usage.Turn
		for _, info := range r.budget.add(ev.Usage.TurnCostUSD, t.InputTokens+t.OutputTokens) {
			emit(Event{Type: EventBudget, SessionID: r.s.ID, Budget: info})
		}
	}, ctx
}

// budgetStart reads what was spent before the run; when a limit is used
// up already it ends the run at once (the prompt is not added), else nil.
func (r *run) budgetStart(ctx context.Context) *DoneInfo {
	r.budgetBase(ctx)
	if r.budgetHit() != nil {
		return r.done(StopBudget, lastAssistantText(r.s.Messages))
	}
	return nil
}

// budgetBase reads what was spent before the run and reports the limits
// it has reached already (a warning, or used up).
func (r *run) budgetBase(ctx context.Context) {
	bs := r.budget
	if bs == nil || r.inherited {
		return // the account's owner read what was spent before
	}
	bs.base = Spending{SessionUSD: r.s.CostUSD, SessionTokens: r.s.Usage.InputTokens + r.s.Usage.OutputTokens}
	if bs.b.Spent != nil {
		sp, err := bs.b.Spent(ctx, r.s.ID)
		if err != nil {
			r.emit(Event{Type: EventError, SessionID: r.s.ID, Error: &ErrorInfo{Message: "budget: " + err.Error() + "; counting this session's own spending only", Kind: "budget"}})
		} else {
			bs.base = sp
		}
	}
	for _, info := range bs.add(0, 0) {
		if info.Exhausted {
			info.Message = info.Key + " is used up before this run: " + info.spentText() + "; raise it to continue (aidex -c continues the session)"
		}
		r.emit(Event{Type: EventBudget, SessionID: r.s.ID, Budget: info})
	}
}

// budgetHit returns the used-up limit that stops the run, or nil.
func (r *run) budgetHit() *BudgetInfo {
	if r.budget == nil {
		return nil
	}
	return r.budget.exhausted()
}

func (bs *budgetState) exhausted() *BudgetInfo {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	return bs.hit
}

// add accounts usd and tokens spent and returns the budget events due:
// each limit's first pass of 80%, and of 100%.
func (bs *budgetState) add(usd float64, tokens int) []*BudgetInfo {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	bs.usd += usd
	bs.tokens += tokens
	var out []*BudgetInfo
	for _, info := range bs.levels() {
		switch {
		case info.Spent >= info.Max && bs.hit == nil:
			info.Exhausted = true
			info.Message = info.Key + " reached: " + info.spentText() + "; the run stops after the current step's tool calls (raise it and run aidex -c to continue)"
			bs.hit, bs.warned[info.Limit] = info, true
			out = append(out, info)
		case info.Spent >= budgetWarnAt*info.Max && !bs.warned[info.Limit]:
			info.Message = fmt.Sprintf("%s: %.0f%% used (%s)", info.Key, info.Percent, info.spentText())
			bs.warned[info.Limit] = true
			out = append(out, info)
		}
	}
	return out
}

// levels returns the state of each limit set, in the order run, session,
// daily, tokens.
func (bs *budgetState) levels() []*BudgetInfo {
	var out []*BudgetInfo
	add := func(limit, key, unit string, spent, limitVal float64) {
		if limitVal > 0 {
			out = append(out, &BudgetInfo{Limit: limit, Key: key, Unit: unit, Spent: spent, Max: limitVal, Percent: 100 * spent / limitVal})
		}
	}
	add("run", "--max-cost", "usd", bs.usd, bs.b.RunUSD)
	add("session", "budget.session_usd", "usd", bs.base.SessionUSD+bs.usd, bs.b.SessionUSD)
	add("daily", "budget.daily_usd", "usd", bs.base.DailyUSD+bs.usd, bs.b.DailyUSD)
	add("tokens", "budget.max_tokens", "tokens", float64(bs.base.SessionTokens+bs.tokens), float64(bs.b.MaxTokens))
	return out
}

// spentText is "$0.1234 of $0.10" or "120000 of 100000 tokens".
func (b *BudgetInfo) spentText() string {
	if b.Unit == "tokens" {
		return fmt.Sprintf("%.0f of %.0f tokens", b.Spent, b.Max)
	}
	return fmt.Sprintf("$%.4f of $%.2f", b.Spent, b.Max)
}

// EstimateTokens estimates, without sending it, the size in tokens of
// the request a run of input on s would send first: the system prompt,
// s's messages, input as the next user message and the tool definitions
// (4 bytes a token, as the waiting event's estimate). s is not changed.
func (e *Engine) EstimateTokens(s *Conversation, input []llm.Part) int {
	msgs := append(slices.Clone(s.Messages), llm.Message{Role: llm.RoleUser, Parts: input})
	r := &run{e: e, s: &Conversation{ID: s.ID, Workspace: s.Workspace, Messages: msgs}, cfg: e.Config}
	return r.requestTokens(r.request())
}

// modelUsageSaver is the optional store method that also records which
// model answered (session.Store.AddModelUsage), for the per-model
// breakdown of usage kept as no message.
type modelUsageSaver interface {
	AddModelUsage(ctx context.Context, sessionID, model string, u llm.Usage, costUSD float64) error
}

// addUsage records u, priced at model m, through us, with m's id when
// the store keeps it.
func (r *run) addUsage(ctx context.Context, us usageSaver, u llm.Usage, m ModelInfo) error {
	if ms, ok := us.(modelUsageSaver); ok {
		return ms.AddModelUsage(ctx, r.s.ID, m.ID(), u, m.Cost(u))
	}
	return us.AddUsage(ctx, r.s.ID, u, m.Cost(u))
}
