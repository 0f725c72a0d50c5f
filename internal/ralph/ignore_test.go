package ralph

import (
	"os"
	"path/filepath"
	"testing"
)

func TestControlDirGetsGitignoreOnce(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".aidex")
	if err := ensureControlDir(dir); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, ".gitignore"))
	if err != nil || string(data) != controlIgnore {
		t.Fatalf(".gitignore: %q %v", data, err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := ensureControlDir(dir); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, ".gitignore")); string(data) != "mine\n" {
		t.Errorf("an existing .gitignore was changed: %q", data)
	}
}
