//go:build unix

package hooks

import (
	"os/exec"
	"syscall"
)

// ownGroup makes cmd the leader of a new process group, and its Cancel
// kill the whole group, so a hook's children die with it at the timeout.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
