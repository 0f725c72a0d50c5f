package app

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/catalog"
)

// withModel returns a copy of rt that uses spec: "PROVIDER/MODEL" with a
// provider of the catalog (or of [providers.NAME]), else a model id of
// rt's provider. what names the setting in errors ("fallback_models").
// Errors: an empty spec, a provider that needs a key and has none.
func (rt modelRoom) withModel(spec, what string) (*Runtime, error) {
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return nil, fmt.Errorf("%s: empty model: write MODEL or PROVIDER/MODEL", what)
	}
	p, model := rt.Provider, spec
	if prefix, rest, ok := strings.Cut(spec, "/"); ok && rest != "" {
		if cp, known := rt.Catalog.Provider(prefix); known {
			p, model = cp, rest
		}
	}
	if p.RequiresKey && p.APIKey(rt.Getenv) == "" {
		return nil, fmt.Errorf("%s %s: provider %s %w: set %s or choose another model", what, spec, p.Name, ErrMissingKey, p.KeyHint())
	}
	cp := *rt.runtimeView
	cp.Provider, cp.Model = p, model
	return &cp, nil
}

// modelID is rt's "PROVIDER/MODEL".
func (rt modelRoom) modelID() string { return rt.Provider.Name + "/" + rt.Model }

// modelRef returns spec as an agent.ModelRef opened on first use (once:
// later runs of the engine share the client) by [onModel]: a client with
// the model's retries and timeouts, what the engine knows of it, its
// text-call mode and reasoning settings, o's store priced at its prices,
// and base (the engine's tool set) as the model sees it.
func (rt modelRoom) modelRef(spec, what string, o engineOptions, base agent.Tools) agent.ModelRef {
	id := spec
	if other, err := rt.withModel(spec, what); err == nil {
		id = other.modelRoom().modelID()
	}
	var once sync.Once
	var m *agent.OpenModel
	var err error
	open := func(context.Context) (*agent.OpenModel, error) {
		once.Do(func() { m, err = rt.openModel(spec, what, o, base) })
		return m, err
	}
	return agent.ModelRef{ID: id, Open: open}
}

// openModel opens spec (see [onModel]) with o's client options and
// store. Errors: spec's provider needs a key it does not have, its
// client cannot be built.
func (rt modelRoom) openModel(spec, what string, o engineOptions, base agent.Tools) (*agent.OpenModel, error) {
	other, err := rt.withModel(spec, what)
	if err != nil {
		return nil, err
	}
	m, err := onModel(other, o.Client, o.Store, base)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", what, spec, err)
	}
	return m, nil
}

// route gives an engine's configuration its fallback models
// (fallback_models), on the engine's tool set base, and its small model
// (small_model, or the default of [modelRoom.smallModel]) for compaction
// summaries.
func (rt modelRoom) route(c *agent.Config, o engineOptions, base agent.Tools) {
	for _, spec := range rt.Config.FallbackModels {
		c.Fallbacks = append(c.Fallbacks, rt.modelRef(spec, "fallback_models", o, base))
	}
	if spec, _ := rt.modelRoom().smallModel(); spec != rt.modelID() {
		ref := rt.modelRef(spec, "small_model", o, nil)
		c.SmallModel = &ref
	}
}

// smallModel returns the "PROVIDER/MODEL" of the side jobs (session
// titles, compaction summaries, /summary) and where it came from:
// "config" (small_model), "cheapest" (the provider's cheapest model of
// the catalog with known prices, when cheaper than the main model) or
// "main" (the main model: a local provider, where a second model would
// have to be loaded, or no cheaper model is listed).
func (rt modelRoom) smallModel() (spec, source string) {
	if s := strings.TrimSpace(rt.Config.SmallModel); s != "" {
		if other, err := rt.withModel(s, "small_model"); err == nil {
			return other.modelRoom().modelID(), "config"
		}
		return s, "config"
	}
	if isLocal(rt.Provider) {
		return rt.modelID(), "main"
	}
	if m, ok := cheapest(rt.Provider.Models); ok && m.ID != rt.Model {
		if cur, known := rt.Provider.Model(rt.Model); !known || cur.Price == nil || price(m) < price(cur) {
			return rt.Provider.Name + "/" + m.ID, "cheapest"
		}
	}
	return rt.modelID(), "main"
}

// cheapest returns the model of list with the lowest known price (input
// plus output per 1M tokens; the first of equals), ok false when no
// model has a known price.
func cheapest(list []catalog.Model) (catalog.Model, bool) {
	var best catalog.Model
	found := false
	for _, m := range list {
		if m.Price == nil {
			continue
		}
		if !found || price(m) < price(best) {
			best, found = m, true
		}
	}
	return best, found
}

func price(m catalog.Model) float64 { return m.Price.Input + m.Price.Output }
