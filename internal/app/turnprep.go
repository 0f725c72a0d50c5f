package app

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app/engine"
	"github.com/zelvior/aidex/internal/app/multi"
	turns "github.com/zelvior/aidex/internal/app/turn"
	"github.com/zelvior/aidex/internal/llm"
)

// turnPrep makes a live session's prompt a turn of the turn pipeline
// (internal/app/turn): the step between the facade (Session.Run) and
// turns.Run. Everything a run does before the engine runs is here, in
// the order it happens, so that a prompt's path reads front end →
// session.go → turnprep.go → app/turn → agent.
type turnPrep struct{ ls *Session }

// prepare readies a run of ls for parts and returns the turn and finish,
// which the caller runs after the turn (it restores the MCP handlers,
// records the store's state of the session and releases its run lock).
// In order: the conversation loaded and pending content reviewed, the
// engine (re)built, the session's run lock taken and the conversation
// reloaded when another process continued it, required MCP servers
// checked, the UserPromptSubmit hooks run, then compose. Errors: each
// step's; on an error nothing is left held.
func (p turnPrep) prepare(ctx context.Context, parts []llm.Part, extra []agent.EngineTool, emit func(agent.Event)) (turns.Turn, func(), error) {
	ls := p.ls
	if err := ls.ready(ctx, emit); err != nil {
		return turns.Turn{}, nil, err
	}
	eng, err := ls.engine(ctx)
	if err != nil {
		return turns.Turn{}, nil, err
	}
	ls.mu.Lock()
	sess := ls.sess
	ls.mu.Unlock()
	unlock, err := lockSession(ls.svc.lockDir, sess.ID)
	if err != nil {
		return turns.Turn{}, nil, err
	}
	if err := p.syncFromStore(ctx, sess); err != nil {
		unlock()
		return turns.Turn{}, nil, err
	}
	release := func() { p.markSeen(context.WithoutCancel(ctx), sess.ID); unlock() }
	if err := p.mcpRequired(); err != nil {
		release()
		return turns.Turn{}, nil, err
	}
	if parts, emit, err = p.promptHooks(ctx, sess, parts, emit); err != nil {
		release()
		return turns.Turn{}, nil, err
	}
	t, restore, err := p.compose(ctx, turns.Turn{Conversation: sess, Engine: eng, Input: parts, Emit: emit}, extra)
	if err != nil {
		release()
		return turns.Turn{}, nil, err
	}
	return t, func() { restore(); release() }, nil
}

// compose makes t (the prompt after its hooks, the session's engine)
// ready: the queued context before the prompt, a pending custom
// command's changes and extra's tools on the engine, the MCP servers'
// handlers on emit (restore ends them), the title started, and the
// strategy's engines (the active models, or the architect's). Errors:
// the command's policy or model, the store's, the strategy engines'
// build.
func (p turnPrep) compose(ctx context.Context, t turns.Turn, extra []agent.EngineTool) (turns.Turn, func(), error) {
	ls := p.ls
	ls.mu.Lock()
	t.Input = append(slices.Clone(ls.pending), t.Input...)
	next := ls.next
	ls.pending, ls.next = nil, nil
	ls.mu.Unlock()
	if next != nil {
		cmd, err := p.command(t.Engine, next)
		if err != nil {
			return t, nil, err
		}
		if t.Engine, err = cmd.Apply(t.Engine); err != nil {
			return t, nil, err
		}
	}
	if len(extra) > 0 {
		t.Engine = withEngineTools(t.Engine, extra)
	}
	emit, restore := p.mcpRun(t.Conversation.ID, t.Emit)
	t.Emit = emit
	sideJobs{ls}.titleLater(t.Conversation, t.Input)
	var err error
	if t, err = p.strategy(ctx, t, next == nil || next.rt == nil); err != nil {
		restore()
		return t, nil, err
	}
	return t, restore, nil
}

// strategy sets t's strategy: the session's active models (the
// conversation mode, recorded for a later -c) when multi may answer,
// else the architect's two phases in architect mode, else t.Engine alone.
// Errors: the store's, the engines' build.
func (p turnPrep) strategy(ctx context.Context, t turns.Turn, multi bool) (turns.Turn, error) {
	ls := p.ls
	m := ls.Multi()
	if err := (sessionModels{ls}).record(ctx, t.Conversation.ID, m); err != nil {
		return t, err
	}
	var err error
	switch {
	case m.Active() && multi:
		t.Models, err = p.models(ctx, t.Engine, m)
	default:
		t.Architect, err = p.architect(ctx, t.Conversation.ID, t.Engine)
	}
	return t, err
}

// models returns the turn of the active models of m in m's mode; base is
// the session's engine for this run. Errors: the engines' build.
func (p turnPrep) models(ctx context.Context, base *agent.Engine, m multi.Setting) (*turns.Models, error) {
	ls := p.ls
	d := ls.derivedOf()
	engs, err := modelEngines(ctx, base, m.Models, sessionModels{ls}.runtime, func(rt *Runtime, base *agent.Engine) (*agent.OpenModel, error) {
		return d.open(rt, base, ls.opts.Client, ls.svc.store)
	})
	if err != nil {
		return nil, err
	}
	ls.mu.Lock()
	keepAll := ls.opts.KeepAll || (ls.rt != nil && ls.rt.Config.MultiKeep == "all")
	ls.mu.Unlock()
	return &turns.Models{Engines: engs, IDs: m.IDs(), Mode: string(m.Mode), Chooser: ls.opts.Chooser, KeepAll: keepAll, Rot: ls.multi.rot}, nil
}

// architect returns the architect turn of eng (the session's engine for
// this run) in architect mode, nil when it is off: the architect's engine
// — the session's options with only the tools of kind read (subagents
// too), on the architect's model, its system prompt told its role, built
// once per session engine — and the editor's, eng on the editor's model
// when editor_model is set. Errors: the engines' build.
func (p turnPrep) architect(ctx context.Context, sessionID string, eng *agent.Engine) (*turns.Architect, error) {
	ls := p.ls
	ls.mu.Lock()
	rt := ls.rt
	ls.mu.Unlock()
	spec, _, on := rt.Architect()
	if !on {
		return nil, nil
	}
	plan, err := ls.derivedOf().architect(ctx, func(ctx context.Context) (*agent.Engine, func(), error) {
		art, err := rt.modelRoom().withModel(rt.Config.ArchitectModel, "architect_model")
		if err != nil {
			return nil, nil, err
		}
		o := ls.engineOptions(sessionID)
		o.ReadOnly = true
		o.AppendSystem = strings.TrimSpace(o.AppendSystem + "\n\n" + turns.ArchitectNote)
		return art.Engine(ctx, o)
	})
	if err != nil {
		return nil, err
	}
	edit := eng
	if strings.TrimSpace(rt.Config.EditorModel) != "" {
		ert, err := rt.modelRoom().withModel(rt.Config.EditorModel, "editor_model")
		if err != nil {
			return nil, err
		}
		if edit, err = ls.derivedOf().model(ert, eng, ls.opts.Client, ls.svc.store); err != nil {
			return nil, err
		}
	}
	return &turns.Architect{Spec: spec, Plan: plan, Edit: edit}, nil
}

// command returns what the custom command t (Session.Expand) changes for
// the run: its policy with t's rules, and its model (derived once per
// engine: later turns share its client). Errors: a rule the policy
// cannot take.
func (p turnPrep) command(eng *agent.Engine, t *turn) (*turns.Command, error) {
	pol, err := p.policy(eng, t)
	if err != nil {
		return nil, err
	}
	c := &turns.Command{Policy: pol}
	if t.rt != nil {
		ls := p.ls
		c.OnModel = func(e *agent.Engine) (*agent.Engine, error) {
			return ls.derivedOf().model(t.rt, e, ls.opts.Client, ls.svc.store)
		}
	}
	return c, nil
}

// policy returns the engine's policy with t's rules added (the policy
// itself when t adds none).
func (p turnPrep) policy(eng *agent.Engine, t *turn) (agent.Policy, error) {
	if t == nil || len(t.rules) == 0 {
		return eng.Policy, nil
	}
	base, ok := eng.Policy.(*engine.Policy)
	ts, ok2 := eng.Tools.(*toolSet)
	if !ok || !ok2 {
		return eng.Policy, nil
	}
	ls := p.ls
	ls.mu.Lock()
	rt := ls.rt
	ls.mu.Unlock()
	extra, err := rt.engineRoom().policyWith(base.P.Workspace(), ls.opts.Approver != nil, ts.reg, t.rules)
	if err != nil {
		return nil, err
	}
	return &turns.AddedRules{Base: base, Extra: &engine.Policy{P: extra}}, nil
}

// promptHooks runs the UserPromptSubmit hooks on parts and returns the
// parts with the context they added, and emit wrapped to show the hook
// messages (SessionStart's kept from before, and these) after the run's
// session event. Errors: a hook refused the prompt.
func (p turnPrep) promptHooks(ctx context.Context, sess *agent.Conversation, parts []llm.Part, emit func(agent.Event)) ([]llm.Part, func(agent.Event), error) {
	ls := p.ls
	ls.mu.Lock()
	notes := ls.hookNotes
	ls.hookNotes = nil
	ls.mu.Unlock()
	if h := ls.hookAdapter(); h != nil {
		var msgs []string
		var err error
		if parts, msgs, err = h.PromptHooks(ctx, sess, parts, emit); err != nil {
			return nil, nil, err
		}
		notes = append(notes, msgs...)
	}
	return parts, engine.AfterSession(sess, notes, emit), nil
}

// syncFromStore reloads sess from the store when the store changed since
// this live session last saw it (another aidex process continued the
// session in between), so a run never answers from a stale conversation.
// Call it with the session's run lock held.
func (p turnPrep) syncFromStore(ctx context.Context, sess *agent.Conversation) error {
	ls := p.ls
	updated, err := ls.svc.store.UpdatedAt(ctx, sess.ID)
	if err != nil {
		return err
	}
	ls.mu.Lock()
	seen := ls.seen
	ls.mu.Unlock()
	if !seen.IsZero() && updated.Equal(seen) {
		return nil
	}
	fresh, err := ls.svc.store.Load(ctx, sess.ID)
	if err != nil {
		return err
	}
	ls.mu.Lock()
	*sess = *fresh // in place: front ends hold this pointer
	ls.mu.Unlock()
	return nil
}

// markSeen records the store's state of the session after a run.
func (p turnPrep) markSeen(ctx context.Context, id string) {
	ls := p.ls
	updated, err := ls.svc.store.UpdatedAt(ctx, id)
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if err == nil {
		ls.seen = updated
	} else {
		ls.seen = time.Time{}
	}
}

// mcpRequired is the error that stops a run while a server configured
// with required = true has failed to start (nil: none has).
func (p turnPrep) mcpRequired() error {
	m := p.ls.mcp
	if m == nil {
		return nil
	}
	if f := m.RequiredFailures(); len(f) > 0 {
		return errors.New(strings.Join(f, "; "))
	}
	return nil
}

// mcpRun readies a run of the session for its MCP servers: the servers'
// failures reported (mcpNotices), their progress notifications sent to emit
// and their elicitations asked through the session's Asker; restore ends it.
func (p turnPrep) mcpRun(sessionID string, emit func(agent.Event)) (func(agent.Event), func()) {
	ls := p.ls
	if ls.mcp == nil {
		return emit, func() {}
	}
	emit, restoreProgress := ls.svc.mcp.progressTo(sessionID, p.mcpNotices(emit))
	restoreAsker := ls.svc.askerTo(ls.opts.Asker, sessionID, emit)
	return emit, func() { restoreAsker(); restoreProgress() }
}

// mcpNotices wraps a run's emit so that the session's first run reports each
// MCP server that failed to start as a notice event (kind "mcp") right after
// the run's session event: the one path every front end's runs take.
func (p turnPrep) mcpNotices(emit func(agent.Event)) func(agent.Event) {
	ls := p.ls
	ls.mu.Lock()
	done := ls.mcpNoticed
	ls.mcpNoticed = true
	ls.mu.Unlock()
	if done {
		return emit
	}
	ls.svc.mcp.mu.Lock()
	m := ls.svc.mcp.m
	ls.svc.mcp.mu.Unlock()
	if m == nil {
		return emit
	}
	failures := m.Failures()
	if len(failures) == 0 {
		return emit
	}
	return func(e agent.Event) {
		emit(e)
		if e.Type == agent.EventSession && failures != nil {
			for _, f := range failures {
				emit(agent.Event{Type: agent.EventNotice, SessionID: e.SessionID, Text: f, Notice: &agent.NoticeInfo{Kind: agent.NoticeMCP}})
			}
			failures = nil
		}
	}
}
