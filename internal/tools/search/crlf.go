package search

import "regexp/syntax"

// crlfPattern rewrites pattern so that every end-of-line anchor ($ in
// grep's multi-line mode) also matches before a CRLF line ending, as
// ripgrep's --crlf does: $ becomes \r?$ on the syntax tree. Files checked
// out with CRLF (Git for Windows' default) then answer "foo$" like LF
// files. A pattern that does not parse, or has no $, is returned as is
// (compilePattern reports the parse error).
func crlfPattern(pattern string) string {
	re, err := syntax.Parse("(?m)"+pattern, syntax.Perl)
	if err != nil {
		return pattern
	}
	re, changed := crlfAnchors(re)
	if !changed {
		return pattern
	}
	return re.String()
}

// crlfAnchors returns re with each OpEndLine node n replaced by \r?n.
func crlfAnchors(re *syntax.Regexp) (*syntax.Regexp, bool) {
	if re.Op == syntax.OpEndLine {
		cr := &syntax.Regexp{Op: syntax.OpLiteral, Rune: []rune{'\r'}}
		return &syntax.Regexp{Op: syntax.OpConcat, Sub: []*syntax.Regexp{
			{Op: syntax.OpQuest, Sub: []*syntax.Regexp{cr}}, re}}, true
	}
	changed := false
	for i, sub := range re.Sub {
		if n, ok := crlfAnchors(sub); ok {
			re.Sub[i], changed = n, true
		}
	}
	return re, changed
}
