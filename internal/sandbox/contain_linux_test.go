//go:build linux

package sandbox

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// probeArgEnv is the argument of a socket probe (see socketProbe).
const probeArgEnv = "AIDEX_SANDBOX_TEST_ARG"

// socketProbe is the test binary run inside the sandbox as a client:
// "dial" waits until the Unix socket arg exists (an abstract "@name" is
// dialled at once) and dials it; "dialgram" dials it as a datagram
// socket; "selfsock" listens on arg, dials itself, then has a child
// process dial it. It prints CONNECTED for each connection made.
func socketProbe(mode, arg string) int {
	switch mode {
	case "dial", "dialgram":
		network := "unix"
		if mode == "dialgram" {
			network = "unixgram"
		}
		if !strings.HasPrefix(arg, "@") {
			for i := 0; i < 500; i++ {
				if _, err := os.Lstat(arg); err == nil {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
		}
		c, err := net.Dial(network, arg)
		if err != nil {
			fmt.Println("refused:", err)
			return 0
		}
		if mode == "dialgram" {
			if _, err := c.Write([]byte("hello")); err != nil {
				fmt.Println("refused:", err)
				return 0
			}
		}
		c.Close()
		fmt.Println("CONNECTED")
	case "selfsock":
		ln, err := net.Listen("unix", arg)
		if err != nil {
			fmt.Println("listen:", err)
			return 1
		}
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				c.Close()
			}
		}()
		c, err := net.Dial("unix", arg)
		if err != nil {
			fmt.Println("self dial:", err)
			return 1
		}
		c.Close()
		fmt.Println("SELF CONNECTED")
		self, _ := os.Executable()
		child := exec.Command(self)
		child.Env = append(os.Environ(), probeEnv+"=dial", probeArgEnv+"="+arg)
		out, err := child.CombinedOutput()
		fmt.Printf("CHILD %s %v\n", strings.TrimSpace(string(out)), err)
	}
	return 0
}

// probeCmd returns the test binary confined as a probe.
func (e *env) probeCmd(sb *Sandbox, mode, arg string) *exec.Cmd {
	e.t.Helper()
	self, err := os.Executable()
	if err != nil {
		e.t.Fatal(err)
	}
	cmd := exec.Command(self)
	cmd.Dir = e.ws
	cmd.Env = append(os.Environ(), probeEnv+"="+mode, probeArgEnv+"="+arg)
	if err := sb.Confine(cmd, Options{}); err != nil {
		e.t.Fatal(err)
	}
	return cmd
}

// hostListener listens on the Unix socket (or abstract name) addr in
// this, the host's, namespaces and counts what it accepts.
func hostListener(t *testing.T, network, addr string) *atomic.Int32 {
	t.Helper()
	var n atomic.Int32
	if network == "unixgram" {
		pc, err := net.ListenPacket(network, addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { pc.Close() })
		go func() {
			buf := make([]byte, 64)
			for {
				if _, _, err := pc.ReadFrom(buf); err != nil {
					return
				}
				n.Add(1)
			}
		}()
		return &n
	}
	ln, err := net.Listen(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			c.Close()
		}
	}()
	return &n
}

// TestHostUnixSocketsUnreachable: with the network off, no Unix socket of
// the host is reachable, wherever it lies (the workspace and the temp dir
// included, which are writable) and even when it was created after the
// command started; abstract sockets neither; datagram sockets cannot send
// to a host socket either.
func TestHostUnixSocketsUnreachable(t *testing.T) {
	e := newEnv(t)
	sb := e.sandbox(WorkspaceWrite, false)
	cases := []struct{ name, network, mode, addr string }{
		{"workspace", "unix", "dial", filepath.Join(e.ws, "host.sock")},
		{"writable temp dir", "unix", "dial", filepath.Join(e.tmp, "host.sock")},
		{"read-only folder", "unix", "dial", filepath.Join(e.outside, "host.sock")},
		{"home", "unix", "dial", filepath.Join(e.home, "host.sock")},
		{"abstract", "unix", "dial", "@aidex-test-" + randomName()},
		{"datagram in the workspace", "unixgram", "dialgram", filepath.Join(e.ws, "host.dgram")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cmd := e.probeCmd(sb, tc.mode, tc.addr)
			var out strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// The socket appears after the command started: no list of
			// sockets made at start can cover it.
			accepted := hostListener(t, tc.network, tc.addr)
			if err := cmd.Wait(); err != nil {
				t.Fatalf("probe: %v %s", err, out.String())
			}
			if strings.Contains(out.String(), "CONNECTED") || accepted.Load() != 0 {
				t.Errorf("the sandbox reached the host socket %s: %q (host accepted %d)", tc.addr, out.String(), accepted.Load())
			}
		})
	}
}

// TestOwnUnixSocketsWork: a command's own Unix sockets (a test suite's)
// keep working with the network off, from the process that made them and
// from its children.
func TestOwnUnixSocketsWork(t *testing.T) {
	e := newEnv(t)
	sb := e.sandbox(WorkspaceWrite, false)
	for _, dir := range []string{e.ws, e.tmp} {
		out, err := e.probeCmd(sb, "selfsock", filepath.Join(dir, "own-"+randomName()+".sock")).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "SELF CONNECTED") || !strings.Contains(string(out), "CHILD CONNECTED") {
			t.Errorf("own socket in %s: %v %q", dir, err, out)
		}
	}
}

// cmdlines returns the pids of host processes whose command line
// contains marker.
func cmdlines(marker string) []int {
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

// TestSurvivorsEndWithCommand: every process a command started ends with
// it — background jobs, setsid and double-forked daemons, nohup.
func TestSurvivorsEndWithCommand(t *testing.T) {
	e := newEnv(t)
	sb := e.sandbox(WorkspaceWrite, false)
	marker := fmt.Sprintf("7%d.%d", os.Getpid()%1000, time.Now().UnixNano()%1000000)
	// (Their output goes to /dev/null so that without the fix they do not
	// hold the command's pipes open.)
	null := " >/dev/null 2>&1"
	script := "setsid sleep " + marker + null + " & (sh -c 'sleep " + marker + null + " &' &); nohup sleep " + marker + null + " & exit 0"
	if out, err := e.sh(sb, script); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	var left []int
	for i := 0; i < 100; i++ { // a bound, not a timing assertion
		if left = cmdlines("sleep " + marker); len(left) == 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, pid := range left {
		_ = unix.Kill(pid, unix.SIGKILL)
	}
	t.Errorf("processes the command started outlived it: pids %v", left)
}

// TestHostProcessesInvisible: a command sees only its sandbox's
// processes, not the user's other processes and their command lines.
func TestHostProcessesInvisible(t *testing.T) {
	e := newEnv(t)
	marker := fmt.Sprintf("8%d.%d", os.Getpid()%1000, time.Now().UnixNano()%1000000)
	host := exec.Command("sleep", marker)
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { host.Process.Kill(); host.Wait() })
	out, err := e.sh(e.sandbox(WorkspaceWrite, false), "for f in /proc/[0-9]*/cmdline; do tr '\\0' ' ' < $f; echo; done")
	if err != nil {
		t.Fatalf("%v %s", err, out)
	}
	if strings.Contains(out, marker) || !strings.Contains(out, "/proc/") && !strings.Contains(out, "sh") {
		t.Errorf("the host's process %q is visible (or /proc is empty): %q", "sleep "+marker, out)
	}
}

// TestNoUserTerminal: none of the user's terminals (their pseudo-terminals,
// consoles, ttys) is open to a command; /dev holds only a fixed set of
// devices; the command can still make pseudo-terminals of its own.
func TestNoUserTerminal(t *testing.T) {
	e := newEnv(t)
	master, slave := openPTY(t)
	sb := e.sandbox(WorkspaceWrite, false)
	out, err := e.sh(sb, "echo INJECTED > "+slave.Name())
	if err == nil {
		t.Errorf("wrote to the user's terminal %s: %q", slave.Name(), out)
	}
	fds := []unix.PollFd{{Fd: int32(master.Fd()), Events: unix.POLLIN}}
	if n, _ := unix.Poll(fds, 50); n > 0 {
		buf := make([]byte, 64)
		if n, _ := master.Read(buf); strings.Contains(string(buf[:n]), "INJECTED") {
			t.Errorf("the user's terminal received %q", buf[:n])
		}
	}
	out, err = e.sh(sb, "ls -A /dev; ls -A /dev/pts")
	if err != nil {
		t.Fatalf("%v %s", err, out)
	}
	allowed := []string{"fd", "full", "null", "ptmx", "pts", "random", "shm", "stderr", "stdin", "stdout", "tty", "urandom", "zero"}
	for _, name := range strings.Fields(out) {
		if !slices.Contains(allowed, name) && !strings.HasSuffix(name, ":") {
			t.Errorf("/dev in the sandbox holds %q (want only %v)", name, allowed)
		}
	}
	if _, err := exec.LookPath("script"); err == nil {
		if out, err := e.sh(sb, "script -qc 'echo in-a-pty' /dev/null"); err != nil || !strings.Contains(out, "in-a-pty") {
			t.Errorf("script (a pty of the command's own): %v %q", err, out)
		}
	}
}

// TestIPCNamespace: the host's System V shared memory is not visible.
func TestIPCNamespace(t *testing.T) {
	e := newEnv(t)
	key := 0x5a1d0000 + os.Getpid()%0xffff
	id, err := unix.SysvShmGet(key, 4096, unix.IPC_CREAT|0o600)
	if err != nil {
		t.Skipf("System V shared memory: %v", err)
	}
	t.Cleanup(func() { _, _ = unix.SysvShmCtl(id, unix.IPC_RMID, nil) })
	out, err := e.sh(e.sandbox(WorkspaceWrite, false), "cat /proc/sysvipc/shm")
	if err != nil {
		t.Fatalf("%v %s", err, out)
	}
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) > 1 && f[0] == strconv.Itoa(key) {
			t.Errorf("the host's shared memory segment (key %d) is visible: %q", key, l)
		}
	}
}
