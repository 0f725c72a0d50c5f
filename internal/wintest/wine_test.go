//go:build linux && amd64

package wintest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// wine is a Wine installation with a prefix of aidex's tests.
type wine struct {
	bin    string // the wine64 loader
	prefix string // WINEPREFIX, with the bcryptprimitives forwarder
	module string // the module root (for go build)
}

// newWine finds wine64 and prepares the prefix (created on first use,
// ~30 s; kept in the user cache folder across runs), or skips.
func newWine(t *testing.T) *wine {
	t.Helper()
	if testing.Short() {
		t.Skip("the Wine tests build aidex for Windows and start Wine; skipped with -short")
	}
	bin := ""
	for _, c := range []string{"/usr/lib/wine/wine64", "wine64", "wine"} {
		if p, err := exec.LookPath(c); err == nil {
			bin = p
			break
		}
	}
	if bin == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("wine64 is not installed; .ci/run installs it (apt-get install wine64)")
		}
		t.Skip("wine64 is not installed (apt-get install wine64): the Windows build is not run")
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	w := &wine{bin: bin, prefix: filepath.Join(cache, "aidex-ci", "wine-prefix")}
	if p := os.Getenv("AIDEX_WINE_PREFIX"); p != "" {
		w.prefix = p
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	w.module = root
	sys32 := filepath.Join(w.prefix, "drive_c", "windows", "system32")
	if _, err := os.Stat(sys32); err != nil {
		if err := os.MkdirAll(w.prefix, 0o755); err != nil {
			t.Fatal(err)
		}
		// wineboot's exit status varies with what it had to set up; the
		// prefix's system32 folder is what counts.
		out, err := w.cmd(context.Background(), "", "wineboot", "-i").CombinedOutput()
		if _, serr := os.Stat(sys32); serr != nil {
			t.Fatalf("wineboot -i did not create the prefix %s (%v):\n%s", w.prefix, err, out)
		}
	}
	dll, err := os.ReadFile(filepath.Join("testdata", "bcryptprimitives.dll"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sys32, "bcryptprimitives.dll"), dll, 0o644); err != nil {
		t.Fatalf("install the ProcessPrng forwarder: %v", err)
	}
	return w
}

// cmd is wine64 running args in dir (a Linux path; "" for the current).
func (w *wine) cmd(ctx context.Context, dir string, args ...string) *exec.Cmd {
	c := exec.CommandContext(ctx, w.bin, args...)
	c.Dir = dir
	c.Env = append(os.Environ(), "WINEPREFIX="+w.prefix, "WINEDEBUG=-all", "WINEDLLOVERRIDES=mscoree,mshtml=")
	c.WaitDelay = 5 * time.Second
	return c
}

// build cross-compiles for windows/amd64: "go build -o out pkg" or, with
// test, "go test -c -o out pkg".
func (w *wine) build(t *testing.T, out, pkg string, test bool) {
	t.Helper()
	args := []string{"build", "-o", out, pkg}
	if test {
		args = []string{"test", "-c", "-o", out, pkg}
	}
	c := exec.Command("go", args...)
	c.Dir = w.module
	c.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0")
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// wineOnly is the one failure Wine 8 adds to a Go 1.26 test: t.TempDir's
// os.RemoveAll (see the package doc).
func wineOnly(line string) bool {
	return strings.Contains(line, "TempDir RemoveAll cleanup") && strings.Contains(line, "Invalid function")
}

// testEvent is one line of go tool test2json.
type testEvent struct {
	Action, Test, Output string
}

// runTests runs the test binary exe under Wine with -test.run pattern and
// fails t for every test that failed for a reason other than wineOnly. A
// test whose only failure is Wine's own refusal to start a process
// (wineStartFailure) is run once more, alone.
func (w *wine) runTests(t *testing.T, exe, pattern string) {
	for _, name := range w.runOnce(t, exe, pattern, false) {
		w.runOnce(t, exe, "^"+regexp.QuoteMeta(name)+"$", true)
	}
}

// wineStartFailure is Wine failing CreateProcess itself ("fork/exec ...:
// Internal error."), seen on a loaded CI machine: not the test's doing.
func wineStartFailure(lines []string) bool {
	for _, l := range lines {
		if strings.Contains(l, "fork/exec") && strings.Contains(l, "Internal error") {
			return true
		}
	}
	return false
}

// runOnce is one run of runTests; it returns the top-level names of the
// tests that failed only by wineStartFailure (none when last: they fail).
func (w *wine) runOnce(t *testing.T, exe, pattern string, last bool) (again []string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c := w.cmd(ctx, filepath.Dir(exe), exe, "-test.v=test2json", "-test.count=1", "-test.run", pattern)
	raw, err := c.Output()
	if ctx.Err() != nil {
		t.Fatalf("%s timed out under Wine:\n%s", filepath.Base(exe), tail(raw))
	}
	conv := exec.Command("go", "tool", "test2json")
	conv.Stdin = bytes.NewReader(raw)
	js, cerr := conv.Output()
	if cerr != nil {
		t.Fatalf("test2json: %v (wine: %v)\n%s", cerr, err, tail(raw))
	}
	out := map[string][]string{}
	var failed, passed []string
	sc := bufio.NewScanner(bytes.NewReader(js))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var ev testEvent
		if json.Unmarshal(sc.Bytes(), &ev) != nil || ev.Test == "" {
			continue
		}
		switch ev.Action {
		case "output":
			out[ev.Test] = append(out[ev.Test], ev.Output)
		case "fail":
			failed = append(failed, ev.Test)
		case "pass":
			passed = append(passed, ev.Test)
		}
	}
	if len(failed)+len(passed) == 0 {
		t.Fatalf("%s -test.run %q ran no test under Wine (%v):\n%s", filepath.Base(exe), pattern, err, tail(raw))
	}
	for _, name := range failed {
		if anyChildFailed(name, failed) {
			continue // judged by its subtests
		}
		var real []string
		for _, l := range out[name] {
			s := strings.TrimSpace(l)
			if s == "" || strings.HasPrefix(s, "=== ") || strings.HasPrefix(s, "--- ") || wineOnly(s) {
				continue
			}
			real = append(real, s)
		}
		if len(real) > 0 || !hasWineOnly(out[name]) {
			if !last && wineStartFailure(out[name]) {
				again = append(again, strings.SplitN(name, "/", 2)[0])
				continue
			}
			t.Errorf("%s: %s failed under Wine:\n%s", filepath.Base(exe), name, strings.Join(out[name], ""))
		}
	}
	t.Logf("%s: %d tests passed under Wine, %d failed only at Wine's t.TempDir cleanup", filepath.Base(exe), len(passed), len(failed))
	return slices.Compact(again)
}

func hasWineOnly(lines []string) bool {
	for _, l := range lines {
		if wineOnly(l) {
			return true
		}
	}
	return false
}

// anyChildFailed: a parent test fails with its subtests.
func anyChildFailed(name string, failed []string) bool {
	for _, f := range failed {
		if strings.HasPrefix(f, name+"/") {
			return true
		}
	}
	return false
}

func tail(b []byte) string {
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// windowsTests are the packages whose behaviour differs on Windows and
// their tests that hold there (the others assume a POSIX system: /proc,
// sh, symlinks).
var windowsTests = []struct{ pkg, run string }{
	{"./internal/ospath", "."},
	{"./internal/cmdshell", "."},
	// TestResolve's symlink cases are left out: Wine shows links as folders.
	{"./internal/permission", "TestWindowsShPaths|TestWindowsHostArg|TestPowerShellNoBuiltinReadOnly|TestShortNames|TestJoinRoot|TestValidate|FuzzResolve|FuzzWindowsShPaths"},
	{"./internal/tools/proc", "TestRunEndsGrandchildren|TestHeadTail"},
	{"./internal/mcp", "TestStdioServerEndsWithItsChildren"},
	{"./internal/session", "TestDSN|TestWorkspaceKey|TestSessionsOfOneWorkspace"},
	{"./internal/tools/search", "TestGrepToolBothBackends"},
	{"./internal/tools/file", "TestEditFile$|TestLineTools$"},
	{"./internal/config", "TestDefaults|TestPrecedence|TestPaths"},
}

// TestWindowsPackagesUnderWine runs the Windows test binaries of the
// packages whose behaviour differs on Windows.
func TestWindowsPackagesUnderWine(t *testing.T) {
	w := newWine(t)
	dir := t.TempDir()
	for _, c := range windowsTests {
		t.Run(strings.TrimPrefix(c.pkg, "./internal/"), func(t *testing.T) {
			exe := filepath.Join(dir, strings.ReplaceAll(strings.TrimPrefix(c.pkg, "./"), "/", "_")+".test.exe")
			w.build(t, exe, c.pkg, true)
			w.runTests(t, exe, c.run)
		})
	}
}
