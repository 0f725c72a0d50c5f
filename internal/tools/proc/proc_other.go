//go:build !unix && !windows

package proc

import (
	"errors"
	"os"
	"os/exec"
)

func SetGroup(*exec.Cmd) {}

func SignalGroup(p *os.Process, _ bool) error {
	err := p.Kill()
	if errors.Is(err, os.ErrProcessDone) {
		return nil
	}
	return err
}
