package app

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app/multi"
	turns "github.com/zelvior/aidex/internal/app/turn"
	"github.com/zelvior/aidex/internal/hooks"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/mcp"
)

// SessionOptions configure a live session ([Service.Session]).
//
// Approver asks the user (nil: cannot ask; what the policy does not allow
// is denied). Asker answers ask_user (nil: not offered, see
// the options of [Runtime.Engine]). MaxTurns caps model responses per run (0: max_tool_turns).
// AgentWrites, AppendSystem, Web and Client are as in the options of [Runtime.Engine].
// Agent, when not nil, makes every run of the session an agent-mode run
// (--steps).
type SessionOptions struct {
	Approver     agent.Approver
	Asker        agent.Asker
	MaxTurns     int
	AppendSystem string
	AgentWrites  string
	Agent        *AgentMode
	Web          bool
	Client       ClientOptions
	// SubagentStop is as in the options of [Runtime.Engine].
	SubagentStop func(ctx context.Context, r subagentReport)
	// Editor is as in the options of [Runtime.Engine].
	Editor editorFiles
	// Chooser picks the answers to keep of a parallel turn (nil: KeepAll
	// decides).
	Chooser multi.Chooser
	// KeepAll keeps every answer of a parallel turn when there is no
	// Chooser, as multi_keep = "all" (--keep all) does; otherwise the
	// first successful one in list order is kept.
	KeepAll bool
	// KeepRaw keeps the provider's raw last response in the run's
	// DoneInfo.Raw (headless --raw); without it no raw chunk is kept.
	KeepRaw bool
	// Verify and Headless are as in the options of [Runtime.Engine].
	Verify   bool
	Headless bool
}

// AgentMode configures agent mode (iptic-memex's --steps): each run takes
// Steps assistant turns; an answer without tool calls does not end it (the
// next turn gets "continue"), only a finish marker ([FinishMarkers]) or
// the last step does. The system prompt tells the model the finish
// marker, once. StatusTags tells the model "Turn X of Y" each turn.
// BeforeRequest, when not nil, sees each request before it is sent
// (--verbose dumps it); it must not change it.
type AgentMode struct {
	Steps         int
	StatusTags    bool
	BeforeRequest func(req *llm.Request)
}

// FinishMarkers returns the strings that end an agent-mode run when the
// model writes them: "%%DONE%%", "%%COMPLETED%%" and "%%COMPLETE%%".
func FinishMarkers() []string { return []string{"%%DONE%%", "%%COMPLETED%%", "%%COMPLETE%%"} }

// Session is a live session: a stored conversation with the engine that
// continues it, built for the service's current runtime (and rebuilt
// when a switch replaced it). Runs are one at a time per session; the
// accessors are safe to call while a run goes on.
type Session struct {
	svc  *Service
	opts SessionOptions

	// mcpNoticed is set once the session's first run reported the MCP
	// servers that failed to start (guarded by mu).
	mcpNoticed bool

	// subagents counts the session's subagent runs and bounds how many
	// run at once, across engine rebuilds (guarded by build).
	subagents *subagentTree

	// build serialises engine (re)builds; a run holds no lock but sets
	// running, and rebuilds, Use and a second run refuse while it is set.
	build sync.Mutex

	mu       sync.Mutex
	running  bool
	sess     *agent.Conversation
	rt       *Runtime
	gen      int
	eng      *agent.Engine
	closeEng func()
	// derived is what eng's runs derive for other models (derive.go):
	// replaced, and the old one closed, with eng.
	derived *derived
	// pending are parts (shell output) added to the conversation that go
	// to the model with the next prompt.
	pending []llm.Part
	// lastAnswer is the final text of the last run.
	lastAnswer string
	// hookNotes are hook messages for the user (SessionStart's) shown
	// at the next run.
	hookNotes []string
	// next is what an expansion (Expand) changes for the next run.
	next *turn
	// mcp is the service's MCP manager (nil: no servers configured).
	mcp *mcp.Manager
	// seen is the store's updated_at of the session as this live session
	// holds it: when it was loaded (agent.Conversation.StoredAt), then after
	// each run (zero: reload before the next run).
	seen time.Time
	// jobs are the small model's background work (a title, sidejobs.go),
	// under jobsCtx; Close cancels and waits for them.
	jobs     sync.WaitGroup
	jobsCtx  context.Context
	stopJobs context.CancelFunc
	// loading is the load of the conversation's messages PickRecent
	// started (nil: sess holds them all).
	loading *conversationLoad
	// multi is the conversation mode and the active models (multi.go).
	multi multiState
	// hooks is what the session's hooks leave for later: SessionStart's
	// CLAUDE_ENV_FILE variables, the transcripts temp folder (removed
	// by Close).
	hooks *hookState
}

// Session returns the live session for stored session sess (from
// [Service.Pick], or the store). The engine is built at once, so
// configuration errors (bad permission rules) surface here. Close the
// session when done.
func (s *Service) Session(ctx context.Context, sess *agent.Conversation, o SessionOptions) (*Session, error) {
	if err := s.Runtime().ProjectContent().contentGate(o); err != nil {
		return nil, err
	}
	sub := s.Runtime().Config.Subagents
	ls := &Session{svc: s, opts: o, sess: sess, seen: sess.StoredAt, subagents: newSubagentTree(sub.MaxParallel, sub.MaxRuns), mcp: s.MCP(ctx),
		loading: s.loads.of(sess), hooks: &hookState{Base: s.hookState}}
	for _, c := range (setupHooks{s}).pending() {
		ls.pending = append(ls.pending, llm.Part{Type: llm.PartText, Text: c})
	}
	if err := (sessionModels{ls}).init(s.Runtime()); err != nil {
		return nil, err
	}
	if err := (sessionModels{ls}).restore(ctx, sess.ID); err != nil {
		return nil, err
	}
	ls.jobsCtx, ls.stopJobs = context.WithCancel(context.WithoutCancel(ctx))
	if _, err := ls.engine(ctx); err != nil {
		ls.stopJobs()
		return nil, err
	}
	ls.sessionStart(ctx, sess, "startup")
	return ls, nil
}

// engine returns the session's engine, built first (and the session's
// provider and model recorded) when there is none or the service's
// runtime changed since it was built. Errors: the engine's build, the
// store's; a failed build leaves the old engine in place.
func (ls *Session) engine(ctx context.Context) (*agent.Engine, error) {
	ls.build.Lock()
	defer ls.build.Unlock()
	rt, gen := ls.svc.current()
	ls.mu.Lock()
	if ls.eng != nil && ls.gen == gen {
		eng := ls.eng
		ls.mu.Unlock()
		return eng, nil
	}
	sess, seen := ls.sess, ls.seen
	ls.mu.Unlock()
	eng, closeEng, err := rt.Engine(ctx, ls.engineOptions(sess.ID))
	if err != nil {
		return nil, err
	}
	// Recording the model updates the session: the copy held stays
	// current (no reload before the next run) only if it was so before.
	seen, err = ls.svc.store.SetModelSince(ctx, sess.ID, rt.Provider.Name, rt.Model, seen)
	if err != nil {
		closeEng()
		return nil, fmt.Errorf("record the session's model: %w", err)
	}
	ls.mu.Lock()
	old, oldDerived := ls.closeEng, ls.derived
	ls.eng, ls.closeEng, ls.rt, ls.gen, ls.seen, ls.derived = eng, closeEng, rt, gen, seen, &derived{}
	ls.mu.Unlock()
	oldDerived.close()
	if old != nil {
		old()
	}
	return eng, nil
}

// idle returns agent.ErrBusy while a run of the session is going.
func (ls *Session) idle() error {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if ls.running {
		return agent.ErrBusy
	}
	return nil
}

func (ls *Session) engineOptions(id string) engineOptions {
	o := ls.opts
	eo := engineOptions{Store: ls.svc.store, SessionID: id, Approver: o.Approver, Asker: o.Asker, MaxTurns: o.MaxTurns,
		AgentWrites: o.AgentWrites, AppendSystem: o.AppendSystem, Web: o.Web, Client: o.Client,
		SubagentStop: o.SubagentStop, subagents: ls.subagents, MCP: ls.mcp, Editor: o.Editor, KeepRaw: o.KeepRaw, hookState: ls.hooks,
		Verify: o.Verify, Headless: o.Headless}
	if a := o.Agent; a != nil {
		eo.AgentMode, eo.DoneMarkers, eo.StepNotes, eo.BeforeRequest = true, FinishMarkers(), a.StatusTags, a.BeforeRequest
		if a.Steps > 0 {
			eo.MaxTurns = a.Steps
		}
	}
	return eo
}

// Refresh rebuilds the engine now if the service's runtime changed (a
// switch), so its errors show at once rather than at the next run.
// Errors: agent.ErrBusy while a run is going, the build's.
func (ls *Session) Refresh(ctx context.Context) error {
	if err := ls.idle(); err != nil {
		return err
	}
	_, err := ls.engine(ctx)
	return err
}

// Run sends parts (with any queued context first) to the model and blocks
// until the run ends; events go to emit. A cancelled run returns
// context.Canceled after the engine kept the partial answer. Errors:
// agent.ErrBusy when a run of this session is going, the engine's.
func (ls *Session) Run(ctx context.Context, parts []llm.Part, emit func(agent.Event)) (*agent.DoneInfo, error) {
	return ls.RunWith(ctx, parts, nil, emit)
}

// RunWith is Run with engine-owned tools offered for this run only (e.g.
// Ralph's complete_task for /implement). The session's engine is not
// changed: the run uses a copy whose Config.EngineTools has extra
// appended. Errors: agent.ErrBusy when a run of this session is going,
// the engine's build, the run's.
//
// A run holds the session's lock (a file lock in the data directory), so
// two aidex processes never run one session at once: the second is
// refused at once with a *sessionInUseError naming the holder's pid. A
// run first reloads the conversation when another process continued it
// since this live session's last run.
func (ls *Session) RunWith(ctx context.Context, parts []llm.Part, extra []agent.EngineTool, emit func(agent.Event)) (*agent.DoneInfo, error) {
	end, err := ls.begin()
	if err != nil {
		return nil, err
	}
	defer end()
	t, finish, err := turnPrep{ls}.prepare(ctx, parts, extra, emit)
	if err != nil {
		return nil, err
	}
	defer finish()
	// One account: both architect phases, every active model, their subagents.
	done, err := turns.Run(agent.ShareBudget(ctx), t)
	if done != nil && done.Result != "" {
		ls.mu.Lock()
		ls.lastAnswer = done.Result
		ls.mu.Unlock()
	}
	return done, err
}

// begin marks the session running; end marks it idle again. Errors:
// agent.ErrBusy while another run is going.
func (ls *Session) begin() (end func(), err error) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if ls.running {
		return nil, agent.ErrBusy
	}
	ls.running = true
	return func() {
		ls.mu.Lock()
		ls.running = false
		ls.mu.Unlock()
	}, nil
}

// withEngineTools returns a clone of e whose Config.EngineTools has extra
// appended, replacing tools of the same name (e itself is unchanged).
func withEngineTools(e *agent.Engine, extra []agent.EngineTool) *agent.Engine {
	c := e.Clone()
	c.Config.EngineTools = mergeEngineTools(c.Config.EngineTools, extra)
	return c
}

// derivedOf returns what the session's current engine derives for other
// models (never nil).
func (ls *Session) derivedOf() *derived {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if ls.derived == nil {
		ls.derived = &derived{}
	}
	return ls.derived
}

// Use switches the live session to stored session sess (a new
// conversation, or one resumed), with a fresh engine; queued context and
// the last answer are dropped. Errors: agent.ErrBusy while a run is
// going, the build's.
func (ls *Session) Use(ctx context.Context, sess *agent.Conversation) error {
	if err := ls.idle(); err != nil {
		return err
	}
	if err := ls.waitLoaded(ctx); err != nil {
		return err
	}
	ls.build.Lock()
	defer ls.build.Unlock()
	rt, gen := ls.svc.current()
	// A new conversation starts a new count of subagent runs (the build
	// lock guards the tree).
	ls.subagents = newSubagentTree(rt.Config.Subagents.MaxParallel, rt.Config.Subagents.MaxRuns)
	eng, closeEng, err := rt.Engine(ctx, ls.engineOptions(sess.ID))
	if err != nil {
		return err
	}
	ls.mu.Lock()
	old, oldDerived := ls.closeEng, ls.derived
	ls.sess, ls.eng, ls.closeEng, ls.rt, ls.gen, ls.derived = sess, eng, closeEng, rt, gen, &derived{}
	ls.pending, ls.lastAnswer, ls.seen, ls.next = nil, "", sess.StoredAt, nil
	ls.loading = ls.svc.loads.of(sess)
	ls.multi.rot.Set(-1) // a new conversation's rotation starts from its own history
	ls.mu.Unlock()
	oldDerived.close()
	if old != nil {
		old()
	}
	if err := (sessionModels{ls}).restore(ctx, sess.ID); err != nil {
		return err
	}
	ls.sessionStart(ctx, sess, "clear")
	return nil
}

// Close stops what the engine's tools started (background processes)
// and the small model's background work.
func (ls *Session) Close() {
	sideJobs{ls}.endJobs()
	if h := ls.hookAdapter(); h != nil {
		out := h.Fire(context.Background(), ls.Info(), hooks.Input{Event: hooks.SessionEnd, Reason: "other"})
		_ = out // SessionEnd hooks cannot block, and no one is left to show their messages to
	}
	ls.hooks.Close()
	ls.mu.Lock()
	closeEng, d := ls.closeEng, ls.derived
	ls.closeEng, ls.derived = nil, nil
	ls.mu.Unlock()
	d.close()
	if closeEng != nil {
		closeEng()
	}
}

// Info returns the stored session the live session works in, its whole
// conversation loaded (it waits for a load PickRecent started).
func (ls *Session) Info() *agent.Conversation {
	_ = ls.waitLoaded(context.Background())
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return ls.sess
}

// ID returns the stored session's id (without waiting for a load).
func (ls *Session) ID() string {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return ls.sess.ID
}

// Engine returns the current engine (nil before the first build).
func (ls *Session) Engine() *agent.Engine {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return ls.eng
}

// LastAnswer returns the final answer of the last run ("" before any).
func (ls *Session) LastAnswer() string {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return ls.lastAnswer
}

// AddContext queues text (a shell command's output) that goes to the
// model with the next prompt.
func (ls *Session) AddContext(text string) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	ls.pending = append(ls.pending, llm.Part{Type: llm.PartText, Text: text})
}

// PendingContext reports how many queued context blocks wait for the
// next prompt.
func (ls *Session) PendingContext() int {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return len(ls.pending)
}

// hookAdapter returns the hooks of the session's runtime (nil: none).
func (ls *Session) hookAdapter() *hookAdapter {
	ls.mu.Lock()
	rt := ls.rt
	ls.mu.Unlock()
	if rt == nil {
		return nil
	}
	return rt.engineRoom().hookAdapterFor(engineOptions{hookState: ls.hooks})
}

// sessionStart runs the SessionStart hooks (source "startup", or
// "resume" for a conversation with messages): their added context goes
// to the model with the next prompt, their messages to the user at the
// next run.
func (ls *Session) sessionStart(ctx context.Context, sess *agent.Conversation, source string) {
	h := ls.hookAdapter()
	if h == nil {
		return
	}
	_ = ls.waitLoaded(ctx) // hooks get the transcript: the whole conversation
	if len(sess.Messages) > 0 {
		source = "resume"
	}
	out := h.Fire(ctx, sess, hooks.Input{Event: hooks.SessionStart, Source: source, Model: h.Model})
	ls.hooks.AddEnv(out.Env)
	for _, c := range out.Context {
		ls.AddContext("SessionStart hook additional context:\n" + c)
	}
	ls.mu.Lock()
	ls.hookNotes = append(ls.hookNotes, out.Messages...)
	ls.mu.Unlock()
}
