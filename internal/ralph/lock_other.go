//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly || windows)

package ralph

import "os"

// lockFD is a no-op where aidex has no OS file lock: writers in one
// process are still serialised by the Store's mutex.
func lockFD(*os.File) error { return nil }

func unlockFD(*os.File) error { return nil }
