//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly || windows

package filelock

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"
)

// LockRemovable waits while another holds the lock and gets it once they
// release it; with the holder staying, it gives up when ctx ends and says
// why.
func TestLockRemovableWaitsForTheHolder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.lock")
	first, err := TryLockRemovable(path, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	if _, err := LockRemovable(ctx, path, 0o600); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("with the holder staying: %v, want the deadline", err)
	}
	got := make(chan error, 1)
	go func() {
		h, err := LockRemovable(context.Background(), path, 0o600)
		if err == nil {
			h.Release()
		}
		got <- err
	}()
	select {
	case err := <-got:
		t.Fatalf("got the lock while it was held: %v", err)
	case <-time.After(20 * time.Millisecond): // the waiter is still waiting (a bound, not a timing assertion of the code under test)
	}
	first.Release()
	if err := <-got; err != nil {
		t.Fatalf("after the release: %v", err)
	}
}
