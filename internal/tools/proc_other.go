//go:build !unix && !windows

package tools

import (
	"errors"
	"os"
	"os/exec"
)

func setProcGroup(*exec.Cmd) {}

func signalGroup(p *os.Process, _ bool) error {
	err := p.Kill()
	if errors.Is(err, os.ErrProcessDone) {
		return nil
	}
	return err
}
