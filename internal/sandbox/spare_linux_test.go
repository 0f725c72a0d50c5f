//go:build linux

package sandbox

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// spareEnv is a sandbox (network off) whose helper has its C part, after
// one command, with a spare waiting for the next.
func spareEnv(t *testing.T) (*env, *Sandbox) {
	t.Helper()
	e := newEnv(t)
	if !e.caps.unshares {
		t.Skip("the helper has no C part (built without cgo)")
	}
	sb := e.sandbox(WorkspaceWrite, false)
	if sb.spares == nil {
		t.Fatal("no spares with the helper's C part")
	}
	if out, err := e.sh(sb, "true"); err != nil {
		t.Fatalf("first command: %v %s", err, out)
	}
	waitSpare(t, sb)
	return e, sb
}

// waitSpare waits until a spare waits in sb.
func waitSpare(t *testing.T, sb *Sandbox) {
	t.Helper()
	for i := 0; i < 500; i++ {
		sb.spares.mu.Lock()
		n := len(sb.spares.idle)
		sb.spares.mu.Unlock()
		if n > 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("no spare started")
}

// attached is a shell line that prints "cold" unless a spare started the
// shell (a spare starts its command as a process group of its own; the
// helper started cold keeps it in aidex's, whose id is not visible in the
// sandbox's PID namespace).
const attached = `read pid comm state ppid pgrp rest < /proc/$$/stat; [ "$pid" = "$pgrp" ] || echo cold; `

// refusals waits (up to 5 s) until every retired spare of sb has been
// reaped and returns how many refused their command.
func refusals(t *testing.T, sb *Sandbox) int {
	t.Helper()
	for i := 0; ; i++ {
		sb.spares.mu.Lock()
		sb.spares.reap()
		n, r := len(sb.spares.retired), sb.spares.refused
		sb.spares.mu.Unlock()
		if n == 0 || i == 500 {
			return r
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func handed(sb *Sandbox) int {
	sb.spares.mu.Lock()
	defer sb.spares.mu.Unlock()
	return sb.spares.handed
}

// TestSpareRunsTheCommandAsTheHelperWould: a command handed to a spare
// gets its standard streams, working directory, environment (without
// aidex's helper variables), exit status and sandbox.
func TestSpareRunsTheCommandAsTheHelperWould(t *testing.T) {
	e, sb := spareEnv(t)
	sub := filepath.Join(e.ws, "sub")
	mustMkdir(t, sub)
	cmd := exec.Command("/bin/sh", "-c", `echo out; echo err >&2; cat; pwd; echo "$FOO"; env | grep AIDEX_SANDBOX; touch "$OUTSIDE/x"; exit 7`)
	cmd.Args[2] = attached + cmd.Args[2]
	cmd.Dir = sub
	cmd.Env = append(os.Environ(), "FOO=bar", "OUTSIDE="+e.outside)
	cmd.Stdin = strings.NewReader("in\n")
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := sb.Confine(cmd, Options{}); err != nil {
		t.Fatal(err)
	}
	err := cmd.Run()
	if handed(sb) != 1 {
		t.Fatalf("the command was not handed to the spare (handed %d)", handed(sb))
	}
	if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 7 {
		t.Errorf("exit: %v, want status 7", err)
	}
	if want := "out\nin\n" + sub + "\nbar\n"; out.String() != want {
		t.Errorf("stdout %q, want %q", out.String(), want)
	}
	if !strings.HasPrefix(errOut.String(), "err\n") || !strings.Contains(errOut.String(), "x") {
		t.Errorf("stderr %q: want err and the refused touch", errOut.String())
	}
	if _, err := os.Stat(filepath.Join(e.outside, "x")); err == nil {
		t.Error("the command handed to a spare wrote outside the workspace")
	}
}

// TestSpareEndsEveryProcessBeforeWaitReturns: when the command ends, so
// has every process it started by the time Wait returns (the check after
// the command relies on it).
func TestSpareEndsEveryProcessBeforeWaitReturns(t *testing.T) {
	e, sb := spareEnv(t)
	out, err := e.sh(sb, attached+`for i in 1 2 3 4 5 6 7 8; do (while :; do echo x >> bg.log; done) </dev/null >/dev/null 2>&1 & done; sleep 0.05`)
	if err != nil || out != "" {
		t.Fatalf("%v %q", err, out)
	}
	st1, err := os.Stat(filepath.Join(e.ws, "bg.log"))
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	st2, _ := os.Stat(filepath.Join(e.ws, "bg.log"))
	if st2.Size() != st1.Size() {
		t.Errorf("a background process still wrote after Wait returned (%d → %d bytes)", st1.Size(), st2.Size())
	}
}

// TestSpareSignals: the signal aidex sends the helper's process group
// reaches the command; SIGKILL of the helper ends every process of the
// command.
func TestSpareSignals(t *testing.T) {
	e, sb := spareEnv(t)
	start := func(script string) (*exec.Cmd, *bufio.Reader) {
		cmd := exec.Command("/bin/sh", "-c", script)
		cmd.Dir = e.ws
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := sb.Confine(cmd, Options{}); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		r := bufio.NewReader(stdout)
		if line, err := r.ReadString('\n'); line != "ready\n" {
			t.Fatalf("first line %q, %v", line, err)
		}
		return cmd, r
	}
	cmd, _ := start(attached + `trap 'echo term; exit 42' TERM; echo ready; while :; do sleep 0.01; done`)
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	_ = cmd.Wait()
	if got := cmd.ProcessState.ExitCode(); got != 42 {
		t.Errorf("SIGTERM to the group: status %d, want the command's 42", got)
	}
	waitSpare(t, sb)
	cmd, _ = start(attached + `echo ready; while :; do date +%s%N > late; sleep 0.01; done`)
	time.Sleep(50 * time.Millisecond)
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	_ = cmd.Wait()
	time.Sleep(50 * time.Millisecond)
	before := readFile(t, filepath.Join(e.ws, "late"))
	time.Sleep(300 * time.Millisecond)
	if after := readFile(t, filepath.Join(e.ws, "late")); after != before {
		t.Error("the command outlived its helper's SIGKILL")
	}
}

// TestSpareNotUsedWhenItsPathsChanged: a spare mounted the paths of the
// moment it started; one that changed since (a protected file replaced, a
// guard created) makes the command start without it, under the current
// paths.
func TestSpareNotUsedWhenItsPathsChanged(t *testing.T) {
	e, sb := spareEnv(t)
	cfg := filepath.Join(e.ws, ".git", "config")
	tmp := cfg + ".new"
	mustWrite(t, tmp, "[core]\n\tnew = true\n")
	if err := os.Rename(tmp, cfg); err != nil {
		t.Fatal(err)
	}
	out, err := e.sh(sb, "cat .git/config; echo x >> .git/config")
	if handed(sb) != 0 {
		t.Errorf("a spare mounted before .git/config was replaced ran the command")
	}
	if !strings.Contains(out, "new = true") || err == nil {
		t.Errorf("got %q, %v: want the new config, read-only", out, err)
	}
	waitSpare(t, sb)
	mustWrite(t, filepath.Join(e.ws, ".mcp.json"), "{}")
	out, err = e.sh(sb, "echo '{\"mcpServers\":{}}' > .mcp.json")
	if err == nil || readFile(t, filepath.Join(e.ws, ".mcp.json")) != "{}" {
		t.Errorf("a guard created after the spare started was writable: %q %v", out, err)
	}
}

// TestSpareReportsWhatTheHelperWould: a command that cannot start (no
// such program) fails with the helper's own message and status whether a
// spare or the helper started cold tried it; so does the environment and
// the set of open descriptors a command gets.
func TestSpareReportsWhatTheHelperWould(t *testing.T) {
	e, sb := spareEnv(t)
	coldSb := e.sandbox(WorkspaceWrite, false)
	coldSb.spares = nil // every command starts cold
	for _, c := range []struct {
		name string
		args []string
	}{
		{"no such program", []string{"/nonexistent/prog"}},
		{"open descriptors", []string{"/bin/sh", "-c", "ls /proc/self/fd | tr '\\n' ' '"}},
		{"environment", []string{"/bin/sh", "-c", "env | grep -v '^PWD=\\|^SHLVL=\\|^_=' | sort"}},
	} {
		waitSpare(t, sb)
		before := handed(sb)
		warm, warmErr := e.run(sb, Options{}, c.args...)
		cold, coldErr := e.run(coldSb, Options{}, c.args...)
		if handed(sb) != before+1 {
			t.Errorf("%s: not handed to a spare", c.name)
		}
		if warm != cold || exitCode(warmErr) != exitCode(coldErr) || warm == "" {
			t.Errorf("%s: spare %q (status %d), cold %q (status %d)", c.name, warm, exitCode(warmErr), cold, exitCode(coldErr))
		}
	}
	out, err := e.run(sb, Options{}, "/nonexistent/prog")
	if exitCode(err) != 127 || !strings.Contains(out, "exec /nonexistent/prog") {
		t.Errorf("got %q, %v: want status 127 and the helper's message", out, err)
	}
	if n := refusals(t, sb); n != 0 {
		t.Errorf("%d spares refused their command; every one must have run it", n)
	}
}

func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

// TestSparesEndWithTheSandbox: the spares waiting in a sandbox that is
// no longer used end (a cleanup when it is collected), and a sandbox
// keeps at most maxSpares.
func TestSparesEndWithTheSandbox(t *testing.T) {
	e, sb := spareEnv(t)
	_, _ = e.run(sb, Options{Network: true}, "/bin/true")
	for i := 0; i < 500; i++ {
		sb.spares.mu.Lock()
		n := len(sb.spares.idle)
		sb.spares.mu.Unlock()
		if n == 2 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	sb.spares.mu.Lock()
	var pids []int
	for _, sv := range sb.spares.idle {
		pids = append(pids, sv.pid)
	}
	sb.spares.mu.Unlock()
	if len(pids) != maxSpares {
		t.Fatalf("%d spares waiting, want %d (network off and on)", len(pids), maxSpares)
	}
	p := sb.spares
	sb = nil
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for ctx.Err() == nil {
		runtime.GC()
		p.mu.Lock()
		n := len(p.idle)
		p.mu.Unlock()
		if n == 0 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	p.mu.Lock()
	closed := p.closed
	p.mu.Unlock()
	if !closed {
		t.Fatal("the sandbox's spares were not closed after it was collected")
	}
	for _, pid := range pids {
		// close waited for it: it is no child of ours any more.
		var ws syscall.WaitStatus
		if _, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil); !errors.Is(err, syscall.ECHILD) {
			t.Errorf("spare %d was not ended and waited for (%v)", pid, err)
		}
	}
}

// TestSpareWithAMaskUnderAnother: a folder masked under another masked
// folder (the user's runtime dir under /run) gets no mount of its own,
// and the spare still takes the command.
func TestSpareWithAMaskUnderAnother(t *testing.T) {
	var dir string
	entries, _ := os.ReadDir("/run")
	for _, en := range entries {
		if en.IsDir() {
			dir = filepath.Join("/run", en.Name())
			break
		}
	}
	if dir == "" {
		t.Skip("no folder under /run")
	}
	t.Setenv("XDG_RUNTIME_DIR", dir)
	e, sb := spareEnv(t)
	if !slices.Contains(sb.fixed.netOffMasks, dir) {
		t.Fatalf("%s is not masked (%q)", dir, sb.fixed.netOffMasks)
	}
	if out, err := e.sh(sb, attached+"ls -A /run"); err != nil || out != "" {
		t.Errorf("%v %q: want the spare to run it, with nothing visible", err, out)
	}
}

// TestSpareWithAWritableFolderAboveTheWorkspace: a writable folder that
// holds the workspace (the temp folder, for a workspace in it) is bound
// after the workspace, recursively, which leads the workspace to a copy
// of its mount; the spare still takes the command.
func TestSpareWithAWritableFolderAboveTheWorkspace(t *testing.T) {
	e := newEnv(t)
	if !e.caps.unshares {
		t.Skip("the helper has no C part (built without cgo)")
	}
	sb, err := New(Policy{Mode: WorkspaceWrite, Workspace: e.ws, Writable: []string{filepath.Dir(e.ws)}, Home: e.home}, e.caps)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if out, err := e.sh(sb, attached+"touch x"+strconv.Itoa(i)); err != nil || (i > 0 && out != "") {
			t.Fatalf("command %d: %v %q", i, err, out)
		}
		waitSpare(t, sb)
	}
	if n := refusals(t, sb); n != 0 {
		t.Errorf("%d spares refused their command", n)
	}
}
