//go:build !unix && !windows

package proc

import (
	"errors"
	"os"
	"os/exec"
)

// SetGroup does nothing on this platform: only the direct child is
// killed.
func SetGroup(*exec.Cmd) {}

// SignalGroup kills the process p; a finished process is not an error.
func SignalGroup(p *os.Process, _ bool) error {
	err := p.Kill()
	if errors.Is(err, os.ErrProcessDone) {
		return nil
	}
	return err
}
