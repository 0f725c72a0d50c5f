package slashcmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A plugin's commands answer to PLUGIN:NAME, and to NAME when no other
// command has it; a clash keeps the plugin's prefixed form, with a
// warning, and the other command its name.
func TestPluginNamespace(t *testing.T) {
	user, plug := t.TempDir(), t.TempDir()
	for _, f := range []string{filepath.Join(user, "commit.md"), filepath.Join(plug, "commit.md"), filepath.Join(plug, "review.md")} {
		if err := os.WriteFile(f, []byte("---\ndescription: d\n---\nbody\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmds, errs := Discover([]Dir{{Path: user, Scope: ScopeUser}, {Path: plug, Scope: ScopePlugin, Namespace: "hookify"}})
	names := map[string]string{}
	for _, c := range cmds {
		names[c.Name] = c.PathName()
	}
	if names["commit"] != "commit" || names["hookify:commit"] != "hookify:commit" || names["review"] != "hookify:review" {
		t.Errorf("names = %v", names)
	}
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "hookify:commit") {
		t.Errorf("errs = %v, want the clash named", errs)
	}
	one, _ := Discover([]Dir{{Path: filepath.Join(plug, "review.md"), Scope: ScopePlugin, Namespace: "p"}})
	if len(one) != 1 || one[0].PathName() != "p:review" {
		t.Errorf("a command file as the folder = %+v", one)
	}
}
