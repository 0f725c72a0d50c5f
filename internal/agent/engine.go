package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/zelvior/aidex/internal/llm"
)

// ModelInfo is what the engine knows of the model: its provider and name,
// its context window in tokens (0: unknown) and prices in USD per 1M tokens
// (0: unknown or free). UnbilledReasoning leaves the reasoning tokens out
// of the output cost (bill_reasoning_as_output = false); by default they
// are billed as output, as providers bill them.
type ModelInfo struct {
	Provider          string
	Name              string
	ContextWindow     int
	InputPrice        float64
	OutputPrice       float64
	CacheReadPrice    float64
	CacheWritePrice   float64
	UnbilledReasoning bool
}

// ID returns the model's "PROVIDER/MODEL" id (the name alone when the
// provider is unknown): the label of the messages and events it writes.
func (m ModelInfo) ID() string {
	if m.Provider == "" {
		return m.Name
	}
	return m.Provider + "/" + m.Name
}

// Cost returns the price of u in USD.
func (m ModelInfo) Cost(u llm.Usage) float64 {
	uncached := u.InputTokens - u.CacheReadTokens - u.CacheWriteTokens
	if uncached < 0 {
		uncached = 0
	}
	cr, cw := m.CacheReadPrice, m.CacheWritePrice
	if cr == 0 {
		cr = m.InputPrice
	}
	if cw == 0 {
		cw = m.InputPrice
	}
	out := u.OutputTokens
	if m.UnbilledReasoning {
		out = max(out-u.ReasoningTokens, 0)
	}
	return (float64(uncached)*m.InputPrice + float64(u.CacheReadTokens)*cr +
		float64(u.CacheWriteTokens)*cw + float64(out)*m.OutputPrice) / 1e6
}

// Conversation is a session's conversation in memory: its id, workspace,
// messages, token usage and cost so far, and the model's plan (the stored
// session is internal/session's; the live one, with its engine, is
// app.Session). The engine appends to it as a run goes; one run at a time
// per conversation.
type Conversation struct {
	ID        string
	Workspace string
	Messages  []llm.Message
	Usage     llm.Usage
	CostUSD   float64
	Todos     []Todo
	// StoredAt is the store's update time of the session when it was
	// loaded or created (zero: not from a store); front ends compare it
	// with the store's to tell whether another process continued the
	// session since.
	StoredAt time.Time
	// sized caches the size of the messages already counted, so that the
	// per-turn estimates cost the new messages only.
	sized historySize
}

// Config is the engine's fixed setup for a run.
//
// MaxTurns bounds model responses per run (0: 25). CompactAt is the share of
// the context window past which older exchanges are summarised (0: 0.85).
// Request carries the per-request model settings (max tokens, temperature,
// reasoning); its Model, System, Messages and Tools are filled in by the
// engine. TextToolCalls enables parsing tool calls written as text when
// the model makes no native call. StepNotes adds "<status>Turn X of
// Y</status>" to the last message of each request (agent mode). DoneMarkers are strings that end the run when the model
// writes them (agent mode: "%%DONE%%", "%%COMPLETED%%", "%%COMPLETE%%"),
// also in a response with tool calls (the calls run first). AgentMode
// makes the run take all MaxTurns turns: an answer without tool calls
// does not end it, the next turn gets [ContinuePrompt] as the user
// message; only a done marker or the last turn ends it. BeforeRequest,
// when not nil, sees each request just before it is sent (--verbose
// dumps it); it must not change it.
type Config struct {
	Model         ModelInfo
	System        string
	Request       llm.Request
	MaxTurns      int
	CompactAt     float64
	TextToolCalls bool
	// CommandBlocks also parses iptic-memex assistant command blocks
	// (%%CMD%% ... %%END%%) as text tool calls: for models configured to
	// call tools in text only.
	CommandBlocks bool
	StepNotes     bool
	DoneMarkers   []string
	AgentMode     bool
	BeforeRequest func(req *llm.Request)
	// EngineTools are engine-owned tools offered next to the registry's
	// (todo_write is always offered; Ralph adds complete_task).
	EngineTools []EngineTool
	// Fallbacks are the models a run continues on, in order, when its
	// model fails with a rate limit, an exhausted quota, an overload or
	// an unknown model after the client's retries (see fallback.go).
	Fallbacks []ModelRef
	// SmallModel, when set, writes the compaction summaries instead of
	// the run's model (never the answers).
	SmallModel *ModelRef
	// Budget is the run's cost governor (see [Budget]; zero: no limits).
	Budget Budget
	// Harness holds the harness mechanisms of the run (see [Harness];
	// zero: none).
	Harness Harness
}

// ContinuePrompt is the user message of an agent-mode turn that follows an
// answer without tool calls.
const ContinuePrompt = "continue"

// Engine runs conversations: it sends the session to the model, runs the
// tool calls the policy allows, feeds the results back, and repeats until
// the model answers. It is safe to share between sessions; one Run at a
// time per session.
type Engine struct {
	Client   llm.Client
	Tools    Tools
	Policy   Policy
	Approver Approver // nil: cannot ask (headless); not allowed means denied
	Asker    Asker    // nil: no one answers questions; ask_user is not offered
	Store    Store    // nil: nothing persisted
	Hooks    Hooks    // nil: no hook commands run
	Config   Config
	Now      func() time.Time

	mu      sync.Mutex
	running map[string]bool
}

// Clone returns a new engine with every field of e's setup (Config deep
// enough that changing the clone's Config, EngineTools or Fallbacks
// leaves e's alone); the clone has no runs of its own yet. It is the one
// way to derive an engine from another: a field added to Engine is
// copied here (TestCloneCopiesEveryField fails otherwise).
func (e *Engine) Clone() *Engine {
	cfg := e.Config
	cfg.EngineTools = slices.Clone(cfg.EngineTools)
	cfg.Fallbacks = slices.Clone(cfg.Fallbacks)
	cfg.DoneMarkers = slices.Clone(cfg.DoneMarkers)
	return &Engine{Client: e.Client, Tools: e.Tools, Policy: e.Policy, Approver: e.Approver, Asker: e.Asker,
		Store: e.Store, Hooks: e.Hooks, Config: cfg, Now: e.Now}
}

// WithModel returns a clone of e on model m: its client, model info,
// text tool-call mode, reasoning settings, and, when m has them, its
// priced store and tool set. Everything else (policy, approvals, hooks,
// the asker, the system prompt, budget, engine tools) stays e's, so
// every guarantee of e holds on the clone. A run's fallback applies m
// the same way.
func (e *Engine) WithModel(m *OpenModel) *Engine {
	c := e.Clone()
	c.Client = m.Client
	applyModel(&c.Config, m)
	if m.Store != nil {
		c.Store = m.Store
	}
	if m.Tools != nil {
		c.Tools = m.Tools
	}
	return c
}

// ErrBusy is returned by Run when the session already has a run going.
var ErrBusy = errors.New("this session already has a run in progress")

// Run adds input as a user message and works until the model answers
// without tool calls, a limit is reached, or ctx is cancelled. Events go to
// emit (never nil) as they happen. The returned DoneInfo is also the last
// event; the error is non-nil for provider failures and cancellation (the
// session keeps everything completed up to then, and the partial answer).
func (e *Engine) Run(ctx context.Context, s *Conversation, input []llm.Part, emit func(Event)) (*DoneInfo, error) {
	if err := e.acquire(s.ID); err != nil {
		return nil, err
	}
	defer e.release(s.ID)
	r, ctx := newRun(ctx, e, s, emit, true)
	return r.loop(ctx, llm.Message{Role: llm.RoleUser, Parts: input})
}

// labelled returns emit that sets Model to model() (the model the run
// uses now: a fallback once it took over) on the events a model's work
// produces (waiting, text, reasoning, tool calls and results, usage) when
// they have none yet: a subagent's events keep its own model.
func labelled(emit func(Event), model func() string) func(Event) {
	return func(ev Event) {
		if ev.Model == "" && ev.Type.fromModel() {
			ev.Model = model()
		}
		emit(ev)
	}
}

// fromModel tells the event types labelled with the model of their run.
func (t EventType) fromModel() bool {
	switch t {
	case EventWaiting, EventText, EventReasoning, EventToolCall, EventToolResult, EventUsage:
		return true
	}
	return false
}

// serialized returns emit guarded by a mutex: calls running in parallel
// (read-only batches, task calls and their children) report events one at
// a time.
func serialized(emit func(Event)) func(Event) {
	var mu sync.Mutex
	return func(ev Event) {
		mu.Lock()
		defer mu.Unlock()
		emit(ev)
	}
}

func (e *Engine) acquire(id string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.running == nil {
		e.running = map[string]bool{}
	}
	if e.running[id] {
		return ErrBusy
	}
	e.running[id] = true
	return nil
}

func (e *Engine) release(id string) {
	e.mu.Lock()
	delete(e.running, id)
	e.mu.Unlock()
}

// run is the state of one Run call.
type run struct {
	e       *Engine
	s       *Conversation
	cfg     Config
	emit    func(Event)
	turns   int
	denials int
	// hookDenials counts the calls a hook refused (see hookDeny).
	hookDenials int
	// deniedChanges counts the denied calls that would have changed
	// something (kind write or exec).
	deniedChanges int
	// lastSig/repeats detect the same call made again and again.
	lastSig string
	repeats int
	usage   llm.Usage
	lastRaw []byte
	// lastFinish is the provider's finish reason of the last response.
	lastFinish string
	// last is the text of the last response.
	last string
	// stopActive: the run continued because a Stop hook blocked.
	stopActive bool
	// hookStop is the answer of a hook that ended the run ("continue": false).
	hookStop *HookAnswer
	// manualCompact: a compaction asked for (the compact command).
	manualCompact bool
	// asked counts the run's interactions (for their ids).
	asked int
	// routing is the run's model routing: the client and store of the
	// model it uses now, and the fallbacks left (fallback.go).
	routing
	// budget is the account the run is charged to (nil: no limits): its
	// own, or, inherited, its parent's or its turn's (ShareBudget).
	budget    *budgetState
	inherited bool
	// verify is the state of verify before finishing (harness.go).
	verify verifyState
	// loops counts failing commands and edits (loops.go).
	loops loopState
	// plan is the state of the planning nudge (plan.go).
	plan planState
	// started is when the run began (the time limit's start, timenote.go).
	started time.Time
}

func (r *run) normalize() {
	if r.cfg.MaxTurns <= 0 {
		r.cfg.MaxTurns = 25
	}
	if r.cfg.CompactAt <= 0 || r.cfg.CompactAt > 1 {
		r.cfg.CompactAt = 0.85
	}
	if r.e.Now == nil {
		r.e.Now = time.Now
	}
	r.initRouting()
}

func (r *run) loop(ctx context.Context, user llm.Message) (*DoneInfo, error) {
	r.start(ctx, true)
	if d := r.budgetStart(ctx); d != nil {
		return d, nil
	}
	if err := r.append(ctx, user, nil); err != nil {
		return r.fail(err)
	}
	return r.steps(ctx)
}

// start reports the run's session and, when closeOpen is set, answers the
// calls a run that died between the calls and their results left open.
func (r *run) start(ctx context.Context, closeOpen bool) {
	r.emitSession()
	if calls := unansweredCalls(r.s.Messages); closeOpen && len(calls) > 0 {
		// A run that died between the calls and their results (process
		// killed, failed save) left calls no request may carry unanswered.
		r.closeCalls(ctx, calls, false, "not run: the previous run ended before this call completed")
	}
}

// steps asks the model and runs its tool calls until the run ends.
func (r *run) steps(ctx context.Context) (*DoneInfo, error) {
	for {
		if d := r.limited(r.last); d != nil {
			return d, nil
		}
		resp, err := r.respond(ctx)
		if err != nil {
			return r.stopOnError(ctx, resp, err)
		}
		r.lastFinish = resp.FinishReason
		if d, end, err := r.handle(ctx, resp.Message); end {
			return d, err
		}
	}
}

// handle runs the tool calls of the assistant message m (already in the
// session); end is true when the run ends with d and err.
func (r *run) handle(ctx context.Context, m llm.Message) (*DoneInfo, bool, error) {
	r.last = m.Text()
	calls, textMode := m.ToolCalls(), false
	if len(calls) == 0 && r.cfg.TextToolCalls {
		calls = r.textCalls(r.last)
		textMode = len(calls) > 0
	}
	if len(calls) == 0 {
		if r.cfg.AgentMode && !r.markerSeen(r.last) && r.turns < r.cfg.MaxTurns {
			if err := r.append(ctx, llm.Message{Role: llm.RoleUser, Parts: []llm.Part{{Type: llm.PartText, Text: ContinuePrompt}}}, nil); err != nil {
				d, err := r.fail(err)
				return d, true, err
			}
			return nil, false, nil
		}
		return r.answered(ctx, r.last)
	}
	if name := r.looping(calls); name != "" {
		msg := fmt.Sprintf("stopped: the model called %s with the same arguments 3 times in a row", name)
		r.emit(Event{Type: EventError, SessionID: r.s.ID, Error: &ErrorInfo{Message: msg, Kind: "loop", Fatal: true}})
		r.closeCalls(ctx, calls, textMode, "not run: the same call was repeated 3 times in a row; the run was stopped")
		return r.done(StopLoop, msg), true, nil
	}
	if err := r.runCalls(ctx, calls, textMode); err != nil {
		d, err := r.fail(err)
		return d, true, err
	}
	switch {
	case ctx.Err() != nil:
		d, err := r.cancelled()
		return d, true, err
	case r.hookStop != nil:
		return r.stoppedByHook(), true, nil
	case r.loops.stop != "":
		return r.loopStop(), true, nil
	case r.markerSeen(r.last):
		// The marker ends the run after this response's calls ran.
		return r.done(StopMarker, r.last), true, nil
	}
	return nil, false, nil
}

// emitSession emits the run's first event: the session it works in.
func (r *run) emitSession() {
	r.emit(Event{Type: EventSession, SessionID: r.s.ID, Session: &SessionInfo{
		ID: r.s.ID, Provider: r.cfg.Model.Provider, Model: r.cfg.Model.Name,
		Workspace: r.s.Workspace, Resumed: len(r.s.Messages) > 0}})
}

// limited ends the run, before its next model request, when a budget is
// used up (the step's tool calls have their results: a clean boundary)
// or the turn limit is reached; nil otherwise.
func (r *run) limited(last string) *DoneInfo {
	if r.budgetHit() != nil {
		return r.done(StopBudget, last)
	}
	if r.turns >= r.cfg.MaxTurns {
		return r.done(StopMaxTurns, last)
	}
	return nil
}

// answered ends the run after an answer without tool calls (end true),
// unless a Stop hook blocks: its reason then goes to the model as a user
// message and the run goes on.
func (r *run) answered(ctx context.Context, last string) (*DoneInfo, bool, error) {
	msg := r.stopHook(ctx)
	if r.hookStop != nil {
		return r.stoppedByHook(), true, nil
	}
	if msg == "" {
		msg = r.verifyBeforeFinish(ctx)
	}
	if msg == "" {
		return r.done(r.stopReason(last), last), true, nil
	}
	if err := r.append(ctx, llm.UserText(msg), nil); err != nil {
		d, err := r.fail(err)
		return d, true, err
	}
	return nil, false, nil
}

// stoppedByHook ends a run a hook stopped ("continue": false), its
// stopReason shown to the user.
func (r *run) stoppedByHook() *DoneInfo {
	msg := "a hook stopped the run"
	if r.hookStop.StopReason != "" {
		msg += ": " + r.hookStop.StopReason
	}
	r.emit(Event{Type: EventError, SessionID: r.s.ID, Error: &ErrorInfo{Message: msg, Kind: "hook"}})
	return r.done(StopHook, lastAssistantText(r.s.Messages))
}

// respond sends the session to the model once, compacting first when the
// context window is nearly full, and once more after a compaction when the
// provider says the prompt is too long.
func (r *run) respond(ctx context.Context) (*llm.Response, error) {
	if r.needsCompaction() {
		if err := r.compact(ctx, ""); err != nil && ctx.Err() == nil && !errors.Is(err, errNothingToCompact) {
			r.emit(Event{Type: EventError, SessionID: r.s.ID, Error: &ErrorInfo{Message: "compaction failed: " + err.Error(), Kind: "compaction"}})
		}
	}
	resp, err := r.generate(ctx)
	if err != nil && llm.IsContextTooLong(err) && (resp == nil || len(resp.Message.Parts) == 0) {
		if cerr := r.compact(ctx, ""); cerr == nil {
			resp, err = r.generate(ctx)
		}
	}
	for err != nil && r.fallBack(ctx, resp, err) {
		resp, err = r.generate(ctx)
	}
	return resp, err
}

// generate makes one model request and records the assistant message.
func (r *run) generate(ctx context.Context) (*llm.Response, error) {
	resp, err := r.call(ctx)
	if len(resp.Message.Parts) > 0 {
		u := resp.Usage
		if aerr := r.append(ctx, resp.Message, &u); aerr != nil && err == nil {
			err = aerr
		}
	} else {
		r.saveUsage(ctx, resp.Usage)
	}
	r.account(resp.Usage)
	return resp, err
}

// call makes one model request and returns its response (never nil: a
// failed one keeps the text it delivered), the assistant message labelled
// with the model; nothing is recorded.
func (r *run) call(ctx context.Context) (*llm.Response, error) {
	req := r.request()
	r.timeNote(ctx, req)
	r.turns++
	if r.cfg.BeforeRequest != nil {
		r.cfg.BeforeRequest(req)
	}
	r.emit(Event{Type: EventWaiting, SessionID: r.s.ID, Waiting: &WaitingInfo{
		Provider: r.cfg.Model.Provider, Model: r.cfg.Model.Name, InputTokens: r.requestTokens(req), Turn: r.turns}})
	resp, err := r.client.Generate(ctx, req, r.forward)
	if resp == nil {
		resp = &llm.Response{Message: llm.Message{Role: llm.RoleAssistant}}
	}
	if len(resp.Raw) > 0 {
		r.lastRaw = resp.Raw
	}
	if err != nil {
		resp.Message = partialMessage(resp.Message)
	}
	if len(resp.Message.Parts) > 0 {
		resp.Message.Model = r.cfg.Model.ID()
	}
	return resp, err
}

// forward maps model events to engine events.
func (r *run) forward(ev llm.Event) {
	switch ev.Type {
	case llm.EventText:
		r.emit(Event{Type: EventText, SessionID: r.s.ID, Text: ev.Text})
	case llm.EventReasoning:
		r.emit(Event{Type: EventReasoning, SessionID: r.s.ID, Text: ev.Text})
	}
}

// request builds the next model request from the session.
func (r *run) request() *llm.Request {
	req := r.cfg.Request
	req.Model = r.cfg.Model.Name
	req.System = r.cfg.System
	req.Messages = r.s.Messages
	req.Tools = r.specs()
	if r.cfg.StepNotes {
		req.Messages = withStatus(req.Messages, fmt.Sprintf("<status>Turn %d of %d</status>", r.turns+1, r.cfg.MaxTurns))
	}
	return &req
}

// withStatus returns msgs with note added to the last message, for this
// request only (the session keeps msgs as they are): as a text part of a
// user message, or at the end of the last tool result. The system prompt
// stays the same from turn to turn, so the provider's prompt cache keeps
// it. A conversation that ends otherwise is returned unchanged.
func withStatus(msgs []llm.Message, note string) []llm.Message {
	if len(msgs) == 0 {
		return msgs
	}
	last := msgs[len(msgs)-1]
	parts := append([]llm.Part(nil), last.Parts...)
	switch i := len(parts) - 1; {
	case last.Role == llm.RoleUser:
		parts = append(parts, llm.Part{Type: llm.PartText, Text: note})
	case last.Role == llm.RoleTool && i >= 0 && parts[i].ToolResult != nil:
		tr := *parts[i].ToolResult
		tr.Content += "\n\n" + note
		parts[i].ToolResult = &tr
	default:
		return msgs
	}
	out := append([]llm.Message(nil), msgs...)
	out[len(out)-1] = llm.Message{Role: last.Role, Parts: parts}
	return out
}

// account adds a response's usage to the run and the session and reports it.
func (r *run) account(u llm.Usage) { r.accountOf(u, r.cfg.Model) }

// accountOf is account for a response of model m, priced at m's prices
// and labelled with it (the run's model, or the small model of a
// compaction summary).
func (r *run) accountOf(u llm.Usage, m ModelInfo) {
	if u == (llm.Usage{}) {
		return
	}
	r.usage = r.usage.Add(u)
	r.s.Usage = r.s.Usage.Add(u)
	cost := m.Cost(u)
	r.s.CostUSD += cost
	info := &UsageInfo{Turn: u, Session: r.s.Usage, CostUSD: r.s.CostUSD, TurnCostUSD: cost, ContextTokens: u.InputTokens, ContextWindow: m.ContextWindow}
	if w := m.ContextWindow; w > 0 {
		info.ContextPercent = 100 * float64(u.InputTokens) / float64(w)
	}
	r.emit(Event{Type: EventUsage, SessionID: r.s.ID, Usage: info, Model: m.ID()})
}

func (r *run) append(ctx context.Context, m llm.Message, u *llm.Usage) error {
	r.s.Messages = append(r.s.Messages, m)
	if r.store == nil {
		return nil
	}
	// The session is saved even when the run's context was cancelled.
	if err := r.store.AppendMessage(context.WithoutCancel(ctx), r.s.ID, m, u); err != nil {
		return fmt.Errorf("save message: %w", err)
	}
	return nil
}

func (r *run) stopReason(text string) StopReason {
	if r.markerSeen(text) {
		return StopMarker
	}
	return StopDone
}

func (r *run) markerSeen(text string) bool {
	for _, m := range r.cfg.DoneMarkers {
		if m != "" && strings.Contains(text, m) {
			return true
		}
	}
	return false
}

// looping reports the tool name when the same single call (name and
// arguments) has now been made three times in a row.
func (r *run) looping(calls []llm.ToolCall) string {
	var sig strings.Builder
	for _, c := range calls {
		sig.WriteString(c.Name)
		sig.WriteByte(0)
		sig.Write(canonicalJSON(c.Arguments))
		sig.WriteByte(0)
	}
	if sig.String() == r.lastSig {
		r.repeats++
	} else {
		r.lastSig, r.repeats = sig.String(), 1
	}
	if r.repeats >= 3 {
		return calls[0].Name
	}
	return ""
}

func (r *run) stopOnError(ctx context.Context, resp *llm.Response, err error) (*DoneInfo, error) {
	if ctx.Err() != nil {
		return r.cancelled()
	}
	kind := string(llm.KindOf(err))
	r.emit(Event{Type: EventError, SessionID: r.s.ID, Error: &ErrorInfo{Message: err.Error(), Kind: kind, Fatal: true}})
	text := ""
	if resp != nil {
		text = resp.Message.Text()
	}
	d := r.done(StopError, text)
	return d, err
}

func (r *run) cancelled() (*DoneInfo, error) {
	r.emit(Event{Type: EventError, SessionID: r.s.ID, Error: &ErrorInfo{Message: "cancelled", Kind: "cancelled", Fatal: true}})
	return r.done(StopCancelled, lastAssistantText(r.s.Messages)), context.Canceled
}

func (r *run) fail(err error) (*DoneInfo, error) {
	r.emit(Event{Type: EventError, SessionID: r.s.ID, Error: &ErrorInfo{Message: err.Error(), Kind: "engine", Fatal: true}})
	return r.done(StopError, ""), err
}

func (r *run) done(reason StopReason, result string) *DoneInfo {
	d := &DoneInfo{StopReason: reason, Turns: r.turns, Result: result, Usage: r.usage, CostUSD: r.s.CostUSD, Denials: r.denials, HookDenials: r.hookDenials,
		DeniedChanges: r.deniedChanges, Raw: r.lastRaw, FinishReason: r.lastFinish}
	if reason == StopBudget {
		d.Budget = r.budgetHit()
	}
	info := r.cfg.Harness.Info()
	d.Harness = &info
	d.Verified, d.VerifyReason = r.verification(reason)
	r.emit(Event{Type: EventDone, SessionID: r.s.ID, Done: d})
	return d
}

// partialMessage keeps the text a failed or cancelled response delivered.
// Tool calls are dropped (a call without its result would make the next
// request invalid) and so is reasoning (providers reject unsigned thinking).
func partialMessage(m llm.Message) llm.Message {
	out := llm.Message{Role: llm.RoleAssistant}
	for _, p := range m.Parts {
		if p.Type == llm.PartText && p.Text != "" {
			out.Parts = append(out.Parts, p)
		}
	}
	return out
}

// unansweredCalls returns the native tool calls of the last message when
// it is an assistant message (so no results follow them).
func unansweredCalls(msgs []llm.Message) []llm.ToolCall {
	if len(msgs) == 0 || msgs[len(msgs)-1].Role != llm.RoleAssistant {
		return nil
	}
	return msgs[len(msgs)-1].ToolCalls()
}

func lastAssistantText(msgs []llm.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == llm.RoleAssistant {
			return msgs[i].Text()
		}
	}
	return ""
}
