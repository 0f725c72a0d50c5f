package file

import (
	"fmt"
	"slices"
	"strings"

	"github.com/zelvior/aidex/internal/tools"
)

// patchedText applies the chunks of an update to content and returns the
// new content, and whether some old lines matched only after white space
// or typographic punctuation was ignored (Codex's fallbacks). Chunks apply
// in order, each after the previous one; a chunk whose context line or
// old lines are not found fails the whole update, with the reason. Line
// endings follow the file; a missing final newline stays missing.
func patchedText(content string, chunks []patchChunk) (string, bool, error) {
	raw := tools.SplitLinesKeep(content)
	lines := make([]string, len(raw))
	for i, l := range raw {
		lines[i] = tools.TrimEOL(l)
	}
	type repl struct {
		at, n int
		with  []string
	}
	var repls []repl
	loose, from := false, 0
	for _, c := range chunks {
		if c.context != "" {
			at, lax := seekLines(lines, []string{c.context}, from, false)
			if at < 0 {
				return "", false, fmt.Errorf("chunk at patch line %d: the context line %q is not in the file (after line %d)", c.line, c.context, from)
			}
			loose, from = loose || lax, at+1
		}
		if len(c.old) == 0 { // only added lines: after the context line, else at the end
			at := len(lines)
			if c.context != "" {
				at = from
			}
			repls = append(repls, repl{at, 0, c.new})
			continue
		}
		old, neu := c.old, c.new
		at, lax := seekLines(lines, old, from, c.eof)
		if at < 0 && old[len(old)-1] == "" { // a trailing empty line the file does not have
			old = old[:len(old)-1]
			if len(neu) > 0 && neu[len(neu)-1] == "" {
				neu = neu[:len(neu)-1]
			}
			at, lax = seekLines(lines, old, from, c.eof)
		}
		if at < 0 {
			return "", false, fmt.Errorf("chunk at patch line %d: these lines are not in the file (after line %d):\n%s\n%s",
				c.line, from, strings.Join(c.old, "\n"), nearest(raw, c.old))
		}
		repls = append(repls, repl{at, len(old), neu})
		loose, from = loose || lax, at+len(old)
	}
	// Each chunk starts at or after the end of the one before, so the
	// replacements are in order and do not overlap.
	slices.SortStableFunc(repls, func(a, b repl) int { return a.at - b.at })
	out := make([]string, 0, len(lines)+len(chunks))
	prev := 0
	for _, r := range repls {
		out = append(append(out, lines[prev:r.at]...), r.with...)
		prev = r.at + r.n
	}
	lines = append(out, lines[prev:]...)
	eol := eolOf(content)
	text := strings.Join(lines, eol)
	if len(lines) > 0 && (content == "" || strings.HasSuffix(content, "\n")) {
		text += eol
	}
	return text, loose, nil
}

// seekLines finds want in lines at or after from (with eof: at the end of
// the file first) and returns its index (-1: not found) and whether it
// matched only loosely: ignoring trailing white space, then white space
// around the lines, then typographic dashes, quotes and spaces.
func seekLines(lines, want []string, from int, eof bool) (int, bool) {
	if len(want) > len(lines) {
		return -1, false
	}
	start := from
	if eof {
		start = len(lines) - len(want)
	}
	for pass, norm := range []func(string) string{
		func(s string) string { return s },
		func(s string) string { return strings.TrimRight(s, " \t") },
		strings.TrimSpace,
		plainPunct,
	} {
		for i := start; i <= len(lines)-len(want); i++ {
			if slices.EqualFunc(lines[i:i+len(want)], want, func(a, b string) bool { return norm(a) == norm(b) }) {
				return i, pass > 0
			}
		}
	}
	if eof && from < start {
		return seekLines(lines, want, from, false)
	}
	return -1, false
}

// plainPunct trims s and maps typographic dashes, quotes and spaces to
// their ASCII forms.
func plainPunct(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015', '\u2212':
			return '-'
		case '\u2018', '\u2019', '\u201A', '\u201B':
			return '\''
		case '\u201C', '\u201D', '\u201E', '\u201F':
			return '"'
		case '\u00A0', '\u2002', '\u2003', '\u2004', '\u2005', '\u2006', '\u2007', '\u2008', '\u2009', '\u200A', '\u202F', '\u205F', '\u3000':
			return ' '
		}
		return r
	}, strings.TrimSpace(s))
}
