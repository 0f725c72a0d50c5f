//go:build linux

package helper

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// enterNamespaces applies the mount plan and brings the loopback up in
// the namespaces aidex started the helper in, then enters the working
// directory again through the new mounts.
//
// m (nil: none) records the mounts made (see mountPlan).
func enterNamespaces(s Spec, m mounts) error {
	wd, err := unix.Getwd()
	if err != nil {
		return err
	}
	if err := mountPlan(s, m); err != nil {
		return err
	}
	if s.Loopback {
		if err := loopbackUp(); err != nil {
			return err
		}
	}
	return unix.Chdir(wd)
}

// runInit is Main for a helper in new namespaces, where it is PID 1 of
// its own PID namespace. It sets up the mounts, starts the command as its
// child under Landlock, the socket filter (network off) and no
// capabilities, reaps every process
// that ends in the namespace, answers the socket filter's questions, and
// exits with the command's status: the kernel then kills every process
// the command left behind (setsid and double-forked ones included).
func runInit(s Spec, sigs chan os.Signal) int {
	if err := enterNamespaces(s, nil); err != nil {
		return fail(ExitSetup, "setup", err)
	}
	leader := sessionLeader()
	// The restrictions startCommand applies are per thread: Main locked
	// this goroutine to the main thread, which applies them, forks the
	// command (which inherits them) and then only waits. The Go runtime
	// starts its other threads from a clean template thread (it has one
	// since LockOSThread), so the helper's other threads — those that
	// answer the socket filter — are not restricted.
	r := startCommand(s, leader, sigs, commandStart{env: s.CommandEnv(os.Environ()), files: []uintptr{0, 1, 2}})
	if r.err != nil {
		return fail(r.code, r.what, r.err)
	}
	if r.pid == 0 {
		return r.code // a signal came before the command started
	}
	// Nothing inside may read the helper's memory or its descriptors
	// (the socket filter's listener) through /proc.
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	if r.listener >= 0 {
		go serveSocketRule(r.listener)
	}
	return reap(r.pid)
}

// commandStart is how startCommand starts the command: its environment,
// its descriptors (0, 1, 2, ...) and whether it leads a process group of
// its own (a spare's command, which the spare signals as a group).
type commandStart struct {
	env     []string
	files   []uintptr
	setpgid bool
}

// startResult is what startCommand returns: the command's pid and the
// socket filter's listener (-1: none), or why it could not start, or (pid
// 0, no error) the status for a signal caught before it started.
type startResult struct {
	pid      int
	listener int
	code     int
	what     string
	err      error
}

// startCommand restricts the calling (locked) thread — Landlock, the
// socket filter when the network is off, no capabilities, no_new_privs —
// and forks the command from it, in the helper's process group: the
// signals aidex sends the group (SIGTERM, then SIGKILL, on a timeout or
// a cancel) reach the command itself, and the helper drops the catchable
// ones it catches (sigs, catchSignals), so that it ends only with the
// command (or SIGKILL); one caught before the fork ends it instead.
// Unless the helper leads a session aidex made for this command (a
// pseudo-terminal of its own, which the command keeps), it first gives
// up the controlling terminal it shares with aidex and the user's shell:
// the command has none of the user's terminals.
func startCommand(s Spec, leader bool, sigs chan os.Signal, cs commandStart) startResult {
	if !leader {
		detachTerminal()
	}
	setup := func(err error) startResult {
		return startResult{code: ExitSetup, what: "setup", err: err}
	}
	if err := restrictLandlock(s); err != nil {
		return setup(err)
	}
	listener := -1
	if s.NetOff {
		fd, err := installSocketFilter()
		if err != nil {
			return setup(err)
		}
		listener = fd
	}
	if err := dropCaps(); err != nil {
		return setup(err)
	}
	attr := &syscall.ProcAttr{Env: cs.env, Files: cs.files}
	if cs.setpgid {
		attr.Sys = &syscall.SysProcAttr{Setpgid: true}
	}
	if code := caught(sigs); code != 0 {
		return startResult{code: code}
	}
	pid, err := syscall.ForkExec(s.Path, s.Args, attr)
	if err != nil {
		code := 126
		if errors.Is(err, syscall.ENOENT) {
			code = 127
		}
		return startResult{code: code, what: "exec " + s.Path, err: err}
	}
	return startResult{pid: pid, listener: listener}
}

// sessionLeader reports whether the helper leads its session.
func sessionLeader() bool {
	sid, err := unix.Getsid(0)
	return err == nil && sid == unix.Getpid()
}

// reap waits for every process that ends in the namespace (orphans are
// re-parented to the helper) until the command itself ends, and returns
// its exit status (128+N when signal N killed it).
func reap(pid int) int {
	for {
		var ws unix.WaitStatus
		got, err := unix.Wait4(-1, &ws, 0, nil)
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case err != nil:
			return fail(ExitSetup, "wait", err)
		case got != pid:
			continue
		case ws.Exited():
			return ws.ExitStatus()
		case ws.Signaled():
			return 128 + int(ws.Signal())
		}
	}
}
