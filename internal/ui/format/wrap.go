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
	hang := hangingIndent(ansi.Strip(l), width)
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
