package format

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// TabWidth is the distance in cells between the tab stops ExpandTabs
// uses: 4, as CommonMark reads tabs in markdown and as aidex shows them
// in diffs.
const TabWidth = 4

// ExpandTabs replaces each tab in text with the spaces that reach the
// next tab stop (every TabWidth cells, counted from each line's start
// in display cells; escape sequences take none). A terminal draws a tab
// as up to 8 cells that width counting sees as none, so text with tabs
// must be expanded before it is wrapped or measured.
func ExpandTabs(text string) string {
	if !strings.Contains(text, "\t") {
		return text
	}
	var b strings.Builder
	b.Grow(len(text) + 8)
	for line := range strings.Lines(text) {
		start := b.Len()
		for {
			i := strings.IndexByte(line, '\t')
			if i < 0 {
				b.WriteString(line)
				break
			}
			b.WriteString(line[:i])
			col := ansi.StringWidth(b.String()[start:])
			b.WriteString(strings.Repeat(" ", TabWidth-col%TabWidth))
			line = line[i+1:]
		}
	}
	return b.String()
}
