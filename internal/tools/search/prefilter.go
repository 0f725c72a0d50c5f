package search

import (
	"bytes"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// requiredLiteral returns a case-sensitive literal that every match of
// pattern contains (the longest literal of a top-level concatenation), or
// nil. Lines without it cannot match, so a fast bytes.Index finds the
// candidate lines.
func requiredLiteral(pattern string, ignoreCase bool) []byte {
	if ignoreCase {
		return nil
	}
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil
	}
	re = re.Simplify()
	var best []rune
	consider := func(r *syntax.Regexp) {
		if r.Op == syntax.OpLiteral && r.Flags&syntax.FoldCase == 0 && len(r.Rune) > len(best) {
			best = r.Rune
		}
	}
	switch re.Op {
	case syntax.OpLiteral:
		consider(re)
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			consider(sub)
		}
	}
	if len(best) == 0 {
		return nil
	}
	return []byte(string(best))
}

// maxLitAlts bounds the literals of a prefilter (alternatives times
// concatenated character choices).
const maxLitAlts = 16

// litAlt is one literal of a prefilter.
type litAlt struct {
	s    []byte // when fold, lower-case ASCII
	fold bool   // match ignoring ASCII case
	rare int    // when fold, the index in s of the byte looked for first
}

// litSet is a set of literals at least one of which every match of a
// regexp contains; exact means every match is exactly one of them (so a
// concatenation can extend them).
type litSet struct {
	alts  []litAlt
	exact bool
}

// usable reports whether the set can prefilter: no empty literal.
func (s litSet) usable() bool {
	if len(s.alts) == 0 {
		return false
	}
	for _, a := range s.alts {
		if len(a.s) == 0 {
			return false
		}
	}
	return true
}

// better reports whether s is a more selective prefilter than t: longer
// shortest literal, then fewer literals.
func (s litSet) better(t litSet) bool {
	if !s.usable() {
		return false
	}
	if !t.usable() {
		return true
	}
	minLen := func(x litSet) int {
		m := len(x.alts[0].s)
		for _, a := range x.alts {
			m = min(m, len(a.s))
		}
		return m
	}
	if ms, mt := minLen(s), minLen(t); ms != mt {
		return ms > mt
	}
	return len(s.alts) < len(t.alts)
}

// emptyLits is the set of an empty-width regexp: the empty literal.
func emptyLits() litSet { return litSet{alts: []litAlt{{}}, exact: true} }

// extractLits returns literals every match of re contains (see litSet),
// or false. Case-folded literals keep only runes whose folds are all
// ASCII (k and s fold to U+212A KELVIN SIGN and U+017F LONG S), so an
// ASCII case-insensitive search finds them.
func extractLits(re *syntax.Regexp) (litSet, bool) {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
		syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return emptyLits(), true
	case syntax.OpLiteral:
		return literalLits(re)
	case syntax.OpCharClass:
		return classLits(re.Rune)
	case syntax.OpCapture:
		return extractLits(re.Sub[0])
	case syntax.OpPlus:
		s, ok := extractLits(re.Sub[0])
		s.exact = false
		return s, ok
	case syntax.OpRepeat:
		if re.Min < 1 {
			return litSet{}, false
		}
		s, ok := extractLits(re.Sub[0])
		s.exact = false
		return s, ok
	case syntax.OpConcat:
		return concatLits(re.Sub)
	case syntax.OpAlternate:
		out := litSet{exact: true}
		for _, sub := range re.Sub {
			s, ok := extractLits(sub)
			if !ok || !s.usable() || len(out.alts)+len(s.alts) > maxLitAlts {
				return litSet{}, false
			}
			out.alts = append(out.alts, s.alts...)
			out.exact = out.exact && s.exact
		}
		return out, true
	}
	return litSet{}, false
}

func literalLits(re *syntax.Regexp) (litSet, bool) {
	if re.Flags&syntax.FoldCase == 0 {
		return litSet{alts: []litAlt{{s: []byte(string(re.Rune))}}, exact: true}, true
	}
	var best, run []byte
	exact := true
	for _, r := range append(slices.Clone(re.Rune), -1) { // -1 ends the last run
		if r >= 0 && asciiFoldOnly(r) {
			run = append(run, byte(unicode.ToLower(r)))
			continue
		}
		if r >= 0 {
			exact = false
		}
		if len(run) > len(best) {
			best = slices.Clone(run)
		}
		run = run[:0]
	}
	if len(best) == 0 {
		return litSet{}, false
	}
	return litSet{alts: []litAlt{{s: best, fold: true}}, exact: exact}, true
}

// classLits turns a small character class (pairs of rune ranges) into
// one literal per rune.
func classLits(ranges []rune) (litSet, bool) {
	out := litSet{exact: true}
	for i := 0; i+1 < len(ranges); i += 2 {
		if ranges[i+1]-ranges[i] >= maxLitAlts {
			return litSet{}, false
		}
		for r := ranges[i]; r <= ranges[i+1]; r++ {
			if len(out.alts) == 4 {
				return litSet{}, false
			}
			out.alts = append(out.alts, litAlt{s: utf8.AppendRune(nil, r)})
		}
	}
	return out, len(out.alts) > 0
}

// concatLits joins runs of exact sets by their cross product and returns
// the most selective set of the concatenation.
func concatLits(subs []*syntax.Regexp) (litSet, bool) {
	var best litSet
	cur, whole := emptyLits(), true
	for _, sub := range subs {
		s, ok := extractLits(sub)
		if ok && s.exact {
			if joined, ok := crossLits(cur, s); ok {
				cur = joined
				continue
			}
		}
		whole = false
		if cur.better(best) {
			best = litSet{alts: cur.alts}
		}
		if ok && s.better(best) {
			best = litSet{alts: s.alts}
		}
		cur = emptyLits()
		if ok && s.exact {
			cur = s
		}
	}
	if whole {
		return cur, true
	}
	if cur.better(best) {
		best = litSet{alts: cur.alts}
	}
	return best, best.usable()
}

// crossLits concatenates every literal of a with every literal of b; it
// fails when the result would have too many literals or would mix a
// case-folded literal with a case-sensitive letter or non-ASCII byte.
func crossLits(a, b litSet) (litSet, bool) {
	if len(a.alts)*len(b.alts) > maxLitAlts {
		return litSet{}, false
	}
	out := litSet{exact: true}
	for _, x := range a.alts {
		for _, y := range b.alts {
			fold := x.fold || y.fold
			if fold && (!foldSafe(x) || !foldSafe(y)) {
				return litSet{}, false
			}
			out.alts = append(out.alts, litAlt{s: append(slices.Clip(x.s), y.s...), fold: fold})
		}
	}
	return out, true
}

// foldSafe reports whether a can join a case-folded literal unchanged.
func foldSafe(a litAlt) bool {
	if a.fold {
		return true
	}
	for _, c := range a.s {
		if c >= utf8.RuneSelf || unicode.IsLetter(rune(c)) {
			return false
		}
	}
	return true
}

// asciiFoldOnly reports whether r and every rune it case-folds to are
// ASCII.
func asciiFoldOnly(r rune) bool {
	if r >= utf8.RuneSelf {
		return false
	}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// litFinder finds the literals of a prefilter: lines without any of them
// cannot match.
type litFinder struct {
	alts []litAlt
}

// newLitFinder returns the prefilter for a search, or nil when the
// pattern has no usable literals.
func newLitFinder(pattern string, ignoreCase bool) *litFinder {
	flags := "(?m)"
	if ignoreCase {
		flags = "(?mi)"
	}
	re, err := syntax.Parse(flags+pattern, syntax.Perl)
	if err != nil {
		return nil
	}
	s, ok := extractLits(re.Simplify())
	if !ok || !s.usable() {
		return nil
	}
	for i := range s.alts {
		a := &s.alts[i]
		for j, c := range a.s {
			if a.fold && byteRank(c) > byteRank(a.s[a.rare]) {
				a.rare = j
			}
		}
	}
	return &litFinder{alts: s.alts}
}

// weak reports whether a literal of f is a single byte: too common to
// prefilter well.
func (f *litFinder) weak() bool {
	for _, a := range f.alts {
		if len(a.s) < 2 {
			return true
		}
	}
	return false
}

// index returns the offset of the first occurrence of any literal in
// data, or -1.
func (f *litFinder) index(data []byte) int {
	best := -1
	for _, a := range f.alts {
		window := data
		if best >= 0 { // only an earlier occurrence helps
			window = data[:min(len(data), best+len(a.s)-1)]
		}
		if i := a.index(window); i >= 0 {
			best = i
		}
	}
	return best
}

func (a *litAlt) index(data []byte) int {
	if !a.fold {
		return bytes.Index(data, a.s)
	}
	lo := a.s[a.rare]
	up := byte(unicode.ToUpper(rune(lo)))
	nextLo, nextUp := -1, -1 // next offsets of lo and up at or after i; len(data): none
	for i := a.rare; i < len(data); {
		if nextLo < i {
			nextLo = indexByteFrom(data, i, lo)
		}
		switch {
		case up == lo:
			nextUp = nextLo
		case nextUp < i:
			nextUp = indexByteFrom(data, i, up)
		}
		j := min(nextLo, nextUp)
		if j == len(data) {
			return -1
		}
		if start := j - a.rare; start+len(a.s) <= len(data) && equalFoldLower(data[start:start+len(a.s)], a.s) {
			return start
		}
		i = j + 1
	}
	return -1
}

// indexByteFrom returns the offset of the first c in data at or after
// from, or len(data).
func indexByteFrom(data []byte, from int, c byte) int {
	if j := bytes.IndexByte(data[from:], c); j >= 0 {
		return from + j
	}
	return len(data)
}

// equalFoldLower reports whether b equals lower (lower-case ASCII)
// ignoring ASCII case.
func equalFoldLower(b, lower []byte) bool {
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// byteRank estimates how rare byte c is in source code and text: higher
// is rarer. The finder looks for the rarest byte of a literal first.
func byteRank(c byte) int {
	const common = " etaoinsrlcdumhpfgbywvkxjqz" // most to least frequent
	if c >= 'A' && c <= 'Z' {
		c += 'a' - 'A'
	}
	if i := strings.IndexByte(common, c); i >= 0 {
		return i
	}
	switch {
	case c == '\t' || c == '\n' || strings.IndexByte("(),.;:=_\"'{}", c) >= 0:
		return 5 // as common as the frequent letters
	case c >= '0' && c <= '9':
		return 15
	}
	return 20
}
