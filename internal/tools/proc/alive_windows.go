//go:build windows

package proc

import "golang.org/x/sys/windows"

// Alive reports whether the process pid still runs (tests use it to see
// that a command's group ended).
func Alive(pid int) bool {
	h, err := windows.OpenProcess(windows.SYNCHRONIZE, false, uint32(pid))
	if err != nil {
		return false
	}
	defer windows.CloseHandle(h)
	ev, _ := windows.WaitForSingleObject(h, 0)
	return ev == uint32(windows.WAIT_TIMEOUT)
}
