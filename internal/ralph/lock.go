package ralph

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/zelvior/aidex/internal/filelock"
)

// errLocked is returned by tryLock when another holder has the lock.
var errLocked = filelock.ErrLocked

// lockFile takes an exclusive OS lock on path (created if missing),
// retrying until it gets it, ctx ends, or wait passes. The returned func
// releases it. The OS releases the lock when the process dies, so a crash
// never leaves the task list locked.
func lockFile(ctx context.Context, path string, wait time.Duration) (func(), error) {
	deadline := time.Now().Add(wait)
	delay := 5 * time.Millisecond
	for {
		unlock, err := tryLock(path)
		if err == nil {
			return unlock, nil
		}
		if !errors.Is(err, errLocked) {
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("another aidex process has held %s for over %s; try again when it is done", path, wait)
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
		delay = min(delay*2, 100*time.Millisecond)
	}
}

// tryLock takes an exclusive OS lock on path without waiting: errLocked
// when someone holds it.
func tryLock(path string) (func(), error) { return filelock.TryLock(path, 0o644) }
