package app

import (
	"context"
	"fmt"
	"sync"

	"github.com/zelvior/aidex/internal/agent"
)

// onModel is the one way an engine is put on another model: it returns
// model m ready for requests, as [agent.Engine.WithModel] and a run's
// fallback apply it. Everything that follows the model comes from m: its
// client (built with co), what the engine knows of it (context window,
// prices), its text tool-call mode, its reasoning settings, the store
// priced at its prices (store nil: none, the engine keeps its own) and,
// when base is a session's tool set, that tool set as m sees it (its
// memory folder and image input; base nil or another kind: the engine's
// tools). Custom-command turns, architect and editor phases, multi-model
// turns, fallback models, small-model side jobs and Ralph's active
// models all come here. Errors: m's client cannot be built (naming m).
func onModel(m *Runtime, co ClientOptions, store sessionStore, base agent.Tools) (*agent.OpenModel, error) {
	client, err := m.Client(co)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m.modelRoom().modelID(), err)
	}
	effort, budget := m.engineRoom().reasoning()
	om := &agent.OpenModel{Client: client, Info: m.ModelInfo(), CommandBlocks: m.engineRoom().textToolModel(),
		ReasoningEffort: effort, ThinkingBudget: budget, Verbosity: m.Config.Verbosity}
	if store != nil {
		om.Store = store.Priced(om.Info.Cost)
	}
	if ts, ok := base.(*toolSet); ok {
		om.Tools = ts.forModel(m)
	}
	return om, nil
}

// derived holds what a live session derives from its engine for other
// models, built once per engine (the engine is rebuilt when the
// service's runtime generation changes or the session switches
// conversation, and derived with it): the opened models of custom
// commands, the editor and the active models, by "PROVIDER/MODEL", and
// the architect's engine. Its zero value is ready; close releases the
// architect engine's tools.
type derived struct {
	mu        sync.Mutex
	models    map[string]*agent.OpenModel
	arch      *agent.Engine
	closeArch func()
}

// model returns the session engine base on runtime m's model, opening
// it the first time (later turns share its client).
func (d *derived) model(m *Runtime, base *agent.Engine, co ClientOptions, store sessionStore) (*agent.Engine, error) {
	om, err := d.open(m, base, co, store)
	if err != nil {
		return nil, err
	}
	return base.WithModel(om), nil
}

// open returns m opened for base (cached by model id).
func (d *derived) open(m *Runtime, base *agent.Engine, co ClientOptions, store sessionStore) (*agent.OpenModel, error) {
	id := m.modelRoom().modelID()
	d.mu.Lock()
	defer d.mu.Unlock()
	if om := d.models[id]; om != nil {
		return om, nil
	}
	if base.Store == nil {
		store = nil
	}
	om, err := onModel(m, co, store, base.Tools)
	if err != nil {
		return nil, err
	}
	if d.models == nil {
		d.models = map[string]*agent.OpenModel{}
	}
	d.models[id] = om
	return om, nil
}

// architect returns the architect's engine, built by build the first
// time.
func (d *derived) architect(ctx context.Context, build func(context.Context) (*agent.Engine, func(), error)) (*agent.Engine, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.arch != nil {
		return d.arch, nil
	}
	e, closeArch, err := build(ctx)
	if err != nil {
		return nil, err
	}
	d.arch, d.closeArch = e, closeArch
	return e, nil
}

// close releases the architect engine (its background processes).
func (d *derived) close() {
	if d == nil {
		return
	}
	d.mu.Lock()
	c := d.closeArch
	d.arch, d.closeArch = nil, nil
	d.mu.Unlock()
	if c != nil {
		c()
	}
}
