package plain

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/ui/commands"
)

func TestLineModeWrapsHelpAndNoticesAtTheTerminalWidth(t *testing.T) {
	out, _ := runREPLWith(t, "/help\n!echo hi\n", func(r *REPL, _ map[string]string) {
		r.Printer.Width = func() int { return 40 }
	})
	var help strings.Builder
	commands.Default().Help(&help)
	helpOut := strings.Split(out, "> ")[1]
	require.Equal(t, strings.Fields(help.String()), strings.Fields(helpOut), "the same words, none split")
	for _, l := range strings.Split(out, "\n") {
		require.LessOrEqual(t, utf8.RuneCountInString(l), 40, "%q", l)
	}
	require.Contains(t, out, "you ran this yourself (no\npermission check)", "notices wrap too")
}
