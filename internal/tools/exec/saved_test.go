//go:build unix

package exec

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/tools"
)

// With an output store, a cut command output is saved whole and its cut
// marker gives the handle and the line the cut starts on; read_output
// reads it by the handle with offsets. An output that was not cut leaves
// nothing behind; without a store the marker is as before.
func TestSavedOutputHandle(t *testing.T) {
	f := newExecFixture(t, Options{MaxOutputChars: 1000})
	dir := filepath.Join(t.TempDir(), "outputs")
	f.Env.Outputs = &tools.OutputStore{Dir: dir}
	r := f.OK("run_command", jobj{"command": "seq 1 100000"})
	m := regexp.MustCompile(`\[\.\.\. \d+ characters cut; the whole output \(588895 bytes\) is saved: read_output \{"id": "(o[0-9a-f]{8})", "offset": (\d+)\} reads it on from the last line shown \.\.\.\]`).
		FindStringSubmatch(r.Output)
	require.NotNil(t, m, r.Output)
	require.Equal(t, "152", m[2], "the head (500 bytes) holds lines 1-152")
	require.True(t, strings.HasSuffix(r.Output, "100000\n[exit code: 0]"))

	r = f.OK("read_output", jobj{"id": m[1], "offset": 50000, "limit": 3})
	require.Equal(t, " 50000\t50000\n 50001\t50001\n 50002\t50002\n[lines 50000-50002 of 100000; offset 50003 reads on]\n", r.Output)
	r = f.OK("read_output", jobj{"id": m[1], "offset": 99999})
	require.Equal(t, " 99999\t99999\n100000\t100000\n", r.Output)
	f.Fail("read_output", jobj{"id": m[1], "offset": 100001}, tools.CategoryValidation)
	r = f.Fail("read_output", jobj{"id": "../../etc/passwd"}, tools.CategoryNotFound)
	require.Contains(t, r.Error, "is not an output id")
	f.Fail("read_output", jobj{"id": "o00000000"}, tools.CategoryNotFound)

	f.OK("run_command", jobj{"command": "echo short"})
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "only the cut output is kept")

	f.Env.Outputs = nil
	r = f.OK("run_command", jobj{"command": "seq 1 100000"})
	require.Regexp(t, `\n\[\.\.\. \d+ characters cut \.\.\.\]\n`, r.Output)
	f.Fail("read_output", jobj{"id": m[1]}, tools.CategoryNotFound)
}
