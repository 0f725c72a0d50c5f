//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly || windows

package filelock

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// A lock held through one open refuses another (in this process too),
// leaves the content readable and writable through other descriptors, and
// is free again once released.
func TestTryLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	unlock, err := TryLock(path, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := TryLock(path, 0o600); !errors.Is(err, ErrLocked) {
		t.Fatalf("second lock: %v, want ErrLocked", err)
	}
	if err := os.WriteFile(path, []byte("123\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(path); err != nil || string(data) != "123\n" {
		t.Fatalf("read while locked: %q %v", data, err)
	}
	unlock()
	again, err := TryLock(path, 0o600)
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	again()
	if _, err := TryLock(filepath.Join(t.TempDir(), "missing", "x.lock"), 0o600); err == nil || errors.Is(err, ErrLocked) {
		t.Errorf("a lock in a missing folder: %v", err)
	}
}
