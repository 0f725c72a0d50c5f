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
	require.Equal(t, "  /model [NAME] switch\n  the model (a picker\n  without NAME)", Wrap(line, 22),
		"a second column right of the middle: indent under the line's text")
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
