//go:build windows

package proc

import (
	"errors"
	"os"
	"os/exec"
)

// SetGroup is a no-op on Windows: there are no POSIX process groups,
// so only the direct child is killed.
func SetGroup(*exec.Cmd) {}

// SignalGroup kills the process p (Windows has no SIGTERM: both the gentle
// and the hard stop are TerminateProcess). A finished process is not an
// error.
func SignalGroup(p *os.Process, _ bool) error {
	err := p.Kill()
	if errors.Is(err, os.ErrProcessDone) {
		return nil
	}
	return err
}
