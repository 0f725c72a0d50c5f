//go:build linux

package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/zelvior/aidex/internal/sandbox/helper"
)

// helperBuilds builds cmd/aidex-sandbox with and without cgo (its C part,
// cmd/aidex-sandbox/unshare_linux.go), once per test binary.
var helperBuilds = sync.OnceValue(func() map[bool]string {
	dir, err := os.MkdirTemp("", "aidex-sbx-variants-")
	if err != nil {
		return nil
	}
	out := map[bool]string{}
	for _, cgo := range []bool{true, false} {
		bin := filepath.Join(dir, "aidex-sandbox-cgo"+strconv.FormatBool(cgo))
		cmd := exec.Command("go", "build", "-o", bin, "github.com/zelvior/aidex/cmd/aidex-sandbox")
		cmd.Env = append(os.Environ(), "CGO_ENABLED="+map[bool]string{true: "1", false: "0"}[cgo])
		if err := cmd.Run(); err == nil {
			out[cgo] = bin
		}
	}
	return out
})

// helperVariant returns this machine's caps with the helper built with or
// without cgo; it skips when that build is not possible here (no C
// compiler, or a prebuilt helper and no module to build from), except
// under CI.
func helperVariant(t *testing.T, cgo bool) Caps {
	t.Helper()
	c := requireCaps(t)
	bin := helperBuilds()[cgo]
	if bin == "" {
		msg := fmt.Sprintf("cannot build aidex-sandbox with cgo=%v here", cgo)
		if os.Getenv("CI") != "" && os.Getenv("AIDEX_TEST_SANDBOX_HELPER") == "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	c.Helper = bin
	c.unshares = helperUnshares(bin)
	return c
}

// startLimit is the Sandbox.spawnLimit that makes commands start through
// the helper's C part (unshared) or directly, whatever this process's
// memory.
func startLimit(unshared bool) int64 {
	if unshared {
		return 1
	}
	return -1
}

// TestHelperStartPath: the helper built with cgo creates its namespaces
// itself (aidex starts it with no clone flags: its pid namespace is aidex's, its children's is new);
// without cgo aidex creates them (the helper's own pid namespace is new). Either way the command is confined
// alike: status, writes, network, uid, no marker in its environment,
// leftovers killed, and a kill of the started process ends everything.
func TestHelperStartPath(t *testing.T) {
	for _, cgo := range []bool{true, false} {
		t.Run("cgo="+strconv.FormatBool(cgo), func(t *testing.T) {
			e := newEnv(t)
			e.caps = helperVariant(t, cgo)
			if e.caps.unshares != cgo {
				t.Fatalf("helperUnshares = %v for the helper built with cgo=%v", e.caps.unshares, cgo)
			}
			sb := e.sandbox(WorkspaceWrite, false)
			sb.spawnLimit = startLimit(cgo)
			checkStartPath(t, e, sb, cgo)
			checkConfinedAlike(t, e, cgo)
		})
	}
}

// checkStartPath starts a confined sleep and looks at the process aidex
// started: in aidex's pid namespace (the C part unshared) or in a new one
// (aidex cloned it into the namespaces). Killing it must end the sleep.
func checkStartPath(t *testing.T, e *env, sb *Sandbox, unshared bool) {
	marker := fmt.Sprintf("7%d.%d", os.Getpid()%1000, time.Now().UnixNano()%1000000)
	cmd := exec.Command("/bin/sleep", marker)
	cmd.Dir = e.ws
	if err := sb.Confine(cmd, Options{}); err != nil {
		t.Fatal(err)
	}
	if flags := cmd.SysProcAttr.Cloneflags; unshared != (flags == 0) {
		t.Errorf("clone flags %#x with unshared %v", flags, unshared)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The helper's own command line names the sleep too; with the C part
	// there are two helper processes.
	want := 2
	if unshared {
		want = 3
	}
	for i := 0; i < 250 && len(cmdlines("sleep "+marker)) < want; i++ { // a bound, not a timing assertion
		time.Sleep(20 * time.Millisecond)
	}
	pid := strconv.Itoa(cmd.Process.Pid)
	own, _ := os.Readlink("/proc/self/ns/pid")
	its, _ := os.Readlink("/proc/" + pid + "/ns/pid")
	children, _ := os.Readlink("/proc/" + pid + "/ns/pid_for_children")
	if got := its == own && children != own; got != unshared {
		t.Errorf("the helper created its namespaces: %v, want %v (pid ns %s, its %s, its children's %s)", got, unshared, own, its, children)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	waitGone(t, marker)
}

// checkConfinedAlike runs the usual checks through the path in use (the
// processes in /proc: the helper and sh).
func checkConfinedAlike(t *testing.T, e *env, unshared bool) {
	for _, network := range []bool{false, true} {
		sb := e.sandbox(WorkspaceWrite, network)
		sb.spawnLimit = startLimit(unshared)
		if out, err := e.sh(sb, "touch $OUTSIDE/x"); err == nil {
			t.Errorf("network %v: write outside succeeded: %q", network, out)
		}
		if out, err := e.sh(sb, "touch inside && test -z \"${"+helper.UnshareEnv+"+x}\" && id -u"); err != nil || strings.TrimSpace(out) != strconv.Itoa(os.Getuid()) {
			t.Errorf("network %v: write inside, no %s, own uid: %v %q", network, helper.UnshareEnv, err, out)
		}
		for _, c := range []struct {
			script string
			code   int
		}{{"exit 3", 3}, {"kill -9 $$", 137}} {
			_, err := e.sh(sb, c.script)
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != c.code {
				t.Errorf("network %v, unshared %v: %q gave %v, want exit %d", network, unshared, c.script, err, c.code)
			}
		}
		out, err := e.sh(sb, "grep -c : /proc/net/dev; set -- /proc/[0-9]*; echo $#")
		if f := strings.Fields(out); err != nil || len(f) != 2 || network == (f[0] == "1") || f[1] != "2" {
			t.Errorf("network %v: interfaces and processes %q %v", network, out, err)
		}
	}
	sb := e.sandbox(WorkspaceWrite, false)
	sb.spawnLimit = startLimit(unshared)
	marker := fmt.Sprintf("6%d.%d", os.Getpid()%1000, time.Now().UnixNano()%1000000)
	if out, err := e.sh(sb, "setsid sleep "+marker+" >/dev/null 2>&1 & exit 0"); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	waitGone(t, marker)
}

// TestHelperSignalsReachCommand: a SIGTERM to the process group (what
// aidex sends on a timeout or a cancel) reaches the command, whose own
// status comes back, on either start path; stdin reaches it too.
func TestHelperSignalsReachCommand(t *testing.T) {
	for _, cgo := range []bool{true, false} {
		t.Run("cgo="+strconv.FormatBool(cgo), func(t *testing.T) {
			e := newEnv(t)
			e.caps = helperVariant(t, cgo)
			sb := e.sandbox(WorkspaceWrite, false)
			sb.spawnLimit = startLimit(cgo)
			cmd := exec.Command("/bin/sh", "-c", "trap 'exit 7' TERM; read line; echo \"got $line\"; sleep 30 & wait")
			cmd.Dir = e.ws
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			if err := sb.Confine(cmd, Options{}); err != nil {
				t.Fatal(err)
			}
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			defer stdin.Close()
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			stop := time.AfterFunc(10*time.Second, func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }) // a bound, not a timing assertion
			defer stop.Stop()
			_, _ = io.WriteString(stdin, "hello\n")
			line, _ := bufio.NewReader(stdout).ReadString('\n')
			// The command runs (it answered): the helper catches the
			// catchable signals since before it started it, and drops them.
			if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, stdout)
			err = cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 7 || line != "got hello\n" {
				t.Errorf("SIGTERM to the group: %v, output %q %q; want exit 7 and got hello", err, line, stderr.String())
			}
		})
	}
}

// TestHelperWithoutCPartRefusesUnshare: a helper built without cgo that
// is asked to create its namespaces fails rather than run outside them.
func TestHelperWithoutCPartRefusesUnshare(t *testing.T) {
	c := helperVariant(t, false)
	cmd := exec.Command(c.Helper, "-n", "-l", "-o", "--", "/bin/true")
	cmd.Env = append(os.Environ(), helper.UnshareEnv+"="+helper.SpawnNetOff)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != helper.ExitSetup || !strings.Contains(string(out), helper.Prefix+"setup") {
		t.Errorf("got %v %q, want exit %d and a setup message", err, out, helper.ExitSetup)
	}
}

// TestUnshareWithTheCPart: with a helper that has the C part, commands
// start through it (no clone flags, the variable set, no first stage)
// whatever aidex's memory (limit 0: the default) or above a limit set
// for a test, directly below it, and always directly when they lead a
// session of their own.
func TestUnshareWithTheCPart(t *testing.T) {
	e := newEnv(t)
	sb := e.sandbox(WorkspaceWrite, false)
	sb.caps.unshares = true
	for _, c := range []struct {
		limit  int64
		setsid bool
		want   bool
	}{{0, false, true}, {0, true, false}, {-1, false, false}, {1, false, true}, {1, true, false}, {1 << 40, false, false}} {
		sb.spawnLimit = c.limit
		cmd := exec.Command("/bin/true")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: c.setsid}
		if err := sb.Confine(cmd, Options{}); err != nil {
			t.Fatal(err)
		}
		got := slices.Contains(cmd.Env, helper.UnshareEnv+"="+helper.SpawnNetOff)
		if got != c.want || got != (cmd.SysProcAttr.Cloneflags == 0) || slices.Contains(cmd.Args, helper.SpawnArg) {
			t.Errorf("limit %d, setsid %v: unshare %v, want %v (clone flags %#x, %q)", c.limit, c.setsid, got, c.want, cmd.SysProcAttr.Cloneflags, cmd.Args)
		}
	}
}
