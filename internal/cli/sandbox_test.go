package cli

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/sandbox"
)

// --sandbox takes the modes Codex names, on every command that runs
// commands; anything else is bad usage naming the allowed values.
func TestSandboxFlagRejectsUnknownMode(t *testing.T) {
	e := newE2E(t, llmtest.NewScript(t), "openai", "")
	for _, args := range [][]string{
		{"-p", "hi", "--sandbox", "strict"},
		{"exec", "--sandbox", "strict", "hi"},
		{"web", "--sandbox", "strict"},
		{"ralph", "run", "--sandbox", "strict"},
		{"tool", "run_command", "--args", `{"command":"true"}`, "--sandbox", "strict"},
		{"sandbox", "check", "--sandbox", "strict"},
	} {
		r := e.run(context.Background(), args...)
		if r.code != ExitUsage || !strings.Contains(r.stderr, `--sandbox: sandbox mode "strict": use read-only, workspace-write or off (danger-full-access)`) {
			t.Errorf("%v: exit %d, stderr %s", args, r.code, r.stderr)
		}
	}
}

// With the default mode, a machine that cannot sandbox gets one warning
// at start and the run goes on; a mode asked for with --sandbox fails
// closed (attack case E-200); --sandbox off runs without a word.
func TestSandboxStartNoticeAndFailClosed(t *testing.T) {
	caps := sandbox.Probe()
	script := llmtest.NewScript(t, llmtest.Turn{Text: "done"}, llmtest.Turn{Text: "done"}, llmtest.Turn{Text: "done"})
	e := newE2E(t, script, "openai", "")
	r := e.run(context.Background(), "-p", "hi")
	if r.code != ExitOK {
		t.Fatalf("default mode: exit %d, stderr %s", r.code, r.stderr)
	}
	warned := strings.Count(r.stderr, "aidex: warning: commands are not sandboxed: ")
	if caps.Available() != (warned == 0) || warned > 1 {
		t.Errorf("available %v, warned %d times: %s", caps.Available(), warned, r.stderr)
	}

	r = e.run(context.Background(), "-p", "hi", "--sandbox", "workspace-write")
	if caps.Available() {
		if r.code != ExitOK {
			t.Errorf("--sandbox workspace-write on a machine that sandboxes: exit %d, stderr %s", r.code, r.stderr)
		}
	} else if r.code != ExitUsage || !strings.Contains(r.stderr, "run with --sandbox off") ||
		!strings.Contains(r.stderr, "(--sandbox)") || !strings.Contains(r.stderr, caps.Reason) {
		t.Errorf("--sandbox workspace-write without a sandbox: exit %d, stderr %s", r.code, r.stderr)
	}

	r = e.run(context.Background(), "-p", "hi", "--sandbox", "off")
	if r.code != ExitOK || strings.Contains(r.stderr, "sandbox") {
		t.Errorf("--sandbox off: exit %d, stderr %s", r.code, r.stderr)
	}
}

// `aidex sandbox check` prints the capabilities and passes only when the
// sandbox works here; on a machine that sandboxes, every class of the
// escape suite shows held (CI machines have Landlock and every namespace).
func TestSandboxCheckCommand(t *testing.T) {
	e := newE2E(t, llmtest.NewScript(t), "openai", "")
	r := e.run(context.Background(), "sandbox", "check")
	for _, row := range []string{"mode:", "Landlock:", "namespaces:", "helper:", "network isolation:", "writable:", "hidden:"} {
		if !strings.Contains(r.stdout, "\n"+row) && !strings.HasPrefix(r.stdout, row) {
			t.Errorf("no %q row in:\n%s", row, r.stdout)
		}
	}
	caps := sandbox.Probe()
	if caps.Namespaces && !strings.Contains(r.stdout, "\nstart:") {
		t.Errorf("no start row with namespaces:\n%s", r.stdout)
	}
	switch {
	case !caps.Available() && (r.code != ExitFailure || !strings.Contains(r.stdout, "commands cannot be sandboxed here: "+caps.Reason)):
		t.Errorf("unavailable: exit %d, stdout %s", r.code, r.stdout)
	case caps.Available() && (r.code != ExitOK || !strings.Contains(r.stdout, "escape suite") || strings.Contains(r.stdout, "FAIL")):
		t.Errorf("available: exit %d, stdout %s stderr %s", r.code, r.stdout, r.stderr)
	}
	if !caps.Available() || caps.LandlockABI < 6 || !caps.Namespaces {
		return
	}
	for _, class := range sandbox.Classes() {
		want := "held"
		if class == sandbox.ClassControls {
			want = "works"
		}
		if !regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(class) + `: +` + want + `$`).MatchString(r.stdout) {
			t.Errorf("class %q does not show %s:\n%s", class, want, r.stdout)
		}
	}
}

func TestWriteSandboxCheck(t *testing.T) {
	caps := sandbox.Caps{LandlockABI: 7, Namespaces: true, Helper: "/usr/local/bin/aidex-sandbox"}
	pol := sandbox.Policy{Workspace: "/ws", Writable: []string{"/tmp"}, Hidden: []string{"/home/u/.config/aidex"},
		Caches: []sandbox.Cache{{Name: "Go build cache", Host: "/home/u/.cache/go-build", Private: "/c/go-build"},
			{Name: "npm cache and npx packages", Host: "/home/u/.npm", Private: "/c/npm", Note: "empty"}}}
	var b bytes.Buffer
	ok := writeSandboxCheck(&b, app.SandboxInfo{Mode: sandbox.WorkspaceWrite, Caps: caps}, pol, []sandbox.Check{
		{Class: sandbox.ClassControls, Name: "write inside the workspace", OK: true},
		{Class: sandbox.ClassOutside, Name: "write outside", OK: false, Note: "the write succeeded"},
		{Class: sandbox.ClassGitDir, Name: "append to .git/config", OK: true, Note: "Read-only file system"},
		{Class: sandbox.ClassIPC, Name: "see shared memory", OK: true, Unavailable: "no System V shared memory here"},
	})
	want := `mode:              workspace-write (default)
Landlock:          ABI 7
namespaces:        user, mount, PID, IPC and network
helper:            /usr/local/bin/aidex-sandbox
start:             aidex creates the namespaces for each command (the helper has no C part: built without cgo, or aidex itself); no helpers set up ahead
network isolation: a network namespace with only its own loopback; no Unix socket but the sandbox's own
writable:          /ws, /tmp
private caches:    Go build cache: /c/go-build (yours, /home/u/.cache/go-build, stays read-only)
                   npm cache and npx packages: /c/npm (yours, /home/u/.npm, stays read-only); empty
hidden:            /home/u/.config/aidex
escape suite (each attempt ran in the sandbox, over a scratch workspace, network off):
  controls:                        works
  writes outside the writable set: BROKEN (write outside)
  the git dir:                     held
  IPC:                             not available here (no System V shared memory here)
attempts:
  ok   controls: write inside the workspace
  FAIL writes outside the writable set: write outside: the write succeeded
  ok   the git dir: append to .git/config: Read-only file system
  n/a  IPC: see shared memory: not available here: no System V shared memory here
`
	if ok || b.String() != want {
		t.Errorf("ok %v, output:\n%s", ok, b.String())
	}
	b.Reset()
	if writeSandboxCheck(&b, app.SandboxInfo{Mode: sandbox.WorkspaceWrite, Caps: caps, Explicit: true}, pol, []sandbox.Check{{Name: "x", OK: true}}) != true {
		t.Errorf("all checks held but the check failed:\n%s", b.String())
	}
	b.Reset()
	landlock := sandbox.Caps{LandlockABI: 7, Helper: "/h", Limits: []string{"credential files are readable", "TCP only"}}
	writeSandboxCheck(&b, app.SandboxInfo{Mode: sandbox.WorkspaceWrite, Caps: landlock}, pol, []sandbox.Check{{Name: "x", OK: true}})
	if !strings.Contains(b.String(), "namespaces:        not available\n") || !strings.Contains(b.String(), "limits:            credential files are readable; TCP only\n") ||
		!strings.Contains(b.String(), "network isolation: Landlock TCP rules") {
		t.Errorf("Landlock alone:\n%s", b.String())
	}
	b.Reset()
	if writeSandboxCheck(&b, app.SandboxInfo{Caps: sandbox.Caps{Reason: "no Landlock"}}, pol, nil) ||
		!strings.Contains(b.String(), "commands cannot be sandboxed here: no Landlock\n") {
		t.Errorf("unavailable:\n%s", b.String())
	}
}

// TestSandboxCheckOnWindows prints only what applies on Windows: no
// Linux layer (Landlock, namespaces, helper, caches, hidden paths).
func TestSandboxCheckOnWindows(t *testing.T) {
	var b bytes.Buffer
	caps := sandbox.Caps{Reason: "sandbox: not supported on windows yet: commands are not sandboxed (see docs/sandbox.md)"}
	pol := sandbox.Policy{Workspace: `C:\code\proj`, Writable: []string{`C:\Temp`}, Hidden: []string{`C:\Users\u\AppData\Roaming\aidex`}}
	if writeSandboxCheckFor(&b, "windows", app.SandboxInfo{Mode: sandbox.WorkspaceWrite, Caps: caps}, pol, nil) {
		t.Error("no sandbox, yet the check passed")
	}
	out := b.String()
	for _, no := range []string{"Landlock", "namespaces", "helper:", "network isolation", "private caches", "hidden:"} {
		if strings.Contains(out, no) {
			t.Errorf("the Windows check prints %q, which does not apply there:\n%s", no, out)
		}
	}
	for _, want := range []string{"mode:              workspace-write (default)", "none on Windows", "Job Object", `C:\code\proj`, "docs/sandbox.md"} {
		if !strings.Contains(out, want) {
			t.Errorf("the Windows check lacks %q:\n%s", want, out)
		}
	}
}
