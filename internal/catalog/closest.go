package catalog

import (
	"slices"
	"strings"

	"github.com/agnivade/levenshtein"
)

// Has reports whether the list holds a model with this id.
func (l ModelList) Has(id string) bool {
	return slices.ContainsFunc(l.Models, func(m Model) bool { return m.ID == id })
}

// Closest returns up to n of candidates that look like what s meant, best
// first: those containing s (or contained in it) ignoring case, then those
// within a typo's edit distance (Levenshtein, in runes: a third of s's
// length, at least 2).
// It returns nil when none is close.
func Closest(s string, candidates []string, n int) []string {
	type scored struct {
		c string
		d int
	}
	ls := strings.ToLower(s)
	limit := max(2, len(ls)/3)
	var hits []scored
	for _, c := range candidates {
		lc := strings.ToLower(c)
		switch d := levenshtein.ComputeDistance(ls, lc); {
		case ls != "" && (strings.Contains(lc, ls) || strings.Contains(ls, lc)):
			hits = append(hits, scored{c, -1000 + d})
		case d <= limit:
			hits = append(hits, scored{c, d})
		}
	}
	slices.SortStableFunc(hits, func(a, b scored) int { return a.d - b.d })
	out := make([]string, 0, min(n, len(hits)))
	for _, h := range hits {
		if len(out) == n {
			break
		}
		if !slices.Contains(out, h.c) {
			out = append(out, h.c)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
