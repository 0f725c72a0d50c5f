package companion

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

func TestFind(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("links and mode bits")
	}
	dir := t.TempDir()
	exe := filepath.Join(dir, "aidex")
	write := func(p string, mode os.FileMode) {
		t.Helper()
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	write(exe, 0o755)
	noPath := func(string) (string, error) { return "", exec.ErrNotFound }
	onPath := func(string) (string, error) { return "/usr/local/bin/helper", nil }
	beside := filepath.Join(dir, "helper")

	if p, d, ok := Find(exe, "helper", noPath); ok || p != "" || d != dir {
		t.Errorf("nothing installed: %q %q %v, want not found in %q", p, d, ok, dir)
	}
	if p, _, ok := Find(exe, "helper", onPath); !ok || p != "/usr/local/bin/helper" {
		t.Errorf("on PATH only: %q %v", p, ok)
	}
	write(beside, 0o644)
	if p, _, ok := Find(exe, "helper", noPath); ok {
		t.Errorf("a file beside without the executable bit was taken: %q", p)
	}
	os.Remove(beside)
	if err := os.Symlink(exe, beside); err != nil {
		t.Fatal(err)
	}
	if p, _, ok := Find(exe, "helper", noPath); ok {
		t.Errorf("a link to the executable itself was taken: %q", p)
	}
	if p, _, ok := Find(exe, "helper", func(string) (string, error) { return beside, nil }); ok {
		t.Errorf("the executable itself, found on PATH, was taken: %q", p)
	}
	os.Remove(beside)
	write(beside, 0o755)
	if p, _, ok := Find(exe, "helper", onPath); !ok || p != beside {
		t.Errorf("beside and on PATH: %q %v, want the one beside", p, ok)
	}
	if p, d, ok := Find("", "helper", onPath); !ok || p != "/usr/local/bin/helper" || d != "" {
		t.Errorf("no executable known: %q %q %v", p, d, ok)
	}
}
