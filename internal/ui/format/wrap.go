package format

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Wrap wraps each line of text that is wider than width display cells at
// spaces, never inside a word (a word wider than the line stays whole).
// Escape sequences are kept and not counted. A continuation line is
// indented like its line's text: under the second column of a two-column
// line ("  /model NAME      switch the model", the columns separated by
// two or more spaces) when that column starts in the left half, else
// under the line's first non-space character. width <= 0 leaves text as
// it is. Tabs are expanded first (ExpandTabs).
func Wrap(text string, width int) string {
	if width <= 0 {
		return text
	}
	text = ExpandTabs(text)
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if ansi.StringWidth(l) > width {
			lines[i] = wrapLine(l, width)
		}
	}
	return strings.Join(lines, "\n")
}

// wrapLine wraps one line wider than width: its words (split at
// spaces; hyphens never break) are filled greedily after the hanging
// indent.
func wrapLine(l string, width int) string {
	plain := ansi.Strip(l)
	if lead, col, ok := columns(plain); ok && col > width/2 {
		// Two columns and no room for the second beside the first: the
		// second goes under the first, indented.
		indent := strings.Repeat(" ", lead+2)
		first := ansi.Truncate(l, col, "")
		rest := strings.TrimLeft(ansi.Cut(l, col, ansi.StringWidth(l)), " ")
		return strings.TrimRight(Wrap(first, width), " ") + "\n" + Wrap(indent+rest, width)
	}
	if lead := len(plain) - len(strings.TrimLeft(plain, " ")); lead > width/2 && len(plain) > lead {
		// A second column's continuation (the first left empty) wider
		// than the line: indented like a stacked second column.
		return Wrap("    "+strings.TrimLeft(l, " "), width) // as a stacked second column under a usage at 2
	}
	hang := hangingIndent(plain, width)
	var b strings.Builder
	b.WriteString(ansi.Cut(l, 0, hang))
	col := hang
	for i, w := range strings.Fields(ansi.Cut(l, hang, ansi.StringWidth(l))) {
		ww := ansi.StringWidth(w)
		switch {
		case i == 0:
		case col+1+ww > width:
			b.WriteString("\n" + strings.Repeat(" ", hang))
			col = hang
		default:
			b.WriteByte(' ')
			col++
		}
		b.WriteString(w)
		col += ww
	}
	return b.String()
}

// columns reports whether plain line l has two columns (text, two or
// more spaces, text) and where the first starts (lead) and the second
// starts (col), in cells.
func columns(l string) (lead, col int, ok bool) {
	lead = len(l) - len(strings.TrimLeft(l, " "))
	rest := l[lead:]
	gap := strings.Index(rest, "  ")
	if gap <= 0 || strings.TrimSpace(rest[gap:]) == "" {
		return 0, 0, false
	}
	c := lead + gap + len(rest[gap:]) - len(strings.TrimLeft(rest[gap:], " "))
	return ansi.StringWidth(l[:lead]), ansi.StringWidth(l[:c]), true
}

// hangingIndent is the column continuation lines of plain line l start
// at: its second column's when that starts in the left half of width,
// else its leading spaces' (0 when they fill half the width).
func hangingIndent(l string, width int) int {
	lead := len(l) - len(strings.TrimLeft(l, " "))
	if lead > width/2 {
		lead = 0
	}
	rest := l[lead:]
	gap := strings.Index(rest, "  ")
	if gap <= 0 {
		return lead
	}
	col := lead + gap + len(rest[gap:]) - len(strings.TrimLeft(rest[gap:], " "))
	if c := ansi.StringWidth(l[:col]); c <= width/2 && col < len(l) {
		return c
	}
	return lead
}
