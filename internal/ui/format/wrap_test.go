package format

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/require"
)

func TestWrapNeverSplitsWords(t *testing.T) {
	text := "  /mode MODE                  switch the permission mode: plan, ask, auto-edit or yolo (after the run)\n" +
		"a notice that is long enough to need wrapping at a narrow terminal width, with unbreakable words"
	for _, width := range []int{20, 31, 40, 72} {
		got := Wrap(text, width)
		require.Equal(t, strings.Fields(text), strings.Fields(got), "width %d: the same words, none split", width)
		for _, l := range strings.Split(got, "\n") {
			require.LessOrEqual(t, ansi.StringWidth(l), width, "width %d: %q", width, l)
		}
	}
}

func TestWrapHangingIndent(t *testing.T) {
	line := "  /model [NAME]" + strings.Repeat(" ", 14) + "switch the model (a picker without NAME)"
	indent := strings.Repeat(" ", 29)
	require.Equal(t, "  /model [NAME]"+strings.Repeat(" ", 14)+"switch the model (a picker\n"+
		indent+"without NAME)", Wrap(line, 60))
	require.Equal(t, "  /model [NAME]\n    switch the model\n    (a picker without\n    NAME)", Wrap(line, 22),
		"a second column right of the middle: under the first, indented")
	require.Equal(t, "  /architect [MODEL\n  [EDITOR]|off]\n    architect mode:\n    MODEL plans", Wrap("  /architect [MODEL [EDITOR]|off]\n"+strings.Repeat(" ", 32)+"architect mode: MODEL plans", 22),
		"a second column's continuation line far right: indented like a stacked one")
	require.Equal(t, "stopped after 3 model\nresponses", Wrap("stopped after 3 model responses", 22))
}

func TestWrapKeepsShortLinesAndEscapes(t *testing.T) {
	require.Equal(t, "short\n\n  also short", Wrap("short\n\n  also short", 20))
	require.Equal(t, "unchanged", Wrap("unchanged", 0))
	got := Wrap("\x1b[33mcoloured words that wrap here\x1b[m", 15)
	require.Equal(t, "coloured words\nthat wrap here", ansi.Strip(got))
	require.Contains(t, got, "\x1b[33m")
	require.Equal(t, "a\nverylongwordthatdoesnotfit\nb", Wrap("a verylongwordthatdoesnotfit b", 10), "a word wider than the line stays whole")
}

func TestExpandTabsReachesTheNextStop(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"no tabs", "no tabs"},
		{"\tx", "    x"},
		{"ab\tc", "ab  c"},
		{"abcd\te", "abcd    e"},
		{"a\tb\n\tc\td", "a   b\n    c   d"},
		{"\x1b[1mab\x1b[m\tc", "\x1b[1mab\x1b[m  c"},
		{"日本\tx", "日本    x"},
	} {
		require.Equal(t, c.want, ExpandTabs(c.in), "%q", c.in)
	}
}

// A tab counts no cells for width counting but a terminal draws up to 8:
// Wrap expands tabs first, so no wrapped line is wider than the width on
// the screen and words stay whole.
func TestWrapExpandsTabsFirst(t *testing.T) {
	in := "\t\tThe quick brown fox jumps over\n\t\tThe quick brown fox jumps over the lazy dog again and again"
	out := Wrap(in, 30)
	require.NotContains(t, out, "\t")
	for _, l := range strings.Split(out, "\n") {
		require.LessOrEqual(t, ansi.StringWidth(l), 30, "%q", l)
	}
	require.Equal(t, strings.Fields(in), strings.Fields(out))
}
