//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package filelock

import (
	"errors"
	"os"
	"syscall"
)

// lockFD takes a non-blocking exclusive flock(2) on f.
func lockFD(f *os.File) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return ErrLocked
	}
	return err
}

func unlockFD(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
