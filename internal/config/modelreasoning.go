package config

import (
	"fmt"
	"slices"
)

// ModelReasoning is the reasoning setting of one model from its
// [providers.NAME.models.MODEL] table (iptic-memex's per-model reasoning):
// Effort ("minimal", "low", "medium", "high", "off"; "" unset) for models that
// take an effort, Budget (thinking tokens; nil unset, 0 off) for those
// that take a budget. They replace reasoning_effort and thinking_budget
// for that model.
type ModelReasoning struct {
	Effort string
	Budget *int
}

func (r ModelReasoning) set() bool { return r.Effort != "" || r.Budget != nil }

// merge returns r with what q sets replacing r's.
func (r ModelReasoning) merge(q ModelReasoning) ModelReasoning {
	if q.Effort != "" {
		r.Effort = q.Effort
	}
	if q.Budget != nil {
		r.Budget = q.Budget
	}
	return r
}

// readReasoning sets key k (effort, budget) of r from val, or returns the
// problem; it reports false when k is no reasoning key.
func readReasoning(r *ModelReasoning, k string, val any) (bool, error) {
	switch k {
	case "effort":
		s, ok := val.(string)
		if !ok || !slices.Contains(enumOf("reasoning_effort"), s) {
			return true, fmt.Errorf("must be one of minimal, low, medium, high, off, not %s", describeValue(val))
		}
		r.Effort = s
	case "budget":
		n, ok := asInt(val)
		if !ok || n < 0 {
			return true, fmt.Errorf("must be a number of thinking tokens (0: off), not %s", describeValue(val))
		}
		r.Budget = &n
	default:
		return false, nil
	}
	return true, nil
}

// ReasoningOf returns the configured reasoning of provider's model and
// whether its table sets one.
func (c *Config) ReasoningOf(provider, model string) (ModelReasoning, bool) {
	r, ok := c.Providers[provider].Reasoning[model]
	return r, ok && r.set()
}
