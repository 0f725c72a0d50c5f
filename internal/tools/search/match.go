package search

import (
	"bytes"
	"regexp"
	"slices"

	"github.com/zelvior/aidex/internal/tools"
)

// grepData returns the matching lines of data (and context lines around
// them) in line order. A match must lie within one line, as in ripgrep.
// lit, when set, is a literal every match contains (see requiredLiteral).
func grepData(re *regexp.Regexp, lit, data []byte, context int) []tools.GrepLine {
	var f *litFinder
	if lit != nil {
		f = &litFinder{alts: []litAlt{{s: lit}}}
	}
	return grepDataWith(re, f, data, context)
}

// grepDataWith is grepData with a literal finder (nil: none).
func grepDataWith(re *regexp.Regexp, lit *litFinder, data []byte, context int) []tools.GrepLine {
	return grepDataLimit(re, lit, data, context, 0)
}

// grepDataLimit is grepDataWith stopping after limit matching lines (0:
// no limit), so a file of millions of matching lines costs memory in
// proportion to limit, not to the file.
func grepDataLimit(re *regexp.Regexp, lit *litFinder, data []byte, context, limit int) []tools.GrepLine {
	return grepDataFilter(re, lit, nil, data, context, limit)
}

// grepDataFilter is grepDataLimit with a line filter (nil: none). The
// filter finds the candidate lines when the pattern has no literal of two
// or more bytes, and checks the lines holding a literal before the regexp
// does.
func grepDataFilter(re *regexp.Regexp, lit *litFinder, dp *dfaProg, data []byte, context, limit int) []tools.GrepLine {
	if !dp.usable() {
		dp = nil
	}
	useDFA := dp != nil && (lit == nil || lit.weak())
	if lit == nil && !useDFA && !re.Match(data) {
		return nil
	}
	s := &scan{re: re, lines: lineIndex{data: data, starts: []int{0}}, limit: limit}
	switch {
	case useDFA:
		if !s.filtered(dp) {
			s.matched = s.matched[:0]
			s.regexp()
		}
	case lit != nil:
		s.literal(lit, dp)
	default:
		s.regexp()
	}
	if len(s.matched) == 0 {
		return nil
	}
	ix := &s.lines
	ix.indexThrough(s.matched[len(s.matched)-1] + context)
	total := len(ix.starts)
	if ix.starts[total-1] == len(data) {
		total-- // data ends with a newline: no empty last line
	}
	return withContext(s.matched, total, context, func(i int) string { return string(ix.text(i)) })
}

// lineIndex finds the lines of a buffer, indexing line starts lazily (only
// as far as a search needs).
type lineIndex struct {
	data   []byte
	starts []int // byte offset of each line start found so far; starts[0] == 0
}

// lineAt returns the 0-based index of the line containing byte offset
// off, indexing the line starts up to the line after it (if any).
func (x *lineIndex) lineAt(off int) int {
	for x.starts[len(x.starts)-1] <= off {
		nl := bytes.IndexByte(x.data[x.starts[len(x.starts)-1]:], '\n')
		if nl < 0 {
			break
		}
		x.starts = append(x.starts, x.starts[len(x.starts)-1]+nl+1)
	}
	i, found := slices.BinarySearch(x.starts, off)
	if !found {
		i--
	}
	return i
}

// next returns the start of the line after line i (as lineAt indexed it),
// or len(data) when there is none.
func (x *lineIndex) next(i int) int {
	if i+1 < len(x.starts) {
		return x.starts[i+1]
	}
	return len(x.data)
}

// raw returns line i without its "\n" (a "\r" stays, as in ripgrep).
func (x *lineIndex) raw(i int) []byte {
	end := len(x.data)
	if i+1 < len(x.starts) {
		end = x.starts[i+1]
	} else if nl := bytes.IndexByte(x.data[x.starts[i]:], '\n'); nl >= 0 {
		end = x.starts[i] + nl + 1
	}
	return bytes.TrimSuffix(x.data[x.starts[i]:end], []byte("\n"))
}

// text returns line i without its terminator.
func (x *lineIndex) text(i int) []byte { return bytes.TrimSuffix(x.raw(i), []byte("\r")) }

// indexThrough indexes the line starts up to line last (or the end).
func (x *lineIndex) indexThrough(last int) {
	for len(x.starts) <= last+1 {
		n := len(x.starts)
		if x.lineAt(x.starts[n-1]); len(x.starts) == n {
			break
		}
	}
}

// scan collects the indexes of the matching lines of one buffer.
type scan struct {
	re      *regexp.Regexp
	lines   lineIndex
	limit   int   // stop after this many matching lines (0: no limit)
	matched []int // matching line indexes, ascending
}

func (s *scan) add(i int) {
	if len(s.matched) == 0 || s.matched[len(s.matched)-1] < i {
		s.matched = append(s.matched, i)
	}
}

func (s *scan) full() bool { return s.limit > 0 && len(s.matched) >= s.limit }

// literal tests only the lines holding a literal of lit, with the line
// filter of dp (nil: none) first.
func (s *scan) literal(lit *litFinder, dp *dfaProg) {
	var d *lineDFA
	if dp != nil {
		d = dp.get()
		defer dp.put(d)
	}
	data := s.lines.data
	for off := 0; off < len(data) && !s.full(); {
		j := lit.index(data[off:])
		if j < 0 {
			break
		}
		i := s.lines.lineAt(off + j)
		raw := s.lines.raw(i)
		maybe := true
		if d != nil {
			at, ok := d.find(raw)
			if !ok {
				dp.gaveUp(d)
			}
			maybe = !ok || at >= 0
		}
		if maybe && s.re.Match(raw) {
			s.add(i)
		}
		off = s.lines.next(i)
	}
}

// filtered tests only the lines the filter of dp lets through; false
// when the filter gave up (the caller searches with the regexp).
func (s *scan) filtered(dp *dfaProg) bool {
	d := dp.get()
	defer dp.put(d)
	data := s.lines.data
	for off := 0; off < len(data) && !s.full(); {
		at, ok := d.find(data[off:])
		if !ok {
			dp.gaveUp(d)
			return false
		}
		if at < 0 {
			break
		}
		i := s.lines.lineAt(off + at)
		if s.re.Match(s.lines.raw(i)) {
			s.add(i)
		}
		off = s.lines.next(i)
	}
	return true
}

// regexp runs one search per matching line: each starts at a line start
// (where (?m)^ and \b behave as at the start of the text), so the matches
// are never all listed at once.
func (s *scan) regexp() {
	data := s.lines.data
	for off := 0; off <= len(data) && !s.full(); {
		loc := s.re.FindIndex(data[off:])
		if loc == nil {
			break
		}
		start, end := off+loc[0], off+loc[1]
		if start == len(data) && (len(data) == 0 || data[len(data)-1] == '\n') {
			break // empty match after the final newline: no such line
		}
		first, last := s.lines.lineAt(start), s.lines.lineAt(max(end-1, start))
		if bytes.IndexByte(data[start:end], '\n') < 0 {
			s.add(first)
		} else {
			// The match spans lines (e.g. ^\s* ate a blank line); ripgrep
			// matches line by line, so test each line it touched on its own.
			for i := first; i <= last; i++ {
				if s.re.Match(s.lines.raw(i)) {
					s.add(i)
				}
			}
		}
		if last+1 >= len(s.lines.starts) {
			break // lineAt indexed the next line's start, if any
		}
		off = s.lines.starts[last+1]
	}
}

// withContext merges matching line indexes with up to n context lines on
// each side.
func withContext(matched []int, total, n int, text func(int) string) []tools.GrepLine {
	var out []tools.GrepLine
	next := 0 // first line index not yet emitted
	for k, m := range matched {
		from := max(m-n, next)
		for i := from; i < m; i++ {
			out = append(out, tools.GrepLine{Num: i + 1, Text: text(i)})
		}
		out = append(out, tools.GrepLine{Num: m + 1, Text: text(m), Match: true})
		next = m + 1
		to := min(total, m+n+1)
		if k+1 < len(matched) {
			to = min(to, matched[k+1])
		}
		for i := next; i < to; i++ {
			out = append(out, tools.GrepLine{Num: i + 1, Text: text(i)})
		}
		next = max(next, to)
	}
	return out
}
