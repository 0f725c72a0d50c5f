//go:build unix

package proc

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// SetGroup makes the command the leader of a new process group, so a
// timeout or kill reaches every process it started.
func SetGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// SignalGroup sends SIGTERM (hard false) or SIGKILL (hard true) to the
// process group led by p. A group that is already gone is not an error.
func SignalGroup(p *os.Process, hard bool) error {
	sig := syscall.SIGTERM
	if hard {
		sig = syscall.SIGKILL
	}
	err := syscall.Kill(-p.Pid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}
