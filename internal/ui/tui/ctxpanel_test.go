package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/stretchr/testify/require"
)

// The context panel (issue 36 item 12, ayder-cli's ContextPanel) shows
// the model, context, tokens and cost, and a file tree of the workspace:
// folders first and closed, hidden entries and node_modules left out;
// Enter opens and closes a folder, ← closes the folder of the entry
// under the cursor, F2 and Esc close the panel.
func TestContextPanel(t *testing.T) {
	ws := t.TempDir()
	for _, f := range []string{"src/main.go", "src/util/x.go", "README.md", ".git/HEAD", "node_modules/a/b.js"} {
		p := filepath.Join(ws, filepath.FromSlash(f))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte("x"), 0o644))
	}
	s := newStyles(false)
	info := ctxInfo{Provider: "fake", Model: "m1", Workspace: ws, Tokens: 12345, CostUSD: 0.0123, ContextPct: 7}
	p := newCtxPanel(ws)
	v := p.View(s, info, 80, 30)
	for _, want := range []string{"model      fake/m1", "context    7% used", "tokens     12k", "cost       $0.0123", "workspace  " + ws,
		"› ▸ src/", "    README.md", ctxPanelKeysHelp} {
		require.Contains(t, v, want)
	}
	require.NotContains(t, v, ".git")
	require.NotContains(t, v, "node_modules")
	require.NotContains(t, v, "main.go", "folders start closed")

	key := func(code rune) tea.KeyPressMsg { return tea.KeyPressMsg{Code: code} }
	p = p.Update(key(tea.KeyEnter))
	v = p.View(s, info, 80, 30)
	require.Contains(t, v, "› ▾ src/\n    ▸ util/\n      main.go\n    README.md")
	p = p.Update(key(tea.KeyDown))
	p = p.Update(key(tea.KeyRight))
	require.Contains(t, p.View(s, info, 80, 30), "  ▾ util/\n        x.go\n      main.go")
	p = p.Update(key(tea.KeyDown))
	require.Contains(t, p.View(s, info, 80, 30), "› ", "x.go is selected")
	p = p.Update(key(tea.KeyLeft))
	v = p.View(s, info, 80, 30)
	require.Contains(t, v, "›   ▸ util/", "← closes the folder of x.go and selects it")
	require.NotContains(t, v, "x.go")

	require.Nil(t, p.Update(key(tea.KeyEscape)))
	require.Nil(t, newCtxPanel(ws).Update(key(tea.KeyF2)))
	require.True(t, strings.HasSuffix(v, ctxPanelKeysHelp))
}
