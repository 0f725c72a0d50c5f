package plain

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/ui/commands"
)

func TestCompleteSlash(t *testing.T) {
	table := append(commands.Default(), commands.Spec{Name: "/deploy-docs", Help: "custom command (project)"},
		commands.Spec{Name: "/deploy-site", Help: "custom command (user)"})
	names := func(specs []commands.Spec) []string {
		var out []string
		for _, s := range specs {
			out = append(out, s.Name)
		}
		return out
	}
	for _, tc := range []struct {
		name, line string
		pos        int // -1: end of line
		want       string
		wantPos    int // -1: end of want
		matches    []string
	}{
		{name: "one built-in completes with a space", line: "/he", pos: -1, want: "/help ", wantPos: -1, matches: []string{"/help"}},
		{name: "one custom completes", line: "/deploy-s", pos: -1, want: "/deploy-site ", wantPos: -1, matches: []string{"/deploy-site"}},
		{name: "several custom grow to their common prefix", line: "/dep", pos: -1, want: "/deploy-", wantPos: -1, matches: []string{"/deploy-docs", "/deploy-site"}},
		{name: "several listed, exact first, nothing to add", line: "/mode", pos: -1, want: "/mode", wantPos: -1},
		{name: "no match leaves the line", line: "/zzz", pos: -1, want: "/zzz", wantPos: -1},
		{name: "not a command", line: "hello", pos: -1, want: "hello", wantPos: -1},
		{name: "argument position is not completed", line: "/model gp", pos: -1, want: "/model gp", wantPos: -1},
		{name: "text after the cursor stays", line: "/he extra", pos: 3, want: "/help extra", wantPos: 5, matches: []string{"/help"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pos := tc.pos
			if pos < 0 {
				pos = len(tc.line)
			}
			got, gotPos, matches := completeSlash(table, tc.line, pos)
			wantPos := tc.wantPos
			if wantPos < 0 {
				wantPos = len(tc.want)
			}
			require.Equal(t, tc.want, got)
			require.Equal(t, wantPos, gotPos)
			if tc.matches != nil {
				require.Equal(t, tc.matches, names(matches))
			}
		})
	}
	_, _, m := completeSlash(table, "/mode", 5)
	require.Greater(t, len(m), 1, "/mode also matches /model and /models")
	require.Equal(t, "/mode", m[0].Name, "the exact match comes first")
}
