//go:build linux

package sandbox

import (
	"errors"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/zelvior/aidex/internal/sandbox/helper"
)

// classNeeds says why a class cannot hold on a machine with caps c (""
// when it can): the layer it needs is missing, as c.Limits states.
func classNeeds(class string, c Caps) string {
	switch class {
	case ClassCredentials, ClassSockets, ClassProcesses, ClassTerminals, ClassIPC:
		if !c.Namespaces {
			return "no user namespaces here: this needs the mount, PID, IPC and network namespaces"
		}
	case ClassNetwork:
		if !c.Namespaces && c.LandlockABI < 4 {
			return "neither a network namespace nor Landlock ABI 4 here: the network stays on"
		}
	}
	return ""
}

// platformAttempts are the escape suite's attempts that need Linux's
// kernel interfaces: host Unix sockets, processes, terminals and IPC.
func platformAttempts() []attempt {
	return []attempt{
		{ClassSockets, "connect to a host socket in the workspace, made after the command started", func(s *suite) (bool, string, string) {
			return s.hostSocket(filepath.Join(s.ws, "host-"+randomHex()[:6]+".sock"), true)
		}},
		{ClassSockets, "connect to a host socket in the temp folder, made after the command started", func(s *suite) (bool, string, string) {
			return s.hostSocket(filepath.Join(s.tmp, "host-"+randomHex()[:6]+".sock"), true)
		}},
		{ClassSockets, "connect to a host abstract socket", func(s *suite) (bool, string, string) {
			return s.hostSocket("@aidex-selftest-"+randomHex(), false)
		}},
		{ClassProcesses, "a setsid and double-forked process outlives its command", survivorAttempt},
		{ClassProcesses, "see the user's processes' command lines", hostProcessAttempt},
		{ClassTerminals, "write to a terminal of the user's", hostPTYAttempt},
		{ClassTerminals, "open aidex's controlling terminal", func(s *suite) (bool, string, string) {
			out, err := s.sh(": > /dev/tty")
			return err != nil, noteOf(out, err), ""
		}},
		{ClassIPC, "see the user's System V shared memory", shmAttempt},
	}
}

// hostSocket has the helper in the sandbox dial addr and listens on it
// here; with later, the listener is made after the command started (so
// that no list of sockets made when it started can cover it; the helper
// waits for the path), else before (an abstract socket, dialled at once).
// It holds when nothing connected.
func (s *suite) hostSocket(addr string, later bool) (bool, string, string) {
	cmd, out, err := s.command(s.helperArgs(helper.DialUnixArg, addr)...)
	if err != nil {
		return false, err.Error(), ""
	}
	snap := s.sb.Begin()
	defer snap.End()
	var ln net.Listener
	listen := func() string {
		var lerr error
		if ln, lerr = net.Listen("unix", addr); lerr != nil {
			return "cannot listen on " + addr + ": " + lerr.Error()
		}
		return ""
	}
	if !later {
		if why := listen(); why != "" {
			return false, "", why
		}
	}
	if err := cmd.Start(); err != nil {
		if ln != nil {
			ln.Close()
		}
		return false, err.Error(), ""
	}
	if later {
		if why := listen(); why != "" {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			return false, "", why
		}
	}
	var accepted atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	err = cmd.Wait()
	ln.Close()
	return err != nil && accepted.Load() == 0 && !strings.Contains(out.String(), helper.Prefix+"setup"), noteOf(out.String(), err), ""
}

// survivorAttempt starts a setsid'd and a double-forked sleep that
// detach from the command, and holds when neither is left once the
// command ended; survivors are killed.
func survivorAttempt(s *suite) (bool, string, string) {
	marker := strconv.Itoa(1_000_000 + rand.IntN(8_000_000))
	null := " >/dev/null 2>&1"
	script := "(sh -c 'sleep " + marker + null + " &' &); "
	if _, err := exec.LookPath("setsid"); err == nil {
		script += "setsid sleep " + marker + null + " & "
	}
	out, err := s.sh(script + "exit 0")
	if err != nil {
		return false, noteOf(out, err), ""
	}
	var left []int
	for i := 0; i < 100; i++ { // the PID namespace ends them at once; a bound, not a wait
		if left = hostCmdlines("sleep " + marker); len(left) == 0 {
			return true, "", ""
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, pid := range left {
		_ = unix.Kill(pid, unix.SIGKILL)
	}
	return false, "processes outlived the command (killed now): pids " + intsString(left), ""
}

func intsString(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, " ")
}

// hostCmdlines returns the pids of this machine's processes whose
// command line contains marker.
func hostCmdlines(marker string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, d := range entries {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		b, _ := os.ReadFile(filepath.Join("/proc", d.Name(), "cmdline"))
		if strings.Contains(strings.ReplaceAll(string(b), "\x00", " "), marker) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// hostProcessAttempt starts a process here and has the sandbox list
// every command line in /proc; it holds when that process is not there.
func hostProcessAttempt(s *suite) (bool, string, string) {
	marker := strconv.Itoa(1_000_000 + rand.IntN(8_000_000))
	host := exec.Command("sleep", marker)
	if err := host.Start(); err != nil {
		return false, "", "cannot start sleep here: " + err.Error()
	}
	defer func() { _ = host.Process.Kill(); _ = host.Wait() }()
	out, err := s.sh("for f in /proc/[0-9]*/cmdline; do tr '\\0' ' ' < $f; echo; done")
	if err != nil {
		return false, noteOf(out, err), ""
	}
	if strings.Contains(out, "sleep "+marker) {
		return false, "the sandbox sees the process \"sleep " + marker + "\"", ""
	}
	return true, "", ""
}

// hostPTYAttempt makes a pseudo-terminal here (as the user's terminal
// is one) and has the sandbox write to it by path; it holds when the
// write failed and nothing arrived.
func hostPTYAttempt(s *suite) (bool, string, string) {
	master, slave, err := newPTY()
	if err != nil {
		return false, "", "cannot make a pseudo-terminal here: " + err.Error()
	}
	defer master.Close()
	defer slave.Close()
	out, runErr := s.sh("echo INJECTED > " + slave.Name())
	fds := []unix.PollFd{{Fd: int32(master.Fd()), Events: unix.POLLIN}}
	if n, _ := unix.Poll(fds, 50); n > 0 {
		buf := make([]byte, 64)
		if n, _ := master.Read(buf); strings.Contains(string(buf[:n]), "INJECTED") {
			return false, "the terminal " + slave.Name() + " received the command's text", ""
		}
	}
	return runErr != nil, noteOf(out, runErr), ""
}

// newPTY opens a new pseudo-terminal's master and slave.
func newPTY() (master, slave *os.File, err error) {
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		return nil, nil, err
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		m.Close()
		return nil, nil, err
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		m.Close()
		return nil, nil, err
	}
	sl, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		return nil, nil, err
	}
	return m, sl, nil
}

// shmAttempt makes a System V shared memory segment here and has the
// sandbox list the segments it sees; it holds when that one is not among
// them.
func shmAttempt(s *suite) (bool, string, string) {
	key := 0x5a1e0000 + rand.IntN(0xffff)
	id, err := unix.SysvShmGet(key, 4096, unix.IPC_CREAT|unix.IPC_EXCL|0o600)
	if err != nil {
		if errors.Is(err, unix.ENOSYS) {
			return false, "", "no System V shared memory here"
		}
		return false, "", "cannot make a shared memory segment here: " + err.Error()
	}
	defer func() { _, _ = unix.SysvShmCtl(id, unix.IPC_RMID, nil) }()
	out, runErr := s.sh("cat /proc/sysvipc/shm 2>/dev/null; true")
	if runErr != nil {
		return false, noteOf(out, runErr), ""
	}
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) > 1 && f[0] == strconv.Itoa(key) {
			return false, "the sandbox sees the segment with key " + strconv.Itoa(key), ""
		}
	}
	return true, "", ""
}
