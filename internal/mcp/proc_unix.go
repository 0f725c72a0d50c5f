//go:build unix

package mcp

import (
	"os/exec"
	"syscall"
)

// setGroup starts the command in its own process group, so killGroup also ends
// the processes it starts (npx starts node).
func setGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills the command's process group (nil or not started: nothing).
func killGroup(cmd *exec.Cmd) {
	if cmd == nil || cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}
