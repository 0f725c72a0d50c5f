//go:build unix

package exec

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/permission"
	"github.com/zelvior/aidex/internal/tools"
)

// execFixture is a workspace with the command and background tools
// registered.
type execFixture struct {
	t       *testing.T
	root    string
	outside string
	env     *tools.Env
	reg     *tools.Registry
	procs   *ProcessTable
}

func newExecFixture(t *testing.T, opts Options) *execFixture {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the command tool tests use POSIX shell commands")
	}
	parent, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	root := filepath.Join(parent, "ws")
	outside := filepath.Join(parent, "outside")
	require.NoError(t, os.Mkdir(root, 0o755))
	require.NoError(t, os.Mkdir(outside, 0o755))
	ws, err := permission.NewWorkspace(root, permission.WorkspaceOptions{})
	require.NoError(t, err)
	if opts.Procs == nil {
		opts.Procs = NewProcessTable(0)
	}
	t.Cleanup(func() { _ = opts.Procs.Close() })
	reg := tools.NewRegistry()
	require.NoError(t, reg.Register(Tools(opts)...))
	return &execFixture{t: t, root: ws.Root(), outside: outside, env: tools.NewEnv(ws), reg: reg, procs: opts.Procs}
}

func (f *execFixture) callCtx(ctx context.Context, name string, args any) tools.Result {
	f.t.Helper()
	b, err := json.Marshal(args)
	require.NoError(f.t, err)
	return f.reg.Call(ctx, f.env, name, b)
}

func (f *execFixture) call(name string, args any) tools.Result {
	f.t.Helper()
	return f.callCtx(context.Background(), name, args)
}

func (f *execFixture) ok(name string, args any) tools.Result {
	f.t.Helper()
	r := f.call(name, args)
	require.True(f.t, r.OK, "%s failed: %s (%s)\n%s", name, r.Error, r.Category, r.Output)
	return r
}

func (f *execFixture) fail(name string, args any, cat tools.Category) tools.Result {
	f.t.Helper()
	r := f.call(name, args)
	require.False(f.t, r.OK, "%s should fail, got output %q", name, r.Output)
	require.Equal(f.t, cat, r.Category, "error: %s\n%s", r.Error, r.Output)
	require.NotEmpty(f.t, r.Error)
	return r
}

func (f *execFixture) write(rel, content string) string {
	f.t.Helper()
	p := filepath.Join(f.root, filepath.FromSlash(rel))
	require.NoError(f.t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(f.t, os.WriteFile(p, []byte(content), 0o644))
	return p
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
