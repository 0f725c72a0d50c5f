package atomicfile

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestWriteFileReplacesAndKeepsNoTemp(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.txt")
	if err := WriteFile(p, []byte("one"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(p, []byte("two"), 0o600); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(p)
	if err != nil || string(data) != "two" {
		t.Fatalf("content %q, %v", data, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
	if err := WriteFile(filepath.Join(dir, "missing", "f"), []byte("x"), 0o600); err == nil {
		t.Error("writing into a missing directory succeeded")
	}
}

// WritePrivate leaves the file 0600 even when it replaces a wider one.
func TestWritePrivateNarrowsTheMode(t *testing.T) {
	p := filepath.Join(t.TempDir(), "secret")
	for _, before := range []os.FileMode{0, 0o644, 0o666} {
		if before != 0 {
			if err := os.WriteFile(p, []byte("old"), before); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(p, before); err != nil {
				t.Fatal(err)
			}
		}
		if err := WritePrivate(p, []byte("new")); err != nil {
			t.Fatal(err)
		}
		info, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if runtime.GOOS != "windows" && info.Mode().Perm() != 0o600 {
			t.Errorf("after replacing a %v file: mode %v, want 0600", before, info.Mode().Perm())
		}
		if b, _ := os.ReadFile(p); string(b) != "new" {
			t.Errorf("content %q", b)
		}
	}
}
