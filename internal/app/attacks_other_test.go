//go:build !unix

package app

import (
	"errors"
	"os"
)

// killPID ends process pid (errors ignored: it may be gone).
func killPID(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}

// mkfifo fails: there are no named pipes in the file system here.
func mkfifo(string) error { return errors.ErrUnsupported }
