//go:build unix

package git

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/permission"
	"github.com/zelvior/aidex/internal/tools"
)

// fixture is a workspace (with a sibling "outside" directory) with
// the git tools registered.
type fixture struct {
	t       *testing.T
	root    string
	outside string
	env     *tools.Env
	reg     *tools.Registry
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	parent, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	root := filepath.Join(parent, "ws")
	outside := filepath.Join(parent, "outside")
	require.NoError(t, os.Mkdir(root, 0o755))
	require.NoError(t, os.Mkdir(outside, 0o755))
	ws, err := permission.NewWorkspace(root, permission.WorkspaceOptions{})
	require.NoError(t, err)
	reg := tools.NewRegistry()
	require.NoError(t, reg.Register(Tools()...))
	return &fixture{t: t, root: ws.Root(), outside: outside, env: tools.NewEnv(ws), reg: reg}
}

func (f *fixture) call(name string, args any) tools.Result {
	f.t.Helper()
	b, err := json.Marshal(args)
	require.NoError(f.t, err)
	return f.reg.Call(context.Background(), f.env, name, b)
}

func (f *fixture) ok(name string, args any) tools.Result {
	f.t.Helper()
	r := f.call(name, args)
	require.True(f.t, r.OK, "%s failed: %s (%s)\n%s", name, r.Error, r.Category, r.Output)
	return r
}

func (f *fixture) fail(name string, args any, cat tools.Category) tools.Result {
	f.t.Helper()
	r := f.call(name, args)
	require.False(f.t, r.OK, "%s should fail, got output %q", name, r.Output)
	require.Equal(f.t, cat, r.Category, "error: %s\n%s", r.Error, r.Output)
	require.NotEmpty(f.t, r.Error)
	return r
}

func (f *fixture) write(rel, content string) string {
	f.t.Helper()
	p := filepath.Join(f.root, filepath.FromSlash(rel))
	require.NoError(f.t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(f.t, os.WriteFile(p, []byte(content), 0o644))
	return p
}

// jobj is a JSON object of tool arguments.
type jobj = map[string]any
