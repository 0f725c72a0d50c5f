// Package toolstest is the test fixture the tool families' tests share: a
// workspace in a temporary directory (symlinks resolved) with a sibling
// "outside" directory, a registry of the tools under test, and a tool
// environment with an in-memory checkpoint store. Only tests import it.
package toolstest

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/permission"
	"github.com/zelvior/aidex/internal/tools"
)

// M is a JSON object of tool arguments.
type M = map[string]any

// Fixture is one test's workspace and tools. Root is the workspace root
// (symlinks resolved), Outside a directory next to it; Env is the tool
// environment (read tracking and an in-memory checkpoint store, Cps);
// Reg holds the tools under test.
type Fixture struct {
	T       testing.TB
	Root    string
	Outside string
	Env     *tools.Env
	Reg     *tools.Registry
	Cps     *tools.MemCheckpointer
}

// New makes the workspace and registers defs. Registration errors fail
// the test.
func New(t testing.TB, defs ...tools.Def) *Fixture {
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
	require.NoError(t, reg.Register(defs...))
	env := tools.NewEnv(ws)
	cps, _ := env.Checkpoints.(*tools.MemCheckpointer)
	return &Fixture{T: t, Root: ws.Root(), Outside: outside, Env: env, Reg: reg, Cps: cps}
}

// CallCtx runs a tool with args given as a Go value (marshalled to JSON)
// or a string of raw JSON.
func (f *Fixture) CallCtx(ctx context.Context, name string, args any) tools.Result {
	f.T.Helper()
	var raw json.RawMessage
	if s, ok := args.(string); ok {
		raw = json.RawMessage(s)
	} else {
		b, err := json.Marshal(args)
		require.NoError(f.T, err)
		raw = b
	}
	return f.Reg.Call(ctx, f.Env, name, raw)
}

// Call is CallCtx with a background context.
func (f *Fixture) Call(name string, args any) tools.Result {
	f.T.Helper()
	return f.CallCtx(context.Background(), name, args)
}

// OK runs a tool and fails the test unless it succeeded.
func (f *Fixture) OK(name string, args any) tools.Result {
	f.T.Helper()
	r := f.Call(name, args)
	require.True(f.T, r.OK, "%s failed: %s (%s)\n%s", name, r.Error, r.Category, r.Output)
	return r
}

// Fail runs a tool and fails the test unless it failed with category cat
// and an error message.
func (f *Fixture) Fail(name string, args any, cat tools.Category) tools.Result {
	f.T.Helper()
	r := f.Call(name, args)
	require.False(f.T, r.OK, "%s should fail, got output %q", name, r.Output)
	require.Equal(f.T, cat, r.Category, "error: %s\n%s", r.Error, r.Output)
	require.NotEmpty(f.T, r.Error)
	return r
}

// Write creates the workspace file rel (slash-separated) with content,
// making its directories, and returns its absolute path.
func (f *Fixture) Write(rel, content string) string {
	f.T.Helper()
	p := filepath.Join(f.Root, filepath.FromSlash(rel))
	require.NoError(f.T, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(f.T, os.WriteFile(p, []byte(content), 0o644))
	return p
}

// Read returns the content of the workspace file rel.
func (f *Fixture) Read(rel string) string {
	f.T.Helper()
	b, err := os.ReadFile(filepath.Join(f.Root, filepath.FromSlash(rel)))
	require.NoError(f.T, err)
	return string(b)
}

// Exists reports whether p (absolute) exists, without following a final
// symlink.
func (f *Fixture) Exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// SearchTree fills the workspace with a tree for the search and listing
// tests: nested .gitignore files (with a negation), a .git directory,
// hidden files, a binary file, CRLF lines and a file without a final
// newline, each holding "needle" where a search should (or should not)
// find it.
func (f *Fixture) SearchTree() {
	f.T.Helper()
	for _, file := range [][2]string{
		{".gitignore", "*.log\nbuild/\n!keep.log\n"},
		{".git/config", "needle in git\n"},
		{".github/ci.yml", "needle: hidden dir\n"},
		{"README.md", "Needle upper\nno match\n"},
		{"main.go", "package main\n\n// needle one\nfunc main() {}\n// needle two\n"},
		{"app.log", "needle in ignored log\n"},
		{"keep.log", "needle kept by negation\n"},
		{"build/out.go", "needle in ignored build\n"},
		{"src/.gitignore", "gen_*.go\n"},
		{"src/gen_a.go", "needle generated\n"},
		{"src/lib.go", "a\nb\nneedle lib\nc\nd\ne\nf\ng\nneedle again\nh\n"},
		{"src/deep/x/y.go", "x\r\nneedle crlf\r\n"},
		{"src/data.bin", "needle\x00binary"},
		{"docs/notes.txt", "needle at end without newline"},
	} {
		f.Write(file[0], file[1])
	}
}

// GoSrc returns $GOROOT/src, a large real tree for benchmarks; the
// benchmark is skipped when the go command cannot tell.
func GoSrc(b *testing.B) string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skipf("go env GOROOT: %v", err)
	}
	return filepath.Join(strings.TrimSpace(string(out)), "src")
}
