//go:build linux

package helper

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// NamespaceAttr sets on a the namespaces, the identity mapping and the
// capabilities a helper that confines a command is started with: new
// user, mount, PID and IPC namespaces (and a network namespace when
// loopback: the network is off), the user's own uid and gid inside, and
// for a non-root user the capabilities the mounts need as ambient ones
// (the helper drops them all before the command runs). The helper is the
// init of its PID namespace, and Pdeathsig kills it (and so every process
// of the command) when the process that started it dies.
func NamespaceAttr(a *syscall.SysProcAttr, loopback bool) {
	a.Cloneflags |= syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID | syscall.CLONE_NEWIPC
	a.Pdeathsig = syscall.SIGKILL
	if loopback {
		a.Cloneflags |= syscall.CLONE_NEWNET
	}
	uid, gid := os.Geteuid(), os.Getegid()
	a.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
	a.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
	a.GidMappingsEnableSetgroups = false
	if uid != 0 {
		a.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_NET_ADMIN, unix.CAP_SETPCAP}
	}
}

// Spawn modes: the first argument after SpawnArg says whether the helper
// it starts gets a network namespace of its own.
const (
	SpawnNetOff = "net-off"
	SpawnNetOn  = "net-on"
)

// spawn is Main for SpawnArg: the small first stage that aidex starts
// with a plain (vfork) clone when aidex's own memory is large. Go forks a
// process that asks for a new user namespace by copying its whole
// address space (no vfork: the child waits for its uid map), a cost that
// grows with the parent's heap — about 7 ms for 50 MB here. This stage
// is small, so the fork into the namespaces (NamespaceAttr) costs what it
// costs from a small process. args are the mode (SpawnNetOff or
// SpawnNetOn), then the helper's path and argv. It waits for that helper
// and exits with its status; it drops the catchable signals it catches
// (sigs), as the helper does (aidex signals the process group, which the
// helper and the command are in), and ends without starting the helper
// when one came first; SIGKILL ends it and, through Pdeathsig, the helper
// and every process of the command.
func spawn(args []string, sigs chan os.Signal) int {
	if len(args) < 3 || args[0] != SpawnNetOff && args[0] != SpawnNetOn {
		return fail(ExitSetup, "usage", errors.New("want "+SpawnArg+" net-off|net-on PATH ARGV..."))
	}
	sys := &syscall.SysProcAttr{}
	NamespaceAttr(sys, args[0] == SpawnNetOff)
	attr := &syscall.ProcAttr{Env: os.Environ(), Files: []uintptr{0, 1, 2}, Sys: sys}
	if code := caught(sigs); code != 0 {
		return code
	}
	// Main locked this goroutine to its thread: Pdeathsig fires when the
	// thread that forked ends.
	pid, err := syscall.ForkExec(args[1], args[2:], attr)
	if err != nil {
		return fail(ExitSetup, "start the sandbox", err)
	}
	return reap(pid)
}
