package commands

import (
	"context"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/ui/format"
)

// /help's two columns hold at every width: wrapped for the terminal, no
// line is wider than it, every word stays whole, and on a wide terminal
// every help text starts in one column, at least two spaces right of its
// usage (a usage too wide for the column has a line of its own).
func TestHelpColumnsDoNotOverflow(t *testing.T) {
	var b strings.Builder
	Default().Help(&b)
	help := b.String()
	for _, width := range []int{40, 60, 80, 110, 160} {
		out := format.Wrap(help, width)
		require.Equal(t, strings.Fields(help), strings.Fields(out), "width %d: words whole", width)
		for _, l := range strings.Split(out, "\n") {
			require.LessOrEqual(t, ansi.StringWidth(l), width, "width %d: %q", width, l)
		}
	}
	col := -1
	lines := strings.Split(strings.TrimRight(help, "\n"), "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, "  /") {
			continue // a help text under its long usage
		}
		gap := strings.Index(l[2:], "  ")
		if gap < 0 {
			require.Less(t, i+1, len(lines), "a usage alone is followed by its help: %q", l)
			next := lines[i+1]
			require.Equal(t, col, len(next)-len(strings.TrimLeft(next, " ")), "the help under a wide usage starts in the column: %q then %q", l, next)
			continue
		}
		start := 2 + gap + len(l[2+gap:]) - len(strings.TrimLeft(l[2+gap:], " "))
		if col < 0 {
			col = start
		}
		require.Equal(t, col, start, "every help text starts in one column: %q", l)
	}
}

// /mode without an argument offers the modes to pick; with one it sets it.
func TestModeWithoutArgumentOffersTheModes(t *testing.T) {
	o, err := cmdMode(context.Background(), nil, "", &strings.Builder{})
	require.NoError(t, err)
	require.Equal(t, ActPickMode, o.Action)
	var names []string
	for _, c := range ModeChoices() {
		names = append(names, c.Name)
		require.NotEmpty(t, c.Help)
	}
	require.Equal(t, []string{"plan", "ask", "auto-edit", "yolo"}, names)
}
