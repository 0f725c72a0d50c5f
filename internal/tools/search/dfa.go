package search

import (
	"encoding/binary"
	"regexp/syntax"
	"slices"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// Go's regexp runs an NFA or a backtracker: tens of nanoseconds a byte, a
// tenth of ripgrep's speed on a pattern with no literal to look for. The
// line filter here is a lazy DFA (states built on first use, as in RE2
// and ripgrep) over the same compiled program that answers one question
// per line: can the pattern match in it? It treats every empty-width
// assertion (^ $ \A \z \b \B) as satisfied, so it may say yes where the
// regexp says no, never the reverse; a yes is confirmed by the regexp on
// that one line. A newline resets it, so a line is searched on its own,
// as ripgrep does. ASCII bytes step through a table indexed by byte
// class (one load and one compare a byte); other bytes are decoded as
// UTF-8 and stepped through a map.

// maxDFAStates bounds the states one lineDFA builds; past it the DFA
// gives up and the caller searches with the regexp.
const maxDFAStates = 2000

// maxDFAGiveUps is how many times the DFAs of one search may give up
// before the search stops using them: a pattern whose DFA explodes would
// otherwise cost every file the building of maxDFAStates states.
const maxDFAGiveUps = 3

// maxRuneSteps bounds the cache of steps on non-ASCII runes (entries).
const maxRuneSteps = 1 << 16

// dfaProg is the immutable part of a line filter, shared by the
// goroutines of a search; each takes a lineDFA from its pool.
type dfaProg struct {
	prog     *syntax.Prog
	classes  [256]uint8 // byte -> byte class (classNL, classHigh, then ASCII groups)
	nclasses int
	pool     sync.Pool // *lineDFA
	giveUps  atomic.Int32
}

// usable reports whether the filter is still worth using in this search.
func (p *dfaProg) usable() bool { return p != nil && p.giveUps.Load() < maxDFAGiveUps }

// gaveUp records that d gave up (too many states) and resets it.
func (p *dfaProg) gaveUp(d *lineDFA) {
	p.giveUps.Add(1)
	d.reset()
}

// The fixed byte classes: '\n' alone, and every non-ASCII byte (stepped
// as part of a decoded rune, never through the table).
const (
	classNL   = 0
	classHigh = 1
)

// Table entries besides a row offset (>= 0).
const (
	dfaUnknown = -1 // not built yet (always for classHigh)
	dfaMatch   = -2 // the next state holds a match: the line may match
)

// newDFAProg compiles pattern (with grep's flags) for a line filter, or
// returns nil when a filter cannot help: the pattern does not compile,
// or it matches the empty string (every line matches).
func newDFAProg(pattern string, ignoreCase bool) *dfaProg {
	flags := "(?m)"
	if ignoreCase {
		flags = "(?mi)"
	}
	re, err := syntax.Parse(flags+pattern, syntax.Perl)
	if err != nil {
		return nil
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return nil
	}
	p := &dfaProg{prog: prog}
	p.buildClasses()
	d := p.get()
	if d.states[0].match {
		return nil
	}
	p.put(d)
	return p
}

// buildClasses groups the ASCII bytes that every rune instruction of the
// program treats alike.
func (p *dfaProg) buildClasses() {
	var runeInsts []*syntax.Inst
	for i := range p.prog.Inst {
		switch p.prog.Inst[i].Op {
		case syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
			runeInsts = append(runeInsts, &p.prog.Inst[i])
		}
	}
	for b := 128; b < 256; b++ {
		p.classes[b] = classHigh
	}
	seen := map[string]uint8{}
	p.nclasses = 2
	sig := make([]byte, len(runeInsts))
	for b := range 128 {
		if b == '\n' {
			continue
		}
		for i, in := range runeInsts {
			sig[i] = 0
			if instMatchesRune(in, rune(b)) {
				sig[i] = 1
			}
		}
		c, ok := seen[string(sig)]
		if !ok {
			c = uint8(p.nclasses)
			seen[string(sig)] = c
			p.nclasses++
		}
		p.classes[b] = c
	}
}

// instMatchesRune reports whether rune instruction in consumes r.
func instMatchesRune(in *syntax.Inst, r rune) bool {
	switch in.Op {
	case syntax.InstRuneAny:
		return true
	case syntax.InstRuneAnyNotNL:
		return r != '\n'
	}
	return in.MatchRune(r)
}

// get returns a lineDFA of p for one goroutine; put gives it back.
func (p *dfaProg) get() *lineDFA {
	if d, ok := p.pool.Get().(*lineDFA); ok {
		return d
	}
	d := &lineDFA{p: p}
	d.reset()
	return d
}

func (p *dfaProg) put(d *lineDFA) { p.pool.Put(d) }

// dfaState is a set of program counters: rune instructions waiting for
// input (plus the match instruction when match is set).
type dfaState struct {
	pcs   []uint32
	match bool
}

// lineDFA is one goroutine's lazily built DFA. State i's row of next
// starts at i*nclasses; an entry is the row offset of the state after a
// byte of that class, or dfaUnknown, or dfaMatch. The start state is
// state 0 (row offset 0), where every newline leads.
type lineDFA struct {
	p      *dfaProg
	states []dfaState
	next   []int32
	index  map[string]int32 // state key -> id
	// runeNext caches the steps on non-ASCII runes: state<<32 | rune -> state.
	runeNext map[uint64]int32
	scratch  []uint32
	// stay[b] is set when byte b is known to keep the start state, which
	// find then skips in a loop without table lookups.
	stay [256]bool
	seen []uint32 // closure's visited marks: seen[pc] == gen
	gen  uint32
}

// reset empties the DFA's states (after it gave up) and builds the start
// state again.
func (d *lineDFA) reset() {
	d.states, d.next = d.states[:0], d.next[:0]
	d.index, d.runeNext = map[string]int32{}, map[uint64]int32{}
	d.stay = [256]bool{'\n': true}
	d.state(d.closure([]uint32{uint32(d.p.prog.Start)}))
}

// closure returns the pcs reachable from todo without reading input
// (assertions count as satisfied) that wait for input or match, sorted.
func (d *lineDFA) closure(todo []uint32) []uint32 {
	prog := d.p.prog
	if len(d.seen) < len(prog.Inst) {
		d.seen = make([]uint32, len(prog.Inst))
	}
	d.gen++
	var set []uint32
	for len(todo) > 0 {
		pc := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if d.seen[pc] == d.gen {
			continue
		}
		d.seen[pc] = d.gen
		in := &prog.Inst[pc]
		switch in.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			todo = append(todo, in.Out, in.Arg)
		case syntax.InstCapture, syntax.InstNop, syntax.InstEmptyWidth:
			todo = append(todo, in.Out)
		case syntax.InstFail:
		default: // rune instructions and InstMatch
			set = append(set, pc)
		}
	}
	slices.Sort(set)
	return set
}

// state returns the id of the state of pcs, adding it when new (-1 when
// the DFA holds maxDFAStates already).
func (d *lineDFA) state(pcs []uint32) int32 {
	key := make([]byte, 0, 4*len(pcs))
	for _, pc := range pcs {
		key = binary.LittleEndian.AppendUint32(key, pc)
	}
	if id, ok := d.index[string(key)]; ok {
		return id
	}
	if len(d.states) >= maxDFAStates {
		return -1
	}
	id := int32(len(d.states))
	st := dfaState{pcs: slices.Clone(pcs)}
	for _, pc := range pcs {
		st.match = st.match || d.p.prog.Inst[pc].Op == syntax.InstMatch
	}
	d.states = append(d.states, st)
	d.index[string(key)] = id
	for c := range d.p.nclasses {
		v := int32(dfaUnknown)
		if c == classNL {
			v = 0 // a newline starts the next line afresh
		}
		d.next = append(d.next, v)
	}
	return id
}

// step returns the state after s reads r (-1 when the DFA is full).
// Every position may start a match, so the start pcs join each step.
func (d *lineDFA) step(s int32, r rune) int32 {
	todo := d.scratch[:0]
	todo = append(todo, uint32(d.p.prog.Start))
	for _, pc := range d.states[s].pcs {
		if in := &d.p.prog.Inst[pc]; in.Op != syntax.InstMatch && instMatchesRune(in, r) {
			todo = append(todo, in.Out)
		}
	}
	d.scratch = todo
	return d.state(d.closure(todo))
}

// runeStep is step for a non-ASCII rune, cached in runeNext.
func (d *lineDFA) runeStep(s int32, r rune) int32 {
	key := uint64(s)<<32 | uint64(uint32(r))
	if n, ok := d.runeNext[key]; ok {
		return n
	}
	n := d.step(s, r)
	if n >= 0 {
		if len(d.runeNext) >= maxRuneSteps {
			clear(d.runeNext)
		}
		d.runeNext[key] = n
	}
	return n
}

// find returns the offset of the first byte of data at which a match of
// the filter ends (the line holding it may match), or -1 when no line of
// data can match. ok is false when the DFA gave up (too many states).
func (d *lineDFA) find(data []byte) (at int, ok bool) {
	classes, nc := &d.p.classes, int32(d.p.nclasses)
	next := d.next
	var s int32 // row offset of the current state
	for i := 0; i < len(data); i++ {
		if s == 0 {
			for i < len(data) && d.stay[data[i]] {
				i++
			}
			if i == len(data) {
				break
			}
		}
		v := next[s+int32(classes[data[i]])]
		if v >= 0 {
			s = v
			continue
		}
		if v == dfaMatch {
			return i, true
		}
		n, size, ok := d.build(s, data[i:])
		if !ok {
			return 0, false
		}
		next = d.next
		if d.states[n].match {
			return i, true
		}
		s = n * nc
		i += size - 1
	}
	return -1, true
}

// build computes the step from row offset s on the rune at the start of
// rest (one byte when ASCII), filling the table for an ASCII byte, and
// returns the next state's id and the rune's size; false when the DFA is
// full.
func (d *lineDFA) build(s int32, rest []byte) (n int32, size int, ok bool) {
	nc := int32(d.p.nclasses)
	b := rest[0]
	if b >= utf8.RuneSelf {
		r, size := utf8.DecodeRune(rest)
		n = d.runeStep(s/nc, r)
		return n, size, n >= 0
	}
	if n = d.step(s/nc, rune(b)); n < 0 {
		return 0, 0, false
	}
	c := int32(d.p.classes[b])
	switch {
	case d.states[n].match:
		d.next[s+c] = dfaMatch
	default:
		d.next[s+c] = n * nc
		if s == 0 && n == 0 {
			for x := range 128 {
				d.stay[x] = d.stay[x] || d.p.classes[x] == uint8(c)
			}
		}
	}
	return n, 1, true
}
