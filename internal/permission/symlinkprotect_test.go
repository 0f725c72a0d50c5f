package permission

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/zelvior/aidex/internal/kind"
)

// A .aidex that is a symlink to a plain directory inside the workspace is
// still protected: writes through it ask, even in yolo.
func TestProtectedWriteThroughSymlinkedDir(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "plain"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("plain", filepath.Join(root, ".aidex")); err != nil {
		t.Fatal(err)
	}
	ws, err := NewWorkspace(root, WorkspaceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPolicy(PolicyConfig{Mode: ModeYolo, Workspace: ws, CanAsk: true})
	if err != nil {
		t.Fatal(err)
	}
	v := p.Check(Request{Tool: "write_file", Kind: kind.Write, Paths: []string{".aidex/config.toml"}})
	if v.Decision != Ask {
		t.Fatalf("write through a symlinked .aidex: %s (%s)", v.Decision, v.Reason)
	}
	if v := p.Check(Request{Tool: "write_file", Kind: kind.Write, Paths: []string{"plain/x.txt"}}); v.Decision != Allow {
		t.Fatalf("a plain write in yolo: %s", v.Decision)
	}
}
