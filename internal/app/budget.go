package app

import (
	"context"
	"slices"
	"strings"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app/engine"
	"github.com/zelvior/aidex/internal/app/multi"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/session"
)

// configPrice applies the prices of mi's model from the configuration
// ([providers.NAME.models.MODEL] input_price, output_price,
// cache_read_price, cache_write_price; USD per million tokens) over the
// catalog's, key by key.
func (rt engineRoom) configPrice(mi *agent.ModelInfo) {
	p, ok := rt.Config.PriceOf(mi.Provider, mi.Name)
	if !ok {
		return
	}
	for _, f := range []struct {
		src *float64
		dst *float64
	}{{p.Input, &mi.InputPrice}, {p.Output, &mi.OutputPrice}, {p.CacheRead, &mi.CacheReadPrice}, {p.CacheWrite, &mi.CacheWritePrice}} {
		if f.src != nil {
			*f.dst = *f.src
		}
	}
}

// PriceOf returns what aidex knows of model id ("PROVIDER/MODEL", or a
// model of the runtime's provider; "" is the runtime's model): its
// context window from the catalog and its prices in USD per million
// tokens from the catalog and the configuration (zero: unknown or free).
func (rt *Runtime) PriceOf(id string) agent.ModelInfo {
	if id == "" || id == rt.Provider.Name+"/"+rt.Model || id == rt.Model {
		return rt.ModelInfo()
	}
	provider, model := rt.Provider.Name, id
	if p, m, ok := strings.Cut(id, "/"); ok {
		if _, known := rt.Catalog.Provider(p); known || rt.Config.Providers[p].Type != "" {
			provider, model = p, m
		}
	}
	mi := agent.ModelInfo{Provider: provider, Name: model, UnbilledReasoning: !rt.Config.BillReasoningAsOutput}
	if m, ok := rt.Catalog.Model(provider, model); ok {
		mi.ContextWindow = m.ContextWindow
		if m.Price != nil {
			mi.InputPrice, mi.OutputPrice = m.Price.Input, m.Price.Output
			mi.CacheReadPrice, mi.CacheWritePrice = m.Price.CacheRead, m.Price.CacheWrite
		}
	}
	rt.engineRoom().configPrice(&mi)
	return mi
}

// priceKnown tells whether aidex has a price for mi, from the
// configuration or the catalog: a model priced at 0 (a local one) is
// known and free.
func (rt engineRoom) priceKnown(mi agent.ModelInfo) bool {
	if mi.InputPrice > 0 || mi.OutputPrice > 0 {
		return true
	}
	if _, ok := rt.Config.PriceOf(mi.Provider, mi.Name); ok {
		return true
	}
	m, ok := rt.Catalog.Model(mi.Provider, mi.Name)
	return ok && m.Price != nil
}

// engineBudget is the engine's cost governor from [budget] (run_usd,
// which --max-cost sets, session_usd, daily_usd, max_tokens); o.RunUSD,
// when set, replaces run_usd (a Ralph task's share of its run's
// --max-cost). The store, when it keeps sums, says what the session and
// today spent before each run.
func (rt engineRoom) engineBudget(o engineOptions) agent.Budget {
	sp, _ := o.Store.(engine.Spender)
	return engine.Budget(rt.Config.Budget, o.RunUSD, sp)
}

// Estimate is what a run would send before it is sent: InputTokens, the
// first request's estimated size (system prompt, the conversation so far,
// the prompt and the tool definitions, at 4 bytes a token), and Models,
// the price of such a request for each model asked about.
type Estimate struct {
	InputTokens int             `json:"input_tokens"`
	Models      []modelEstimate `json:"models"`
}

// modelEstimate prices one request of the estimated size on a model:
// InputUSD for its input tokens, OutputPer1kUSD for each thousand tokens
// it writes; Known is false when aidex knows no price for the model
// (configure input_price and output_price). Role is "model" for the
// session's model, "active" for an active model of a conversation mode,
// "fallback" for a fallback_models entry, "" for a model asked about.
type modelEstimate struct {
	Model          string  `json:"model"`
	Role           string  `json:"role,omitempty"`
	InputPrice     float64 `json:"input_price"`
	OutputPrice    float64 `json:"output_price"`
	InputUSD       float64 `json:"input_usd"`
	OutputPer1kUSD float64 `json:"output_per_1k_usd"`
	Known          bool    `json:"price_known"`
}

// Estimate estimates the first request of a run with parts (queued
// context first, as Run sends it) without calling the model, and prices
// it on the session's model, its active models when a conversation mode
// other than single is on (--models, /multi), its fallback models
// (fallback_models) and each of models ("PROVIDER/MODEL"; duplicates
// dropped). Errors: the engine's build.
func (ls *Session) Estimate(ctx context.Context, parts []llm.Part, models ...string) (*Estimate, error) {
	eng, err := ls.engine(ctx)
	if err != nil {
		return nil, err
	}
	ls.mu.Lock()
	input := append(slices.Clone(ls.pending), parts...)
	rt, sess := ls.rt, ls.sess
	ls.mu.Unlock()
	est := &Estimate{InputTokens: eng.EstimateTokens(sess, input)}
	seen := map[string]bool{}
	add := func(mi agent.ModelInfo, role string) {
		if seen[mi.ID()] {
			return
		}
		seen[mi.ID()] = true
		est.Models = append(est.Models, modelEstimate{Model: mi.ID(), Role: role, InputPrice: mi.InputPrice, OutputPrice: mi.OutputPrice,
			InputUSD: mi.Cost(llm.Usage{InputTokens: est.InputTokens}), OutputPer1kUSD: mi.OutputPrice / 1000,
			Known: rt.engineRoom().priceKnown(mi)})
	}
	add(eng.Config.Model, "model")
	if mc := ls.Multi(); mc.Mode != multi.Single {
		for _, a := range mc.Models {
			add(rt.PriceOf(a.ID), "active")
		}
	}
	for _, f := range rt.Config.FallbackModels {
		add(rt.PriceOf(f), "fallback")
	}
	for _, id := range models {
		add(rt.PriceOf(id), "")
	}
	return est, nil
}

// Breakdown returns session id's usage and cost per model, per model
// response and per tool (see session.Store.Breakdown); tool results are
// priced at the input price of the models that answered after them (the
// current model's for answers that recorded none). Errors: as the
// store's.
func (s *Service) Breakdown(ctx context.Context, id string) (*session.Breakdown, error) {
	rt := s.Runtime()
	prices := map[string]float64{}
	return s.store.Breakdown(ctx, id, func(model string) float64 {
		p, ok := prices[model]
		if !ok {
			p = rt.PriceOf(model).InputPrice
			prices[model] = p
		}
		return p
	})
}
