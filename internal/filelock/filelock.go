// Package filelock takes exclusive, advisory OS locks on files: other
// processes (and other opens in this one) see them, and the OS releases
// them when the holder dies, so a crash never leaves a file locked. It is
// flock(2) on Unix and LockFileEx on Windows (on one byte far past the
// content, so others can still read what the holder wrote, such as its
// pid); elsewhere locking is a no-op.
package filelock

import (
	"errors"
	"os"
)

// ErrLocked is returned by TryLock when another holder has the lock.
var ErrLocked = errors.New("locked by another holder")

// TryLock takes an exclusive lock on path (created with mode perm when
// missing) without waiting: ErrLocked when someone holds it, else the
// open or lock error. The returned func releases the lock; call it once.
func TryLock(path string, perm os.FileMode) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, perm)
	if err != nil {
		return nil, err
	}
	if err := lockFD(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		_ = unlockFD(f)
		f.Close()
	}, nil
}
