//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/zelvior/aidex/internal/sandbox/helper"
)

// spawnEnv set to 1 makes the test binary hold more memory than
// spawnAbove, so that every sandboxed command of the run starts through
// the helper's first stage, as in a working aidex (the escape suite
// included): AIDEX_TEST_SANDBOX_SPAWN=1 go test ./internal/sandbox/
const spawnEnv = "AIDEX_TEST_SANDBOX_SPAWN"

// spawnBallast returns memory to hold for the run (see spawnEnv).
func spawnBallast() [][]byte {
	if os.Getenv(spawnEnv) != "1" {
		return nil
	}
	var b [][]byte
	for range 2 * spawnAbove >> 20 {
		chunk := make([]byte, 1<<20)
		for j := 0; j < len(chunk); j += 4096 {
			chunk[j] = 1
		}
		b = append(b, chunk)
	}
	return b
}

// TestSpawnFirstAboveLimit: commands start through the first stage when
// aidex holds more memory than the limit, directly below it, and always
// directly when they lead a session of their own or the helper is aidex
// itself.
func TestSpawnFirstAboveLimit(t *testing.T) {
	e := newEnv(t)
	sb := e.sandbox(WorkspaceWrite, false)
	sb.caps.unshares = false // a helper without the C part (unshare_linux_test.go)
	for _, c := range []struct {
		limit     int64
		setsid    bool
		helperArg string
		want      bool
	}{{-1, false, "", false}, {1, false, "", true}, {1, true, "", false}, {1 << 40, false, "", false}, {1, false, helper.Arg, false}} {
		sb.spawnLimit = c.limit
		sb.caps.HelperArg = c.helperArg
		cmd := exec.Command("/bin/true")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: c.setsid}
		if err := sb.Confine(cmd, Options{}); err != nil {
			t.Fatal(err)
		}
		got := slices.Contains(cmd.Args, helper.SpawnArg)
		if got != c.want {
			t.Errorf("limit %d, setsid %v, %q: first stage %v, want %v (%q)", c.limit, c.setsid, c.helperArg, got, c.want, cmd.Args)
		}
		if got && cmd.SysProcAttr.Cloneflags != 0 {
			t.Errorf("the first stage itself starts in namespaces: %#x", cmd.SysProcAttr.Cloneflags)
		}
	}
}

// TestSpawnFirstStageConfines: through the first stage a command is
// confined as directly: writes outside fail, the status passes through,
// the network is its own loopback, the git dir's config is read-only, and what it leaves behind ends with
// it.
func TestSpawnFirstStageConfines(t *testing.T) {
	e := newEnv(t)
	for _, network := range []bool{false, true} {
		sb := e.sandbox(WorkspaceWrite, network)
		sb.spawnLimit = 1
		sb.caps.unshares = false
		if out, err := e.sh(sb, "touch $OUTSIDE/spawned"); err == nil {
			t.Errorf("network %v: write outside succeeded: %q", network, out)
		}
		if out, err := e.sh(sb, "echo '[core]' >> .git/config"); err == nil {
			t.Errorf("network %v: write into .git/config succeeded: %q", network, out)
		}
		if out, err := e.sh(sb, "touch inside-spawned"); err != nil {
			t.Errorf("network %v: write inside: %v %q", network, err, out)
		}
		_, err := e.sh(sb, "exit 3")
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
			t.Errorf("network %v: exit 3 gave %v", network, err)
		}
		out, err := e.sh(sb, "grep -c : /proc/net/dev")
		if n := strings.TrimSpace(out); err != nil || network == (n == "1") {
			t.Errorf("network %v: interfaces %q %v", network, n, err)
		}
	}
	sb := e.sandbox(WorkspaceWrite, false)
	sb.spawnLimit = 1
	sb.caps.unshares = false
	marker := fmt.Sprintf("8%d.%d", os.Getpid()%1000, time.Now().UnixNano()%1000000)
	if out, err := e.sh(sb, "setsid sleep "+marker+" >/dev/null 2>&1 & exit 0"); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	waitGone(t, marker)
}

// TestSpawnFirstStageKilled: killing the first stage (what aidex's
// Process.Kill reaches) ends the command and everything it started.
func TestSpawnFirstStageKilled(t *testing.T) {
	e := newEnv(t)
	sb := e.sandbox(WorkspaceWrite, false)
	sb.spawnLimit = 1
	sb.caps.unshares = false
	marker := fmt.Sprintf("9%d.%d", os.Getpid()%1000, time.Now().UnixNano()%1000000)
	cmd := exec.Command("/bin/sh", "-c", "sleep "+marker+" & sleep "+marker+"; :")
	cmd.Dir = e.ws
	if err := sb.Confine(cmd, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 250 && len(cmdlines("sleep "+marker)) < 2; i++ { // a bound, not a timing assertion
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	waitGone(t, marker)
}

// waitGone fails t when processes with "sleep marker" in their command
// line outlive a bound of 2 s (and kills them).
func waitGone(t *testing.T, marker string) {
	t.Helper()
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
