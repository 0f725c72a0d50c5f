package catalog

import (
	"slices"
	"strings"
)

// Has reports whether the list holds a model with this id.
func (l ModelList) Has(id string) bool {
	return slices.ContainsFunc(l.Models, func(m Model) bool { return m.ID == id })
}

// Closest returns up to n of candidates that look like what s meant, best
// first: those containing s (or contained in it) ignoring case, then those
// within a typo's edit distance (a third of s's length, at least 2).
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
		switch d := EditDistance(ls, lc); {
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

// EditDistance is the optimal-string-alignment distance between a and b in
// bytes (a transposition counts 1); long strings count as far apart.
func EditDistance(a, b string) int {
	if len(a) > 128 || len(b) > 128 {
		return 1 << 20
	}
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
