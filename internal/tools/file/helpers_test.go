package file

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zelvior/aidex/internal/permission"
	"github.com/zelvior/aidex/internal/tools"
	"github.com/zelvior/aidex/internal/tools/search"
)

// fixture is a workspace in a temp dir with a sibling "outside" directory.
type fixture struct {
	t       *testing.T
	root    string // workspace root (symlinks resolved)
	outside string // a directory next to the workspace
	env     *tools.Env
	reg     *tools.Registry
	cps     *tools.MemCheckpointer
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
	env := tools.NewEnv(ws)
	env.Grep = search.GoGrep{}
	reg := tools.NewRegistry()
	require.NoError(t, reg.Register(fileTools()...))
	return &fixture{t: t, root: ws.Root(), outside: outside, env: env, reg: reg, cps: env.Checkpoints.(*tools.MemCheckpointer)}
}

// call runs a tool with args given as a Go value (marshalled) or a string
// of raw JSON.
func (f *fixture) call(name string, args any) tools.Result {
	f.t.Helper()
	var raw json.RawMessage
	switch a := args.(type) {
	case string:
		raw = json.RawMessage(a)
	default:
		b, err := json.Marshal(a)
		require.NoError(f.t, err)
		raw = b
	}
	return f.reg.Call(context.Background(), f.env, name, raw)
}

func (f *fixture) ok(name string, args any) tools.Result {
	f.t.Helper()
	r := f.call(name, args)
	require.True(f.t, r.OK, "%s failed: %s (%s)", name, r.Error, r.Category)
	return r
}

func (f *fixture) fail(name string, args any, cat tools.Category) tools.Result {
	f.t.Helper()
	r := f.call(name, args)
	require.False(f.t, r.OK, "%s should fail, got output %q", name, r.Output)
	require.Equal(f.t, cat, r.Category, "error: %s", r.Error)
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

func (f *fixture) read(rel string) string {
	f.t.Helper()
	b, err := os.ReadFile(filepath.Join(f.root, filepath.FromSlash(rel)))
	require.NoError(f.t, err)
	return string(b)
}

func (f *fixture) exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

type m = map[string]any

// fileTools are the file and search families, registered together as
// before the split.
func fileTools() []tools.Def { return append(Tools(), search.Tools()...) }
