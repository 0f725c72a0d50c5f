package app

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app/multi"
	turns "github.com/zelvior/aidex/internal/app/turn"
	"github.com/zelvior/aidex/internal/config"
)

// multiState is a live session's multi.Setting with the runtimes of its models
// (by id, for the service's runtime generation gen).
type multiState struct {
	cfg multi.Setting
	rts map[string]*Runtime
	gen int
	rot *turns.Rotor
	// saved is the setting as the store holds it for the session
	// (Summary.Conversation): what record last wrote or restore
	// read.
	saved string
}

// multiFromConfig returns the setting of rt's configuration (multi_mode,
// multi_models: --multi, --models); several models and no mode set
// anywhere mean round-robin. Errors: a bad mode or model entry
// (naming the key).
func multiFromConfig(rt *Runtime) (multi.Setting, error) {
	mode, err := multi.ParseMode(rt.Config.MultiMode)
	if err != nil {
		return multi.Setting{}, fmt.Errorf("multi_mode: %w", err)
	}
	out := multi.Setting{Mode: mode}
	for _, s := range rt.Config.MultiModels {
		m, err := multi.ParseActiveModel(s)
		if err != nil {
			return multi.Setting{}, fmt.Errorf("multi_models (--models): %w", err)
		}
		if !slices.ContainsFunc(out.Models, func(a multi.ActiveModel) bool { return a.ID == m.ID }) {
			out.Models = append(out.Models, m)
		}
	}
	if mode == multi.Single && len(out.Models) > 1 && rt.Config.Sources["multi_mode"] == config.SourceDefault {
		out.Mode = multi.RoundRobin // models given, no mode: each turn the next model
	}
	if mode != multi.Single && len(out.Models) == 0 {
		return multi.Setting{}, fmt.Errorf("multi_mode %s needs active models: set multi_models or --models a,b", mode)
	}
	return out, nil
}

// sessionModels is the part of a live session that keeps its
// multi-model setting (ls.multi, guarded by ls.mu): set from the
// configuration, restored from and recorded in the store, and the
// runtimes of the active models.
type sessionModels struct{ ls *Session }

// init sets the live session's setting from the configuration.
// Errors: as multiFromConfig's.
func (sm sessionModels) init(rt *Runtime) error {
	cfg, err := multiFromConfig(rt)
	if err != nil {
		return err
	}
	sm.ls.multi = multiState{cfg: cfg, rot: turns.NewRotor()}
	return nil
}

// conversationJSON is m as the store keeps it: "" for the model alone.
func conversationJSON(m multi.Setting) string {
	if !m.Active() {
		return ""
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// restore brings a resumed session back to the conversation mode
// and active models it last used (issue 30 item 10), unless the command
// line set them (--multi, --models: flags win). A stored setting that
// cannot be read keeps the configured one. Errors: the store's.
func (sm sessionModels) restore(ctx context.Context, id string) error {
	ls := sm.ls
	sum, err := ls.svc.store.Info(ctx, id)
	if err != nil {
		return fmt.Errorf("read the session's conversation mode: %w", err)
	}
	ls.svc.mu.Lock()
	_, flagMode := ls.svc.opts.Flags["multi_mode"]
	_, flagModels := ls.svc.opts.Flags["multi_models"]
	ls.svc.mu.Unlock()
	ls.mu.Lock()
	defer ls.mu.Unlock()
	ls.multi.saved = sum.Conversation
	if sum.Conversation == "" || flagMode || flagModels {
		return nil
	}
	var m multi.Setting
	if json.Unmarshal([]byte(sum.Conversation), &m) != nil || !m.Active() {
		return nil
	}
	if _, err := multi.ParseMode(string(m.Mode)); err != nil {
		return nil
	}
	ls.multi.cfg = m
	return nil
}

// record stores the setting a turn runs with when it differs from
// the stored one, so that -c comes back on it. Errors: the store's.
func (sm sessionModels) record(ctx context.Context, id string, m multi.Setting) error {
	ls := sm.ls
	conv := conversationJSON(m)
	ls.mu.Lock()
	same := conv == ls.multi.saved
	ls.mu.Unlock()
	if same {
		return nil
	}
	if err := ls.svc.store.SetConversation(ctx, id, conv); err != nil {
		return fmt.Errorf("record the session's conversation mode: %w", err)
	}
	ls.mu.Lock()
	ls.multi.saved = conv
	ls.mu.Unlock()
	return nil
}

// Multi returns the session's conversation mode and active models.
func (ls *Session) Multi() multi.Setting {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	c := ls.multi.cfg
	c.Models = slices.Clone(c.Models)
	return c
}

// SetMultiMode sets the conversation mode. Errors: agent.ErrBusy while
// a run goes on; a mode other than single with no active models (the
// error says to add them).
func (ls *Session) SetMultiMode(mode multi.Mode) error {
	if err := ls.idle(); err != nil {
		return err
	}
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if mode != multi.Single && len(ls.multi.cfg.Models) == 0 {
		return fmt.Errorf("no active models for %s mode: add some first (/multi add PROVIDER/MODEL, --models a,b)", mode)
	}
	ls.multi.cfg.Mode = mode
	return nil
}

// AddModel adds the model of spec ("PROVIDER/MODEL [effort=E]
// [budget=N]", or a model of the current provider) to the active
// models; the first addition puts the session's current model first.
// A model already active gets the new reasoning controls. It returns the
// added model (its id as "PROVIDER/MODEL"). Errors: agent.ErrBusy, a bad
// spec, an unknown model or provider, a provider without its key.
func (ls *Session) AddModel(ctx context.Context, spec string) (multi.ActiveModel, error) {
	if err := ls.idle(); err != nil {
		return multi.ActiveModel{}, err
	}
	m, err := multi.ParseActiveModel(spec)
	if err != nil {
		return m, err
	}
	rt, err := ls.svc.runtimeFor(ctx, m.ID)
	if err != nil {
		return m, err
	}
	m.ID = rt.ModelInfo().ID()
	cur, gen := ls.svc.current()
	ls.mu.Lock()
	defer ls.mu.Unlock()
	ls.multi.runtimes(gen)[m.ID] = rt
	list := ls.multi.cfg.Models
	if len(list) == 0 && cur.ModelInfo().ID() != m.ID {
		list = append(list, multi.ActiveModel{ID: cur.ModelInfo().ID()})
	}
	if i := slices.IndexFunc(list, func(a multi.ActiveModel) bool { return a.ID == m.ID }); i >= 0 {
		list[i] = m
	} else {
		list = append(list, m)
	}
	ls.multi.cfg.Models = list
	return m, nil
}

// RemoveModel removes the model with id (or its model name alone) from
// the active models; with none left the mode is single again. Errors:
// agent.ErrBusy, no such active model (naming the active ones).
func (ls *Session) RemoveModel(id string) error {
	if err := ls.idle(); err != nil {
		return err
	}
	ls.mu.Lock()
	defer ls.mu.Unlock()
	list := ls.multi.cfg.Models
	i := slices.IndexFunc(list, func(a multi.ActiveModel) bool { return a.ID == id || strings.HasSuffix(a.ID, "/"+id) })
	if i < 0 {
		return fmt.Errorf("%s is not an active model (active: %s)", id, strings.Join(ls.multi.cfg.IDs(), ", "))
	}
	ls.multi.cfg.Models = slices.Delete(list, i, i+1)
	if len(ls.multi.cfg.Models) == 0 {
		ls.multi.cfg.Mode = multi.Single
	}
	return nil
}

// SetModels replaces the active models with specs (as AddModel takes
// them; empty: none, and the mode becomes single). Errors: as
// AddModel's; on an error the list is unchanged.
func (ls *Session) SetModels(ctx context.Context, specs []string) error {
	if err := ls.idle(); err != nil {
		return err
	}
	var list []multi.ActiveModel
	_, gen := ls.svc.current()
	rts := map[string]*Runtime{}
	for _, spec := range specs {
		m, err := multi.ParseActiveModel(spec)
		if err != nil {
			return err
		}
		rt, err := ls.svc.runtimeFor(ctx, m.ID)
		if err != nil {
			return fmt.Errorf("%s: %w", m.ID, err)
		}
		m.ID = rt.ModelInfo().ID()
		rts[m.ID] = rt
		if !slices.ContainsFunc(list, func(a multi.ActiveModel) bool { return a.ID == m.ID }) {
			list = append(list, m)
		}
	}
	ls.mu.Lock()
	defer ls.mu.Unlock()
	for id, rt := range rts {
		ls.multi.runtimes(gen)[id] = rt
	}
	ls.multi.cfg.Models = list
	if len(list) == 0 {
		ls.multi.cfg.Mode = multi.Single
	}
	return nil
}

// runtimes returns the runtime cache for generation gen, emptied when
// the service's runtime changed since (ls.mu held).
func (m *multiState) runtimes(gen int) map[string]*Runtime {
	if m.rts == nil || m.gen != gen {
		m.rts, m.gen = map[string]*Runtime{}, gen
	}
	return m.rts
}

// modelEngines returns an engine for each of models, in list order:
// base (a session's engine: its tools, policy, approvals, hooks and
// system prompt) on the model, opened by open (see [onModel]), with the
// active model's own reasoning settings when it has them. runtimeOf
// loads a model's runtime. Errors: a model whose runtime or client
// cannot be built (naming it).
func modelEngines(ctx context.Context, base *agent.Engine, models []multi.ActiveModel, runtimeOf func(context.Context, string) (*Runtime, error),
	open func(*Runtime, *agent.Engine) (*agent.OpenModel, error)) ([]*agent.Engine, error) {
	out := make([]*agent.Engine, 0, len(models))
	for _, m := range models {
		rt, err := runtimeOf(ctx, m.ID)
		if err != nil {
			return nil, fmt.Errorf("active model %s: %w", m.ID, err)
		}
		om, err := open(rt, base)
		if err != nil {
			return nil, fmt.Errorf("active model %s: %w", m.ID, err)
		}
		e := base.WithModel(om)
		if m.Effort != "" {
			e.Config.Request.ReasoningEffort = m.Effort
		}
		if m.ThinkingBudget > 0 {
			e.Config.Request.ThinkingBudget = m.ThinkingBudget
		}
		out = append(out, e)
	}
	return out, nil
}

// runtime returns the runtime of active model id, loaded once per
// service runtime generation. Errors: as runtimeFor's.
func (sm sessionModels) runtime(ctx context.Context, id string) (*Runtime, error) {
	ls := sm.ls
	cur, gen := ls.svc.current()
	if cur.ModelInfo().ID() == id {
		return cur, nil
	}
	ls.mu.Lock()
	rt := ls.multi.runtimes(gen)[id]
	ls.mu.Unlock()
	if rt != nil {
		return rt, nil
	}
	rt, err := ls.svc.runtimeFor(ctx, id)
	if err != nil {
		return nil, err
	}
	ls.mu.Lock()
	ls.multi.runtimes(gen)[id] = rt
	ls.mu.Unlock()
	return rt, nil
}
