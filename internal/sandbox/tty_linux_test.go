//go:build linux

package sandbox

import (
	"bytes"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// probeEnv makes the test binary, run inside the sandbox, try a
// TIOCSTI injection into its controlling terminal and print the outcome.
const probeEnv = "AIDEX_SANDBOX_TEST_PROBE"

func TestMain(m *testing.M) {
	switch os.Getenv(probeEnv) {
	case "tiocsti":
		os.Exit(tiocstiProbe())
	case "":
	default:
		os.Exit(socketProbe(os.Getenv(probeEnv), os.Getenv(probeArgEnv)))
	}
	ballast := spawnBallast()
	code := m.Run()
	runtime.KeepAlive(ballast)
	os.Exit(code)
}

func tiocstiProbe() int {
	fd, err := unix.Open("/dev/tty", unix.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		os.Stdout.WriteString("no tty: " + err.Error() + "\n")
		return 0
	}
	c := byte('Z')
	if _, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.TIOCSTI, uintptr(unsafe.Pointer(&c))); errno != 0 {
		os.Stdout.WriteString("TIOCSTI refused: " + errno.Error() + "\n")
		return 0
	}
	os.Stdout.WriteString("INJECTED\n")
	return 0
}

// openPTY returns a new pseudo-terminal's master and slave.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile("/dev/pts/"+itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close(); s.Close() })
	return m, s
}

// TestCommandCannotInjectIntoTheTerminal: aidex shares its session (and
// so its controlling terminal) with the commands it starts; a sandboxed
// command must not be able to push keystrokes into that terminal.
func TestCommandCannotInjectIntoTheTerminal(t *testing.T) {
	e := newEnv(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	_, slave := openPTY(t)
	sb := e.sandbox(WorkspaceWrite, false)
	inner := exec.Command(self)
	inner.Env = append(os.Environ(), probeEnv+"=tiocsti")
	if err := sb.Confine(inner, Options{}); err != nil {
		t.Fatal(err)
	}
	// setsid -c makes the pty the controlling terminal of a shell, which
	// starts the helper as an ordinary member of its session, as aidex's
	// commands are members of aidex's.
	script := `"$@"; :`
	cmd := exec.Command("setsid", append([]string{"-c", "/bin/sh", "-c", script, "sh"}, inner.Args...)...)
	cmd.Path, _ = exec.LookPath("setsid")
	cmd.Env = inner.Env
	cmd.SysProcAttr = inner.SysProcAttr
	cmd.Stdin = slave
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	if strings.Contains(out.String(), "INJECTED") || !strings.Contains(out.String(), "no tty") {
		t.Errorf("the sandboxed command reached the terminal: %q", out.String())
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
