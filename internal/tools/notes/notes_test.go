package notes

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/notestore"
	"github.com/zelvior/aidex/internal/permission"
	"github.com/zelvior/aidex/internal/tools"
)

func newEnv(t *testing.T) (string, *tools.Env, *tools.Registry) {
	t.Helper()
	ws, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	w, err := permission.NewWorkspace(ws, permission.WorkspaceOptions{})
	require.NoError(t, err)
	reg := tools.NewRegistry()
	day := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	now := func() time.Time { day = day.Add(time.Hour); return day }
	require.NoError(t, reg.Register(Tools(Options{Now: now})...))
	require.NoError(t, reg.Check())
	return ws, tools.NewEnv(w), reg
}

func TestCreateNoteToolAndList(t *testing.T) {
	ws, env, reg := newEnv(t)
	call := func(args any) tools.Result {
		b, _ := json.Marshal(args)
		return reg.Call(context.Background(), env, "create_note", b)
	}
	r := call(map[string]any{"title": "Release checklist", "content": "- tag\n- push\n", "tags": []string{"release", "ci", "release"}})
	require.True(t, r.OK, r.Error)
	require.Equal(t, ".aidex/notes/release-checklist.md", r.Meta.Path)
	data, err := os.ReadFile(filepath.Join(ws, ".aidex", "notes", "release-checklist.md"))
	require.NoError(t, err)
	require.Equal(t, "---\ntitle: Release checklist\ndate: \"2026-03-04T06:06:07Z\"\ntags: [release, ci]\n---\n\n- tag\n- push\n", string(data))

	// Same title: a new file, the first one unchanged.
	r = call(map[string]any{"title": "Release checklist", "content": "second"})
	require.True(t, r.OK, r.Error)
	require.Equal(t, ".aidex/notes/release-checklist-2.md", r.Meta.Path)
	again, err := os.ReadFile(filepath.Join(ws, ".aidex", "notes", "release-checklist.md"))
	require.NoError(t, err)
	require.Equal(t, data, again)

	// A title with YAML-special characters survives the round trip.
	r = call(map[string]any{"title": "key: value # not a comment\n---", "content": "x"})
	require.True(t, r.OK, r.Error)

	r = call(map[string]any{"title": "  ", "content": "x"})
	require.False(t, r.OK)
	require.Equal(t, tools.CategoryValidation, r.Category)

	require.NoError(t, os.WriteFile(filepath.Join(ws, ".aidex", "notes", "hand-written.md"), []byte("no front matter"), 0o644))
	list, err := notestore.List(ws)
	require.NoError(t, err)
	require.Len(t, list, 4)
	require.Equal(t, "key: value # not a comment ---", list[0].Title) // newest first
	require.Equal(t, "Release checklist", list[1].Title)
	require.Equal(t, "release-checklist-2", list[1].Slug)
	require.Equal(t, []string{"release", "ci"}, list[2].Tags)
	require.Equal(t, time.Date(2026, 3, 4, 6, 6, 7, 0, time.UTC), list[2].Date)
	require.Equal(t, "hand-written", list[3].Title)
	require.True(t, list[3].Date.IsZero())

	entries, err := os.ReadDir(filepath.Join(ws, ".aidex", "notes"))
	require.NoError(t, err)
	require.Len(t, entries, 4, "no temp files left behind")
}

func TestNotesDirSymlinkedOutRefused(t *testing.T) {
	ws, env, reg := newEnv(t)
	outside := t.TempDir()
	require.NoError(t, os.Symlink(outside, filepath.Join(ws, ".aidex")))
	r := reg.Call(context.Background(), env, "create_note", json.RawMessage(`{"title":"x","content":"y"}`))
	require.False(t, r.OK)
	require.Equal(t, tools.CategorySecurity, r.Category, r.Error)
	entries, err := os.ReadDir(outside)
	require.NoError(t, err)
	require.Empty(t, entries)
	_, err = notestore.List(ws)
	require.Error(t, err)
}
