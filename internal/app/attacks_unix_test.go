//go:build unix

package app

import "syscall"

// killPID sends SIGKILL to process pid (errors ignored: it may be gone).
func killPID(pid int) { _ = syscall.Kill(pid, syscall.SIGKILL) }

// mkfifo makes a named pipe at path.
func mkfifo(path string) error { return syscall.Mkfifo(path, 0o644) }
