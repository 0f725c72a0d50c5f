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
	if lit == nil && !re.Match(data) {
		return nil
	}
	var starts []int // byte offset of each line start, built lazily up to need
	starts = append(starts, 0)
	lineAt := func(off int) int { // 0-based line index containing off
		for starts[len(starts)-1] <= off {
			nl := bytes.IndexByte(data[starts[len(starts)-1]:], '\n')
			if nl < 0 {
				break
			}
			starts = append(starts, starts[len(starts)-1]+nl+1)
		}
		i, found := slices.BinarySearch(starts, off)
		if !found {
			i--
		}
		return i
	}
	rawLine := func(i int) []byte { // line i without its "\n" (a "\r" stays, as in ripgrep)
		end := len(data)
		if i+1 < len(starts) {
			end = starts[i+1]
		} else if nl := bytes.IndexByte(data[starts[i]:], '\n'); nl >= 0 {
			end = starts[i] + nl + 1
		}
		return bytes.TrimSuffix(data[starts[i]:end], []byte("\n"))
	}
	lineText := func(i int) []byte { return bytes.TrimSuffix(rawLine(i), []byte("\r")) }
	var matched []int
	add := func(i int) {
		if len(matched) == 0 || matched[len(matched)-1] < i {
			matched = append(matched, i)
		}
	}
	full := func() bool { return limit > 0 && len(matched) >= limit }
	if lit != nil { // only lines holding the literal can match
		for off := 0; off < len(data) && !full(); {
			j := lit.index(data[off:])
			if j < 0 {
				break
			}
			i := lineAt(off + j)
			if re.Match(rawLine(i)) {
				add(i)
			}
			off = len(data) // lineAt indexed the next line's start, if any
			if i+1 < len(starts) {
				off = starts[i+1]
			}
		}
	}
	// One search per matching line: each starts at a line start (where
	// (?m)^ and \b behave as at the start of the text), so the matches
	// are never all listed at once.
	for off := 0; lit == nil && off <= len(data) && !full(); {
		loc := re.FindIndex(data[off:])
		if loc == nil {
			break
		}
		start, end := off+loc[0], off+loc[1]
		if start == len(data) && (len(data) == 0 || data[len(data)-1] == '\n') {
			break // empty match after the final newline: no such line
		}
		first, last := lineAt(start), lineAt(max(end-1, start))
		if bytes.IndexByte(data[start:end], '\n') < 0 {
			add(first)
		} else {
			// The match spans lines (e.g. ^\s* ate a blank line); ripgrep
			// matches line by line, so test each line it touched on its own.
			for i := first; i <= last; i++ {
				if re.Match(rawLine(i)) {
					add(i)
				}
			}
		}
		if last+1 >= len(starts) {
			break // lineAt indexed the next line's start, if any
		}
		off = starts[last+1]
	}
	if len(matched) == 0 {
		return nil
	}
	// Index the lines up to the last one context can show.
	for need := matched[len(matched)-1] + context + 1; len(starts) <= need; {
		n := len(starts)
		if lineAt(starts[n-1]); len(starts) == n {
			break
		}
	}
	total := len(starts)
	if starts[total-1] == len(data) {
		total-- // data ends with a newline: no empty last line
	}
	return withContext(matched, total, context, func(i int) string { return string(lineText(i)) })
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
