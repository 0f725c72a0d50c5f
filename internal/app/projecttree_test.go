package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/catalog"
)

// writeTree makes files (relative paths) under root.
func writeTree(t *testing.T, root string, files ...string) {
	t.Helper()
	for _, f := range files {
		p := filepath.Join(root, f)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte("x"), 0o644))
	}
}

// The project structure for local models (issue 36 item 9, ayder-cli):
// the top two levels, folders first, without hidden and dependency
// folders, cut at the byte cap with a count of what is left out.
func TestProjectTreeNote(t *testing.T) {
	ws := t.TempDir()
	writeTree(t, ws, "go.mod", "README.md", "cmd/aidex/main.go", "internal/app/app.go", "internal/agent/agent.go",
		".git/HEAD", "node_modules/x/index.js", "docs/a.md")
	got := projectTreeNote(ws, projectTreeBytes)
	require.Equal(t, "# Project structure (top two levels; list_directory shows more)\n"+
		"cmd/\n  aidex/\ndocs/\n  a.md\ninternal/\n  agent/  app/\nREADME.md\ngo.mod", got)
	require.Empty(t, projectTreeNote(t.TempDir(), projectTreeBytes), "an empty workspace has no section")

	big := t.TempDir()
	for i := range 400 {
		writeTree(t, big, filepath.Join("pkg", strings.Repeat("d", 3)+string(rune('a'+i%26))+strings.Repeat("x", i/26), "f.go"))
		writeTree(t, big, "file"+strings.Repeat("y", i%7)+string(rune('a'+i%26))+strings.Repeat("z", i/26)+".txt")
	}
	got = projectTreeNote(big, projectTreeBytes)
	require.LessOrEqual(t, len(got), projectTreeBytes+100)
	require.Contains(t, got, "more entries)")
	require.Contains(t, got, "pkg/\n  ddda/", "the folder's entries on one line")
	require.Contains(t, got, " more", "a long folder line is cut")
}

// A local provider's system prompt has the project structure, another's
// not; both say when to use memory while the memory tool is offered.
func TestSystemPromptProjectTreeForLocalModels(t *testing.T) {
	f := newFixture(t)
	rt := f.backend.Runtime()
	writeTree(t, rt.Workspace, "src/main.go")
	ctx := context.Background()
	require.True(t, rt.Provider.Local(), "the fixture's provider is on 127.0.0.1")
	prompt, err := rt.engineRoom().systemPrompt(ctx, engineOptions{})
	require.NoError(t, err)
	require.Contains(t, prompt, "# Project structure (top two levels")
	require.Contains(t, prompt, "src/\n  main.go")
	require.Contains(t, prompt, memoryNote)

	remote := *rt
	remote.Provider = catalog.Provider{Name: "openai", Type: "openai", BaseURL: "https://api.openai.com/v1"}
	prompt, err = remote.engineRoom().systemPrompt(ctx, engineOptions{})
	require.NoError(t, err)
	require.NotContains(t, prompt, "# Project structure")
	require.Contains(t, prompt, memoryNote)

	cfg := *rt.Config
	cfg.Memory = false
	remote.Config = &cfg
	prompt, err = remote.engineRoom().systemPrompt(ctx, engineOptions{})
	require.NoError(t, err)
	require.NotContains(t, prompt, memoryNote, "memory = false: no memory tool, no note")
}
