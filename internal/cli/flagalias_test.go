package cli

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Short flags mean one thing everywhere: ralph add's -p/-c and memory's
// -c now have long names only; the old short forms still work for one
// release with a notice on stderr, and help no longer shows them.
func TestDeprecatedShortFlags(t *testing.T) {
	e := newRalphEnv(t)
	code, out, errOut := e.run("", "ralph", "add", "Write hello", "-p", "P1", "-c", "hello.txt says hi", "--criteria", "nothing else")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, "added T-001 [P1]: Write hello\n", out)
	require.Contains(t, errOut, "aidex: warning: -p is deprecated here and will be removed in the next release (aidex -p means something else); use --priority")
	require.Contains(t, errOut, "use --criteria")
	code, out, _ = e.run("", "ralph", "show", "T-001")
	require.Equal(t, 0, code)
	require.Contains(t, out, "hello.txt says hi")
	require.Contains(t, out, "nothing else", "-c and --criteria add to one list")

	code, _, errOut = e.run("", "ralph", "add", "Quiet", "--priority", "P0", "--criteria", "ok")
	require.Equal(t, 0, code, errOut)
	require.Empty(t, errOut)

	for _, args := range [][]string{{"ralph", "add", "--help"}, {"memory", "list", "--help"}, {"memory", "add", "--help"}, {"image", "--help"}} {
		_, out, _ = e.run("", args...)
		for _, short := range []string{"-p, ", "-c, ", "-f, ", "deprecated-short"} {
			require.NotContains(t, out, short, strings.Join(args, " "))
		}
	}
	code, _, errOut = e.run("", "memory", "list", "-c", "preference")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, errOut, "use --category")
}
