package config

import (
	"fmt"
	"slices"
	"strings"
)

// ModelReasoning is the reasoning setting of one model from its
// [providers.NAME.models.MODEL] table (iptic-memex's per-model reasoning):
// Effort ("minimal", "low", "medium", "high", "off"; "" unset) for models that
// take an effort, Budget (thinking tokens; nil unset, 0 off) for those
// that take a budget. They replace reasoning_effort and thinking_budget
// for that model. EditFormat, from the same table's edit_format, is the
// model's edit format ("replace", "hashline", "patch"; "" unset), over
// [providers.NAME] edit_format and the catalog's ([harness] edit_format
// is over it).
type ModelReasoning struct {
	Effort     string
	Budget     *int
	EditFormat string
}

func (r ModelReasoning) set() bool { return r.Effort != "" || r.Budget != nil || r.EditFormat != "" }

// merge returns r with what q sets replacing r's.
func (r ModelReasoning) merge(q ModelReasoning) ModelReasoning {
	if q.Effort != "" {
		r.Effort = q.Effort
	}
	if q.Budget != nil {
		r.Budget = q.Budget
	}
	if q.EditFormat != "" {
		r.EditFormat = q.EditFormat
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
	case "edit_format":
		s, ok := val.(string)
		if enum := enumOf("harness.edit_format"); !ok || !slices.Contains(enum, s) {
			return true, fmt.Errorf("must be one of %s, not %s", strings.Join(enum, ", "), describeValue(val))
		}
		r.EditFormat = s
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
