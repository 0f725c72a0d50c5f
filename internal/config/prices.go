package config

import (
	"fmt"
	"github.com/zelvior/aidex/internal/trust"
	"strings"
)

// ModelPrice is the price of one model from a [providers.NAME.models.MODEL]
// table, in USD per million tokens: Input and Output, and the prices of
// cached input (CacheRead) and of writing the cache (CacheWrite), each
// nil when the table does not give it (the catalog's price, or for the
// cache prices the input price, applies). Source is "PATH:LINE" of the
// table.
type ModelPrice struct {
	Input      *float64
	Output     *float64
	CacheRead  *float64
	CacheWrite *float64
	Source     string
}

// priceKeys are the price keys of a model's table, in the order of the
// documentation, with the field each sets.
func priceKeys(p *ModelPrice) []struct {
	key string
	dst **float64
} {
	return []struct {
		key string
		dst **float64
	}{{"input_price", &p.Input}, {"output_price", &p.Output}, {"cache_read_price", &p.CacheRead}, {"cache_write_price", &p.CacheWrite}}
}

// modelTableKeys lists the keys a model's table takes, for error messages.
const modelTableKeys = "vision = true|false, input_price, output_price, cache_read_price, cache_write_price (USD per million tokens), effort (minimal|low|medium|high|off), budget (thinking tokens), edit_format (replace|hashline|patch)"

// modelPrice is a price of one model read from one file.
type modelPrice struct {
	provider, model string
	price           ModelPrice
	reasoning       ModelReasoning
	file            string
	line            int
}

// approvalValue is what a trusted project's approval of the table covers.
func (mp modelPrice) approvalValue() any {
	if !mp.reasoning.set() {
		return mp.price
	}
	return struct {
		Price     ModelPrice
		Reasoning ModelReasoning
	}{mp.price, mp.reasoning}
}

// readPrice sets the price key k of p from val, or returns the problem
// (not a number, negative); it reports false when k is no price key.
func readPrice(p *ModelPrice, k string, val any) (bool, error) {
	for _, pk := range priceKeys(p) {
		if pk.key != k {
			continue
		}
		f, ok := asFloat(val)
		if !ok {
			return true, fmt.Errorf("must be a number of US dollars per million tokens, not %s", describeValue(val))
		}
		if f < 0 {
			return true, fmt.Errorf("must be 0 or more (US dollars per million tokens), not %v", f)
		}
		*pk.dst = &f
		return true, nil
	}
	return false, nil
}

// set reports whether p gives any price.
func (p ModelPrice) set() bool {
	return p.Input != nil || p.Output != nil || p.CacheRead != nil || p.CacheWrite != nil
}

// merge returns p with the prices q gives replacing p's (a later file
// wins key by key).
func (p ModelPrice) merge(q ModelPrice) ModelPrice {
	for i, pk := range priceKeys(&q) {
		if *pk.dst != nil {
			*priceKeys(&p)[i].dst = *pk.dst
		}
	}
	p.Source = q.Source
	return p
}

// applyPrices applies a file's model prices. own is as in applyDoc: for an
// untrusted project file the providers it defines itself; prices of other
// providers are ignored with a warning (a price of 0 would switch the
// user's budgets off).
func (l *loader) applyPrices(doc *fileDoc, own map[string]bool) {
	for _, mp := range doc.prices {
		if own != nil && !own[mp.provider] && l.trustedProject {
			key := displayPath([]string{"providers", mp.provider, "models", mp.model})
			it := trust.NewItem(trust.KindSetting, key, fmt.Sprintf("%s:%d", mp.file, mp.line), key+" (prices)", mp.approvalValue(), l.opts.Workspace)
			if !l.approved(it) {
				continue
			}
		} else if own != nil && !own[mp.provider] {
			msg := fmt.Sprintf("ignored the prices of %s/%s: a project file may not price the models of provider %q, which it does not define; this folder is not trusted (run `aidex trust` in %s to allow it)",
				mp.provider, mp.model, mp.provider, l.opts.Workspace)
			if !mp.price.set() {
				msg = fmt.Sprintf("ignored the reasoning settings of %s/%s: a project file may not set them for the models of provider %q, which it does not define; this folder is not trusted (run `aidex trust` in %s to allow it)",
					mp.provider, mp.model, mp.provider, l.opts.Workspace)
			}
			l.warnings = append(l.warnings, Warning{File: mp.file, Line: mp.line, Key: displayPath([]string{"providers", mp.provider, "models", mp.model}), Message: msg})
			continue
		}
		pc := l.cfg.Providers[mp.provider]
		if mp.price.set() {
			prices := make(map[string]ModelPrice, len(pc.Prices)+1)
			for k, v := range pc.Prices {
				prices[k] = v
			}
			prices[mp.model] = prices[mp.model].merge(mp.price)
			pc.Prices = prices
		}
		if mp.reasoning.set() {
			rs := make(map[string]ModelReasoning, len(pc.Reasoning)+1)
			for k, v := range pc.Reasoning {
				rs[k] = v
			}
			rs[mp.model] = rs[mp.model].merge(mp.reasoning)
			pc.Reasoning = rs
		}
		l.cfg.Providers[mp.provider] = pc
	}
}

// PriceOf returns the configured price of provider's model and whether
// the configuration prices it at all.
func (c *Config) PriceOf(provider, model string) (ModelPrice, bool) {
	p, ok := c.Providers[provider].Prices[model]
	return p, ok && p.set()
}

// projectRefusal is refusal with the budget keys: an untrusted project
// file may not change the user's budgets (raising one, or 0, would lift
// the brake the user set).
func projectRefusal(s setting, own map[string]bool) string {
	if strings.HasPrefix(s.spec.name, "budget.") {
		return "a project file may not change your budgets"
	}
	return refusal(s, own)
}
