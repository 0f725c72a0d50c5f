//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly || windows)

package filelock

import "os"

// lockFD is a no-op where aidex has no OS file lock (callers keep their
// own in-process locks).
func lockFD(*os.File) error { return nil }

func unlockFD(*os.File) error { return nil }
