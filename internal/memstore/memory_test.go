package memstore

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFamily(t *testing.T) {
	cases := []struct{ provider, model, want string }{
		{"anthropic", "claude-sonnet-4-5", "claude"},
		{"openrouter", "anthropic/claude-3.5-haiku", "claude"},
		{"openai", "gpt-5", "openai"},
		{"openai", "o3-mini", "openai"},
		{"github", "openai/o4-mini", "openai"},
		{"gemini", "gemini-2.5-pro", "gemini"},
		{"groq", "llama-3.3-70b-versatile", "llama"},
		{"mistral", "devstral-small", "mistral"},
		{"ollama", "qwen2.5-coder:7b", "qwen"},
		{"anthropic", "some-new-model", "claude"},
		{"pollinations", "openai", "other"},
		{"custom", "", "other"},
	}
	for _, c := range cases {
		require.Equal(t, c.want, Family(c.provider, c.model), "%s/%s", c.provider, c.model)
	}
}

func TestStorePinEditDeleteAndPinnedNotes(t *testing.T) {
	ctx := context.Background()
	ws, global := t.TempDir(), filepath.Join(t.TempDir(), "memory")
	s := NewStore(ws, global, nil)
	a, err := s.Save(ctx, ScopeProject, Entry{Content: "Run make check before committing", Category: "workflow"})
	require.NoError(t, err)
	b, err := s.Save(ctx, ScopeGlobal, Entry{Content: "Answer in British English", Tags: []string{"style"}})
	require.NoError(t, err)
	_, err = s.Save(ctx, ScopeProject, Entry{Content: "unpinned detail"})
	require.NoError(t, err)

	notes, err := PinnedNotes(ws, global)
	require.NoError(t, err)
	require.Nil(t, notes, "nothing pinned yet")

	_, err = s.SetPinned(ctx, a.ID, true)
	require.NoError(t, err)
	_, err = s.SetPinned(ctx, b.ID, true)
	require.NoError(t, err)
	notes, err = PinnedNotes(ws, global)
	require.NoError(t, err)
	require.Len(t, notes, 1)
	require.Contains(t, notes[0], "[workflow] Run make check before committing")
	require.Contains(t, notes[0], "Answer in British English (tags: style)")
	require.NotContains(t, notes[0], "unpinned detail")

	notes, err = PinnedNotes("", global) // project scope skipped
	require.NoError(t, err)
	require.NotContains(t, notes[0], "make check")

	e, err := s.Edit(ctx, a.ID, "Run make check and go vet before committing")
	require.NoError(t, err)
	require.True(t, e.Pinned)
	require.Equal(t, a.Timestamp, e.Timestamp)
	got, err := s.Get(ctx, a.ID)
	require.NoError(t, err)
	require.Equal(t, "Run make check and go vet before committing", got.Content)
	_, err = s.Edit(ctx, a.ID, "  ")
	require.Error(t, err)

	require.NoError(t, s.Delete(ctx, b.ID))
	_, err = s.Get(ctx, b.ID)
	require.ErrorIs(t, err, ErrNoEntry)
	require.ErrorIs(t, s.Delete(ctx, "nope"), ErrNoEntry)
	_, err = s.SetPinned(ctx, "nope", true)
	require.ErrorIs(t, err, ErrNoEntry)

	pinned, err := s.List(ctx, Query{PinnedOnly: true})
	require.NoError(t, err)
	require.Len(t, pinned, 1)
	require.Equal(t, a.ID, pinned[0].ID)
}

func TestStoreToleratesBadLines(t *testing.T) {
	ctx := context.Background()
	ws := t.TempDir()
	dir := filepath.Join(ws, ".aidex", "memory")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	content := "not json\n{\"id\":\"a1\",\"content\":\"kept\",\"timestamp\":\"2026-01-01T00:00:00Z\"}\n{\"id\":\"\"}" // no final newline
	require.NoError(t, os.WriteFile(filepath.Join(dir, entriesFile), []byte(content), 0o600))
	s := NewStore(ws, "", nil)
	_, err := s.Save(ctx, ScopeProject, Entry{Content: "appended"})
	require.NoError(t, err)
	es, err := s.List(ctx, Query{})
	require.NoError(t, err)
	require.Len(t, es, 2)
	require.Equal(t, "appended", es[0].Content)
	require.Equal(t, "kept", es[1].Content)
	_, err = s.Save(ctx, ScopeGlobal, Entry{Content: "x"})
	require.ErrorContains(t, err, "global memory is not available")
}

func TestCheckPath(t *testing.T) {
	ok := map[string]memPath{
		"":                       {dir: "claude"},
		"/memories":              {dir: "claude"},
		"/memories/":             {dir: "claude"},
		"notes.md":               {dir: "claude", rel: "notes.md"},
		"/memories/a//b/./c.md":  {dir: "claude", rel: "a/b/c.md"},
		"/memories/shared":       {dir: "shared"},
		"shared/x.md":            {dir: "shared", rel: "x.md"},
		"/memories/shared/y/z":   {dir: "shared", rel: "y/z"},
		"~/x":                    {dir: "claude", rel: "~/x"},
		"/memories/openai/a.txt": {dir: "claude", rel: "openai/a.txt"},
	}
	for in, want := range ok {
		got, err := checkPath(in, "claude")
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	for _, in := range []string{"..", "/memories/..", "/tmp/x", "/memoriesx/a", "a\\b", "a:b", "a\nb", strings.Repeat("a/", 20) + "x", strings.Repeat("x", 300)} {
		_, err := checkPath(in, "claude")
		require.ErrorIs(t, err, ErrBadPath, in)
	}
}

// FuzzCheckPath: an accepted path always stays inside the memory root.
func FuzzCheckPath(f *testing.F) {
	for _, s := range []string{"", "/memories/a.md", "../x", "shared/../../x", "/etc/passwd", "a/./b", "\\..\\x", "/memories/shared", "..%2f", "a\x00", "\u202e"} {
		f.Add(s)
	}
	root := filepath.FromSlash("/mem/root")
	f.Fuzz(func(t *testing.T, in string) {
		p, err := checkPath(in, "claude")
		if err != nil {
			return
		}
		if p.dir != "claude" && p.dir != SharedDir {
			t.Fatalf("%q: dir %q", in, p.dir)
		}
		phys := p.physical()
		if strings.HasPrefix(phys, "/") || strings.Contains(phys, "\\") || strings.ContainsRune(phys, 0) || strings.Contains(phys, ":") {
			t.Fatalf("%q: physical %q", in, phys)
		}
		for _, c := range strings.Split(phys, "/") {
			if c == ".." || c == "." || c == "" {
				t.Fatalf("%q: component %q in %q", in, c, phys)
			}
		}
		joined := filepath.Join(root, filepath.FromSlash(phys))
		if !strings.HasPrefix(joined, root+string(filepath.Separator)) {
			t.Fatalf("%q escapes: %q", in, joined)
		}
	})
}

// TestMigrate: the memory tool's tree moves from <workspace>/.aidex/memory
// into the state directory once; entries.jsonl stays; a second run, and a
// run after a crash half-way, lose nothing and overwrite nothing.
func TestMigrate(t *testing.T) {
	ws, state := t.TempDir(), t.TempDir()
	legacy := LegacyDir(ws)
	write := func(p, s string) {
		t.Helper()
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(s), 0o644))
	}
	write(filepath.Join(legacy, "claude", "notes.md"), "old claude")
	write(filepath.Join(legacy, "claude", "deep", "a.md"), "deep")
	write(filepath.Join(legacy, "shared", "team.md"), "old shared")
	write(filepath.Join(legacy, "entries.jsonl"), "{}\n")
	dir := Dir(state, ws)
	require.Equal(t, dir, Dir(state, ws+"/"), "one directory per workspace")
	require.NotEqual(t, dir, Dir(state, filepath.Join(ws, "other")))
	// A crash half-way: shared/ already moved, with a newer file.
	write(filepath.Join(dir, "shared", "team.md"), "new shared")

	n, err := Migrate(ws, dir)
	require.NoError(t, err)
	require.Equal(t, 2, n)
	for p, want := range map[string]string{"claude/notes.md": "old claude", "claude/deep/a.md": "deep", "shared/team.md": "new shared"} {
		data, err := os.ReadFile(filepath.Join(dir, p))
		require.NoError(t, err, p)
		require.Equal(t, want, string(data), p)
	}
	_, err = os.Stat(filepath.Join(legacy, "claude"))
	require.True(t, os.IsNotExist(err), "the old tree is gone from the workspace")
	_, err = os.Stat(filepath.Join(legacy, "entries.jsonl"))
	require.NoError(t, err, "saved entries stay")
	out, _, err := Run(dir, "claude", Command{Name: "view", Path: "/memories/notes.md"})
	require.NoError(t, err)
	require.Contains(t, out, "old claude")

	// Once marked, a tree that appears later is not imported.
	write(filepath.Join(legacy, "claude", "planted.md"), "later")
	n, err = Migrate(ws, dir)
	require.NoError(t, err)
	require.Zero(t, n)
	_, err = os.Stat(filepath.Join(dir, "claude", "planted.md"))
	require.True(t, os.IsNotExist(err))
	_, err = Migrate(ws, "")
	require.Error(t, err)
}
