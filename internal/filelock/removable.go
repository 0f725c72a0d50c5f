package filelock

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"time"
)

// maxReopens bounds how many times TryLockRemovable starts over because
// the file it locked was removed or replaced meanwhile (each time another
// holder released the lock in between).
const maxReopens = 100

// Held is a lock taken by [TryLockRemovable]. Release it once.
type Held struct {
	f    *os.File
	path string
	once sync.Once
}

// TryLockRemovable is [TryLock] for a lock file that exists only while
// someone holds it: [Held.Release] removes it, so lock files do not pile
// up (one per session, say). Removing a lock file is safe only if every
// locker re-checks: a locker that opened the file just before the holder
// removed it would otherwise lock a file no longer at path while a third
// locks the new one. So after taking the OS lock TryLockRemovable checks
// that the file it locked is still the one at path (same file, by device
// and inode), and otherwise starts over. Every user of path must lock it
// this way.
//
// Errors: ErrLocked when someone holds it, else the open, stat or lock
// error, or a path whose file kept being replaced.
func TryLockRemovable(path string, perm os.FileMode) (*Held, error) {
	for range maxReopens {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, perm)
		if err != nil {
			return nil, err
		}
		if err := lockFD(f); err != nil {
			f.Close()
			return nil, err
		}
		same, err := stillAt(f, path)
		if err != nil {
			_ = unlockFD(f)
			f.Close()
			return nil, err
		}
		if same {
			return &Held{f: f, path: path}, nil
		}
		// The holder we waited for removed the file after we opened it:
		// our lock is on a file nobody else will look at.
		_ = unlockFD(f)
		f.Close()
	}
	return nil, fmt.Errorf("lock %s: the file was replaced %d times while locking it", path, maxReopens)
}

// stillAt reports whether f is the file at path now.
func stillAt(f *os.File, path string) (bool, error) {
	fi, err := f.Stat()
	if err != nil {
		return false, err
	}
	pi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return os.SameFile(fi, pi), nil
}

// File returns the locked file, open for reading and writing (the
// holder's pid, say); it is closed by Release.
func (h *Held) File() *os.File { return h.f }

// Release removes the lock file and releases the lock. On Unix the file
// is removed while still locked, so a locker that opened it meanwhile
// finds it gone and starts over. On Windows an open file cannot be
// removed: the lock is released first and the removal fails, harmlessly,
// while another locker has the file open.
func (h *Held) Release() {
	h.once.Do(func() {
		if runtime.GOOS == "windows" {
			_ = unlockFD(h.f)
			h.f.Close()
			_ = os.Remove(h.path)
			return
		}
		_ = os.Remove(h.path)
		_ = unlockFD(h.f)
		h.f.Close()
	})
}

// LockRemovable waits for the lock [TryLockRemovable] takes on path: it
// tries again, 1 ms after a refusal and then up to 50 ms apart, until it
// has the lock or ctx ends. For a lock held briefly and rarely (a schema
// migration), where polling costs less than a blocking lock per platform.
//
// Errors: ctx's error (wrapped, naming path) when it ended first, else
// TryLockRemovable's other errors.
func LockRemovable(ctx context.Context, path string, perm os.FileMode) (*Held, error) {
	wait := time.Millisecond
	for {
		h, err := TryLockRemovable(path, perm)
		if !errors.Is(err, ErrLocked) {
			return h, err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("lock %s: %w", path, ctx.Err())
		case <-t.C:
		}
		wait = min(2*wait, 50*time.Millisecond)
	}
}
