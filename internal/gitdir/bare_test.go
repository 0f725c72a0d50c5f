package gitdir

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A bare repository (a Ralph worker's clone) is its own git dir, with no
// work tree: Discover does not climb to an enclosing repository.
func TestDiscoverBareRepository(t *testing.T) {
	outer := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", outer).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	bare := filepath.Join(outer, "repos", "x")
	if out, err := exec.Command("git", "init", "-q", "--bare", bare).CombinedOutput(); err != nil {
		t.Fatalf("git init --bare: %v %s", err, out)
	}
	r := Discover(bare)
	if !r.Bare || r.GitDir != bare {
		t.Fatalf("Discover(bare) = %+v, want the bare repository itself", r)
	}
	for _, kv := range r.Environ() {
		if strings.HasPrefix(kv, "GIT_WORK_TREE=") {
			t.Fatalf("a bare repository has no work tree: %v", r.Environ())
		}
	}
}
