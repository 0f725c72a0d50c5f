//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/zelvior/aidex/internal/sandbox/helper"
)

// buildHelper builds cmd/aidex-sandbox once per test binary into a temp
// dir and returns the caps of this machine with that helper.
// AIDEX_TEST_SANDBOX_HELPER names a prebuilt helper instead (to run the
// compiled tests as another user).
var buildOnce = sync.OnceValues(func() (string, error) {
	if p := os.Getenv("AIDEX_TEST_SANDBOX_HELPER"); p != "" {
		return p, nil
	}
	dir, err := os.MkdirTemp("", "aidex-sbx-helper-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "aidex-sandbox")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/zelvior/aidex/cmd/aidex-sandbox").CombinedOutput()
	if err != nil {
		return "", &buildError{string(out), err}
	}
	return bin, nil
})

type buildError struct {
	out string
	err error
}

func (e *buildError) Error() string { return "go build aidex-sandbox: " + e.err.Error() + ": " + e.out }

// requireCaps returns this machine's caps with a freshly built helper; it
// fails under CI when namespaces or Landlock are missing, skips otherwise.
func requireCaps(t testing.TB) Caps {
	t.Helper()
	bin, err := buildOnce()
	if err != nil {
		t.Fatal(err)
	}
	c := probe()
	c.Helper, c.HelperArg = bin, ""
	c.unshares = helperUnshares(bin)
	describe(&c)
	if !c.Namespaces || c.LandlockABI == 0 {
		msg := "this machine lacks user namespaces or Landlock (" + c.Method + "): the sandbox cannot be tested"
		if os.Getenv("CI") != "" {
			t.Fatal(msg + " (CI is set: the CI machine must allow them)")
		}
		t.Skip(msg)
	}
	return c
}

// env is one test's world: a workspace (a git repo), a home with a
// secret and dotfiles, and an outside folder, all under t.TempDir.
type env struct {
	t       *testing.T
	caps    Caps
	ws      string
	home    string
	outside string
	tmp     string
}

func newEnv(t *testing.T) *env {
	c := requireCaps(t)
	root := t.TempDir()
	e := &env{t: t, caps: c, ws: filepath.Join(root, "ws"), home: filepath.Join(root, "home"),
		outside: filepath.Join(root, "outside"), tmp: filepath.Join(root, "tmp")}
	for _, d := range []string{filepath.Join(e.ws, ".git", "hooks"), filepath.Join(e.home, ".ssh"), e.outside, e.tmp} {
		mustMkdir(t, d)
	}
	mustWrite(t, filepath.Join(e.home, ".ssh", "id_rsa"), "PRIVATE-KEY")
	mustWrite(t, filepath.Join(e.home, ".bashrc"), "# rc\n")
	mustWrite(t, filepath.Join(e.home, ".netrc"), "machine x password SECRET\n")
	mustWrite(t, filepath.Join(e.ws, ".git", "config"), "[core]\n")
	return e
}

func (e *env) sandbox(mode Mode, network bool) *Sandbox {
	e.t.Helper()
	sb, err := New(Policy{Mode: mode, Workspace: e.ws, Writable: []string{e.tmp}, Home: e.home, Network: network}, e.caps)
	if err != nil {
		e.t.Fatal(err)
	}
	return sb
}

// sh runs script under sh -c in the sandbox from the workspace and
// returns its combined output and exit error.
func (e *env) sh(sb *Sandbox, script string) (string, error) {
	return e.run(sb, Options{}, "/bin/sh", "-c", script)
}

func (e *env) run(sb *Sandbox, o Options, args ...string) (string, error) {
	e.t.Helper()
	cmd := exec.CommandContext(context.Background(), args[0], args[1:]...)
	cmd.Dir = e.ws
	cmd.Env = append(os.Environ(), "HOME="+e.home, "OUTSIDE="+e.outside)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := sb.Confine(cmd, o); err != nil {
		e.t.Fatal(err)
	}
	err := cmd.Run()
	if strings.Contains(out.String(), helper.Prefix+"setup") {
		e.t.Fatalf("the helper failed to set up: %s", out.String())
	}
	return out.String(), err
}

func mustMkdir(t *testing.T, d string) {
	t.Helper()
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
}

func mustWrite(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func randomName() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func TestWorkspaceWriteDeniesWritesOutside(t *testing.T) {
	e := newEnv(t)
	sb := e.sandbox(WorkspaceWrite, false)
	etc := "/etc/aidex-test-" + randomName()
	t.Cleanup(func() { os.Remove(etc) })
	cases := []struct{ name, script, path string }{
		{"touch in home", "touch $HOME/x", filepath.Join(e.home, "x")},
		{"write /etc", "echo x > " + etc, etc},
		{"cd .. escape (E-017)", "cd .. && touch escaped.txt", filepath.Join(filepath.Dir(e.ws), "escaped.txt")},
		{"zsh-style re-exec (E-203)", "sh -c 'sh -c \"touch $OUTSIDE/y\"'", filepath.Join(e.outside, "y")},
		{"background child", "(sleep 0; touch $OUTSIDE/bg) & wait $!", filepath.Join(e.outside, "bg")},
	}
	for _, tc := range cases {
		out, err := e.sh(sb, tc.script)
		if err == nil {
			t.Errorf("%s: succeeded, want a failure (output %q)", tc.name, out)
		}
		if _, serr := os.Lstat(tc.path); serr == nil {
			t.Errorf("%s: %s was created outside the sandbox", tc.name, tc.path)
		}
	}
	if out, err := e.sh(sb, "echo x >> $HOME/.bashrc"); err == nil {
		t.Errorf("append to .bashrc succeeded: %q", out)
	}
	if got := readFile(t, filepath.Join(e.home, ".bashrc")); got != "# rc\n" {
		t.Errorf(".bashrc changed: %q", got)
	}
}

func TestWorkspaceWriteProtectsGitAndAidex(t *testing.T) {
	e := newEnv(t)
	mustMkdir(t, filepath.Join(e.ws, ".vscode"))
	sb := e.sandbox(WorkspaceWrite, false)
	for _, script := range []string{
		"echo 'curl evil' > .git/hooks/pre-commit",
		"echo '[core] hooksPath=/tmp' >> .git/config",
		"echo 'x' > .aidex/config.toml",
		"rm -rf .git/hooks",
		"echo '{}' > .vscode/tasks.json",
	} {
		if out, err := e.sh(sb, script); err == nil {
			t.Errorf("%q succeeded, want a failure (output %q)", script, out)
		}
	}
	if _, err := os.Stat(filepath.Join(e.ws, ".git", "hooks", "pre-commit")); err == nil {
		t.Error(".git/hooks/pre-commit was written")
	}
	if got := readFile(t, filepath.Join(e.ws, ".git", "config")); got != "[core]\n" {
		t.Errorf(".git/config changed: %q", got)
	}
	if _, err := os.Stat(filepath.Join(e.ws, ".aidex", "config.toml")); err == nil {
		t.Error(".aidex/config.toml was written")
	}
	if out, err := e.sh(sb, "echo obj > .git/objects-test && rm .git/objects-test"); err != nil {
		t.Errorf("writing elsewhere in .git failed: %v %s", err, out)
	}
}

func TestWorkspaceWriteAllowsWorkspaceAndTemp(t *testing.T) {
	e := newEnv(t)
	sb := e.sandbox(WorkspaceWrite, false)
	out, err := e.sh(sb, "echo in > inside.txt && mkdir -p sub/deep && mv inside.txt sub/deep/ && echo t > "+e.tmp+"/t.txt")
	if err != nil {
		t.Fatalf("writes inside failed: %v\n%s", err, out)
	}
	if got := readFile(t, filepath.Join(e.ws, "sub", "deep", "inside.txt")); got != "in\n" {
		t.Errorf("workspace file = %q", got)
	}
	if got := readFile(t, filepath.Join(e.tmp, "t.txt")); got != "t\n" {
		t.Errorf("temp file = %q", got)
	}
}

func TestCredentialsMasked(t *testing.T) {
	e := newEnv(t)
	sb := e.sandbox(WorkspaceWrite, false)
	out, _ := e.sh(sb, "cat $HOME/.ssh/id_rsa; cat $HOME/.netrc; ls -a $HOME/.ssh")
	if strings.Contains(out, "PRIVATE-KEY") || strings.Contains(out, "SECRET") || strings.Contains(out, "id_rsa\n") {
		t.Errorf("a masked credential was readable: %q", out)
	}
	if got := readFile(t, filepath.Join(e.home, ".ssh", "id_rsa")); got != "PRIVATE-KEY" {
		t.Errorf("the real key changed: %q", got)
	}
}

func TestReadOnlyRefusesWorkspaceWrites(t *testing.T) {
	e := newEnv(t)
	sb := e.sandbox(ReadOnly, false)
	if out, err := e.sh(sb, "echo x > new.txt"); err == nil {
		t.Errorf("write in read-only mode succeeded: %q", out)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "new.txt")); err == nil {
		t.Error("new.txt was created")
	}
	if out, err := e.sh(sb, "cat .git/config"); err != nil || out != "[core]\n" {
		t.Errorf("reads in read-only mode: %v %q", err, out)
	}
}

// listen opens a TCP listener on 127.0.0.1 in this (the parent) network
// namespace and counts the connections it accepts.
func listen(t *testing.T) (addr string, accepted func() int) {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	n := 0
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			n++
			mu.Unlock()
			c.Close()
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return ln.Addr().String(), func() int { mu.Lock(); defer mu.Unlock(); return n }
}

func TestNetworkOffCannotReachHostListener(t *testing.T) {
	e := newEnv(t)
	addr, _ := listen(t)
	sb := e.sandbox(WorkspaceWrite, false)
	out, err := e.run(sb, Options{}, e.caps.Helper, helper.ConnectArg, addr)
	if err == nil {
		t.Fatalf("connect to the host listener %s succeeded with the network off: %q", addr, out)
	}
	// E-135: bypassing proxy settings does not help; there is no route.
	out, err = e.run(sb, Options{}, e.caps.Helper, helper.ConnectArg, "1.1.1.1:443")
	if err == nil || !strings.Contains(out, "unreachable") {
		t.Errorf("direct egress: err %v, output %q (want network is unreachable)", err, out)
	}
	// The sandbox's own loopback works: a server and client inside it.
	if out, err := e.run(sb, Options{}, "/bin/sh", "-c", "cat /sys/class/net/lo/operstate"); err != nil || strings.TrimSpace(out) == "down" {
		t.Errorf("loopback inside the sandbox: %v %q", err, out)
	}
}

func TestNetworkOnReachesHostListener(t *testing.T) {
	e := newEnv(t)
	addr, accepted := listen(t)
	out, err := e.run(e.sandbox(WorkspaceWrite, true), Options{}, e.caps.Helper, helper.ConnectArg, addr)
	if err != nil {
		t.Fatalf("network = true: connect failed: %v %q", err, out)
	}
	out, err = e.run(e.sandbox(WorkspaceWrite, false), Options{Network: true}, e.caps.Helper, helper.ConnectArg, addr)
	if err != nil {
		t.Fatalf("Options.Network: connect failed: %v %q", err, out)
	}
	if accepted() == 0 {
		// The accept loop may lag the client's successful connect; the
		// client's success is the assertion, this only documents it.
		t.Log("listener has not counted the connections yet")
	}
}

func TestGoBuildAndTestInWorkspace(t *testing.T) {
	e := newEnv(t)
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatal("go not on PATH")
	}
	mustWrite(t, filepath.Join(e.ws, "go.mod"), "module example.com/tiny\n\ngo 1.22\n")
	mustWrite(t, filepath.Join(e.ws, "tiny.go"), "package tiny\n\nfunc Add(a, b int) int { return a + b }\n")
	mustWrite(t, filepath.Join(e.ws, "tiny_test.go"), "package tiny\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"add\")\n\t}\n}\n")
	gocache := filepath.Join(e.tmp, "gocache")
	sb, err := New(Policy{Mode: WorkspaceWrite, Workspace: e.ws, Home: e.home,
		Writable: DefaultWritable(e.home, func(k string) string {
			switch k {
			case "GOCACHE":
				return gocache
			case "TMPDIR":
				return e.tmp
			}
			return ""
		})}, e.caps)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{goBin, "build", "./..."}, {goBin, "test", "-count=1", "./..."}} {
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir = e.ws
		cmd.Env = append(os.Environ(), "HOME="+e.home, "GOCACHE="+gocache, "TMPDIR="+e.tmp, "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local")
		if err := sb.Confine(cmd, Options{}); err != nil {
			t.Fatal(err)
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v in the sandbox: %v\n%s", args[1:], err, out)
		}
	}
}

func TestSelfTest(t *testing.T) {
	c := requireCaps(t)
	for _, ch := range SelfTest(context.Background(), Policy{Mode: WorkspaceWrite}, c) {
		if !ch.OK {
			t.Errorf("self-test %q failed: %s", ch.Name, ch.Note)
		}
	}
}

func TestCommandKeepsUIDAndHoldsNoCapabilities(t *testing.T) {
	e := newEnv(t)
	sb := e.sandbox(WorkspaceWrite, false)
	out, err := e.sh(sb, "id -u; grep -E '^Cap(Eff|Prm|Bnd|Amb):' /proc/self/status; grep NoNewPrivs /proc/self/status")
	if err != nil {
		t.Fatalf("%v %s", err, out)
	}
	if first, _, _ := strings.Cut(out, "\n"); first != strconv.Itoa(os.Geteuid()) {
		t.Errorf("uid inside = %s, want %d (the user's own)", first, os.Geteuid())
	}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
		if strings.HasPrefix(l, "Cap") && !strings.HasSuffix(l, "0000000000000000") || strings.HasPrefix(l, "NoNewPrivs") && !strings.HasSuffix(l, "1") {
			t.Errorf("the command holds privileges: %s", l)
		}
	}
	// Without capabilities (and under Landlock) the masks cannot be lifted.
	if out, err := e.sh(sb, "umount $HOME/.ssh && cat $HOME/.ssh/id_rsa"); err == nil || strings.Contains(out, "PRIVATE-KEY") {
		t.Errorf("umount of a mask succeeded: %q", out)
	}
}

func TestExplainNamesCauseAndFix(t *testing.T) {
	e := newEnv(t)
	sb := e.sandbox(WorkspaceWrite, false)
	out, _ := e.sh(sb, "touch $HOME/x")
	got := sb.Explain(out)
	if !strings.Contains(got, "--add-dir "+e.home) || !strings.Contains(got, "without the sandbox") {
		t.Errorf("Explain(%q) = %q, want the --add-dir fix for %s", out, got, e.home)
	}
	out, _ = e.sh(sb, "echo x > .git/hooks/pre-commit")
	if got := sb.Explain(out); !strings.Contains(got, "read-only in the sandbox") {
		t.Errorf("Explain(%q) = %q, want the protected-path line", out, got)
	}
	out, _ = e.run(sb, Options{}, e.caps.Helper, helper.ConnectArg, "1.1.1.1:443")
	if got := sb.Explain(out); !strings.Contains(got, "network = true") {
		t.Errorf("Explain(%q) = %q, want the network line", out, got)
	}
}

// TestAidexItselfIsTheFallbackHelper builds aidex and confines a command
// with aidex __sandbox as the helper (no aidex-sandbox installed).
func TestAidexItselfIsTheFallbackHelper(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: building aidex takes a while")
	}
	e := newEnv(t)
	bin := filepath.Join(t.TempDir(), "aidex")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/zelvior/aidex/cmd/aidex").CombinedOutput(); err != nil {
		t.Fatalf("go build aidex: %v\n%s", err, out)
	}
	e.caps.Helper, e.caps.HelperArg = bin, helper.Arg
	sb := e.sandbox(WorkspaceWrite, false)
	if out, err := e.sh(sb, "touch $OUTSIDE/z"); err == nil {
		t.Errorf("write outside through aidex __sandbox succeeded: %q", out)
	}
	if out, err := e.sh(sb, "touch inside-z"); err != nil {
		t.Errorf("write inside through aidex __sandbox: %v %q", err, out)
	}
}

func TestFindHelper(t *testing.T) {
	dir := t.TempDir()
	self := filepath.Join(dir, "aidex")
	mustWrite(t, self, "")
	noPath := func(string) (string, error) { return "", exec.ErrNotFound }
	selfFn := func() (string, error) { return self, nil }
	if p, arg := findHelper(selfFn, noPath); p != self || arg != helper.Arg {
		t.Errorf("without aidex-sandbox: %q %q, want aidex itself with %q", p, arg, helper.Arg)
	}
	beside := filepath.Join(dir, "aidex-sandbox")
	if err := os.WriteFile(beside, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if p, arg := findHelper(selfFn, noPath); p != beside || arg != "" {
		t.Errorf("with aidex-sandbox beside aidex: %q %q", p, arg)
	}
	onPath := func(string) (string, error) { return "/usr/local/bin/aidex-sandbox", nil }
	broken := func() (string, error) { return "", os.ErrNotExist }
	if p, arg := findHelper(broken, onPath); p != "/usr/local/bin/aidex-sandbox" || arg != "" {
		t.Errorf("on PATH: %q %q", p, arg)
	}
	if p, _ := findHelper(broken, noPath); p != "" {
		t.Errorf("nothing found: %q", p)
	}
}

func TestDescribeStatesLimits(t *testing.T) {
	cases := []struct {
		c          Caps
		method     string
		limits     bool
		reasonPart string
	}{
		{Caps{Helper: "h", Namespaces: true, LandlockABI: 7}, "namespaces+landlock", false, ""},
		{Caps{Helper: "h", Namespaces: true}, "namespaces", true, ""},
		{Caps{Helper: "h", LandlockABI: 3}, "landlock", true, ""},
		{Caps{Helper: "h"}, "", false, "neither unprivileged user namespaces nor Landlock"},
		{Caps{Namespaces: true, LandlockABI: 7}, "", false, "helper was not found"},
	}
	for _, tc := range cases {
		c := tc.c
		describe(&c)
		if c.Method != tc.method || (len(c.Limits) > 0) != tc.limits || !strings.Contains(c.Reason, tc.reasonPart) || (tc.reasonPart == "") != c.Available() {
			t.Errorf("describe(%+v) = method %q limits %q reason %q", tc.c, c.Method, c.Limits, c.Reason)
		}
	}
	if !kernelAtLeast("6.18.2-arch1", 5, 12) || kernelAtLeast("5.10.0", 5, 12) || !kernelAtLeast("5.12-rc1", 5, 12) {
		t.Error("kernelAtLeast")
	}
}

// TestLandlockOnlyMode is the fallback where namespaces are unavailable:
// Landlock alone still confines writes and (ABI 4) TCP.
func TestLandlockOnlyMode(t *testing.T) {
	e := newEnv(t)
	e.caps.Namespaces = false
	describe(&e.caps)
	if e.caps.Method != "landlock" || len(e.caps.Limits) == 0 {
		t.Fatalf("caps without namespaces: %+v", e.caps)
	}
	sb := e.sandbox(WorkspaceWrite, false)
	if out, err := e.sh(sb, "touch $OUTSIDE/ll; sh -c 'touch $HOME/ll'"); err == nil {
		t.Errorf("write outside under Landlock alone succeeded: %q", out)
	}
	for _, p := range []string{filepath.Join(e.outside, "ll"), filepath.Join(e.home, "ll")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was created", p)
		}
	}
	if out, err := e.sh(sb, "echo in > inside.txt"); err != nil {
		t.Errorf("write inside under Landlock alone: %v %q", err, out)
	}
	out, _ := e.sh(sb, "cat $HOME/.ssh/id_rsa $HOME/.netrc; cat $HOME/.bashrc; ls -a $HOME")
	if strings.Contains(out, "PRIVATE-KEY") || strings.Contains(out, "SECRET") {
		t.Errorf("credentials readable under Landlock alone: %q", out)
	}
	if !strings.Contains(out, "# rc") || !strings.Contains(out, ".bashrc\n") {
		t.Errorf("the rest of the home must stay readable and listable: %q", out)
	}
	addr, _ := listen(t)
	if out, err := e.run(sb, Options{}, e.caps.Helper, helper.ConnectArg, addr); err == nil {
		t.Errorf("TCP connect with the network off under Landlock alone succeeded: %q", out)
	}
	if out, err := e.run(sb, Options{Network: true}, e.caps.Helper, helper.ConnectArg, addr); err != nil {
		t.Errorf("TCP connect with the network on: %v %q", err, out)
	}
}

// TestCannotSignalOrReadHostProcesses: a sandboxed command can neither
// kill the user's other processes nor read their environment (aidex's
// own holds API keys).
func TestCannotSignalOrReadHostProcesses(t *testing.T) {
	e := newEnv(t)
	outside := exec.Command("sleep", "60")
	outside.Env = append(os.Environ(), "AIDEX_TEST_SECRET=hunter2")
	if err := outside.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { outside.Process.Kill(); outside.Wait() })
	pid := strconv.Itoa(outside.Process.Pid)
	sb := e.sandbox(WorkspaceWrite, false)
	out, _ := e.sh(sb, "cat /proc/"+pid+"/environ; kill -TERM "+pid)
	if strings.Contains(out, "hunter2") {
		t.Errorf("the sandbox read another process's environment: %q", out)
	}
	var ws syscall.WaitStatus
	if got, err := syscall.Wait4(outside.Process.Pid, &ws, syscall.WNOHANG, nil); got != 0 || err != nil {
		t.Errorf("the process outside was killed from the sandbox: %v %v (output %q)", ws, err, out)
	}
}

// TestStandardStreamsByPath: commands may reopen their pipes through
// /dev/stdout, /dev/stderr and /proc/self/fd, and use /dev/null and
// /dev/shm.
func TestStandardStreamsByPath(t *testing.T) {
	e := newEnv(t)
	out, err := e.sh(e.sandbox(WorkspaceWrite, false),
		"echo one > /dev/stdout && echo two > /dev/stderr && echo three > /proc/self/fd/1 && echo x > /dev/null && echo s > /dev/shm/s && cat /dev/shm/s")
	if err != nil || out != "one\ntwo\nthree\ns\n" {
		t.Errorf("streams by path: %v %q", err, out)
	}
}

// TestGitPointerFileHooksProtected is attack E-032 through the shell: the
// workspace's .git is a "gitdir:" pointer to a git dir outside it that is
// writable (a linked worktree's); its hooks and config stay read-only.
func TestGitPointerFileHooksProtected(t *testing.T) {
	e := newEnv(t)
	real := filepath.Join(filepath.Dir(e.ws), "real.git")
	mustMkdir(t, filepath.Join(real, "hooks"))
	const config = "[core]\n\tworktree = ../linked\n" // the back-pointer (a submodule's)
	mustWrite(t, filepath.Join(real, "config"), config)
	ws := filepath.Join(filepath.Dir(e.ws), "linked")
	mustMkdir(t, ws)
	mustWrite(t, filepath.Join(ws, ".git"), "gitdir: ../real.git\n")
	sb, err := New(Policy{Mode: WorkspaceWrite, Workspace: ws, Writable: []string{real}, Home: e.home}, e.caps)
	if err != nil {
		t.Fatal(err)
	}
	e.ws = ws
	for _, script := range []string{
		"printf '#!/bin/sh\\ncurl evil\\n' > " + filepath.Join(real, "hooks", "post-checkout"),
		"echo '[core] fsmonitor = curl evil' >> " + filepath.Join(real, "config"),
	} {
		if out, err := e.sh(sb, script); err == nil {
			t.Errorf("%q succeeded: %q", script, out)
		}
	}
	if _, err := os.Stat(filepath.Join(real, "hooks", "post-checkout")); err == nil {
		t.Error("a hook was written through the gitdir pointer")
	}
	if got := readFile(t, filepath.Join(real, "config")); got != config {
		t.Errorf("the pointed-to config changed: %q", got)
	}
	if out, err := e.sh(sb, "echo ok > "+filepath.Join(real, "index.lock")+" && echo ok > new.txt"); err != nil {
		t.Errorf("the linked git dir and the workspace must stay writable: %v %q", err, out)
	}
}

// TestHelperGoMaxProcs: the helper runs with GOMAXPROCS=1 (the Go runtime
// starts fewer threads in it: each costs a clone and, on a busy machine,
// a wait for a CPU when the helper starts and ends), and the command gets
// exactly its own GOMAXPROCS setting back, or none.
func TestHelperGoMaxProcs(t *testing.T) {
	e := newEnv(t)
	sb := e.sandbox(WorkspaceWrite, false)
	for _, own := range []string{"", "3"} {
		cmd := exec.Command("/bin/sh", "-c", `echo "${GOMAXPROCS-unset}"`)
		cmd.Dir = e.ws
		cmd.Env = []string{"PATH=/usr/bin:/bin"}
		if own != "" {
			cmd.Env = append(cmd.Env, "GOMAXPROCS="+own)
		}
		if err := sb.Confine(cmd, Options{}); err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(cmd.Env, "GOMAXPROCS=1") || slices.Contains(cmd.Env, "GOMAXPROCS="+own) && own != "" {
			t.Errorf("own %q: the helper's environment is %q, want GOMAXPROCS=1 only", own, cmd.Env)
		}
		out, err := cmd.CombinedOutput()
		want := own
		if want == "" {
			want = "unset"
		}
		if err != nil || strings.TrimSpace(string(out)) != want {
			t.Errorf("own %q: the command saw GOMAXPROCS %q (%v), want %q", own, out, err, want)
		}
	}
}

// TestCapsStart: the check's "start" line says whether spare helpers
// are used, which only a helper with its C part allows.
func TestCapsStart(t *testing.T) {
	for _, c := range []struct {
		caps Caps
		want string
	}{
		{Caps{}, ""},
		{Caps{Namespaces: true, unshares: true}, "set up ahead of it"},
		{Caps{Namespaces: true}, "no helpers set up ahead"},
	} {
		got := c.caps.Start()
		if c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("%+v: %q, want %q", c.caps, got, c.want)
		}
	}
	sb, err := New(Policy{Mode: WorkspaceWrite, Workspace: t.TempDir()}, Caps{Namespaces: true, LandlockABI: 1, Helper: "/x"})
	if err != nil || sb.spares != nil {
		t.Errorf("spares without the C part: %v %v", sb.spares, err)
	}
}
