//go:build unix

package exec

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/tools/toolstest"
)

// execFixture is the shared tool-test fixture with the command and
// background tools registered over procs.
type execFixture struct {
	*toolstest.Fixture
	procs *ProcessTable
}

func newExecFixture(t *testing.T, opts Options) *execFixture {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the command tool tests use POSIX shell commands")
	}
	if opts.Procs == nil {
		opts.Procs = NewProcessTable(0)
	}
	t.Cleanup(func() { _ = opts.Procs.Close() })
	return &execFixture{Fixture: toolstest.New(t, Tools(opts)...), procs: opts.Procs}
}

// processGone reports whether pid no longer runs (a zombie counts as gone:
// containers may lack an init that reaps orphans).
// jobj is a JSON object of tool arguments.
type jobj = map[string]any

func processGone(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return true
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return runtime.GOOS == "linux"
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && i+2 < len(s) && s[i+2] == 'Z'
}

func waitGone(t *testing.T, pid int) {
	t.Helper()
	require.Eventually(t, func() bool { return processGone(pid) }, 5*time.Second, 20*time.Millisecond,
		"process %d still running", pid)
}

func firstInt(t *testing.T, s string) int {
	t.Helper()
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	n, err := strconv.Atoi(strings.TrimSpace(line))
	require.NoError(t, err, "output %q", s)
	return n
}
