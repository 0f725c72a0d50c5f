package hooks

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A plugin's hooks (its file and its manifest's inline object) carry the
// plugin's name, and run with CLAUDE_PLUGIN_ROOT set to its folder.
func TestPluginHooks(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "hooks.json")
	if err := os.WriteFile(file, []byte(`{"description": "d", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo \"$CLAUDE_PLUGIN_ROOT\" > \"$CLAUDE_PROJECT_DIR/out\""}]}]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	inline := []byte(`{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "true"}]}]}}`)
	list, warns, err := Load(Sources{Plugins: []PluginHooks{{Plugin: "p", Root: root, Files: []string{file}, Inline: inline, Manifest: "m.json"}}})
	if err != nil || len(warns) != 0 || len(list) != 2 {
		t.Fatalf("Load = %+v, %v, %v", list, warns, err)
	}
	for _, h := range list {
		if h.Plugin != "p" || h.PluginRoot != root {
			t.Errorf("hook %+v lost its plugin", h)
		}
	}
	ws := t.TempDir()
	r := &Runner{Hooks: list, ProjectDir: ws}
	if _, err := r.Fire(context.Background(), Input{Event: Stop}); err != nil {
		t.Fatal(err)
	}
	out, _ := os.ReadFile(filepath.Join(ws, "out"))
	if strings.TrimSpace(string(out)) != root {
		t.Errorf("CLAUDE_PLUGIN_ROOT = %q, want %q", out, root)
	}
}
