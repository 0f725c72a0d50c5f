package app

// End-to-end attack cases: every tool:* and shell case of
// /work/shared/security/attacks.jsonl goes through the path the engine
// uses (engineRoom.registry, Runtime.NewWorkspace, engineRoom.policy, toolSet.Prepare,
// engine.Policy.Check, toolSet.Run) in a temporary HOME and workspace.
// This file holds the harness and the generic judges; the cases with
// their own handler are in attacks_*_test.go, one file per theme.

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/zelvior/aidex/internal/app/engine"
	"github.com/zelvior/aidex/internal/attacktest"
	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/tools/search"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/config"
	"github.com/zelvior/aidex/internal/permission"
	"github.com/zelvior/aidex/internal/tools"
)

// attackCase is one line of ../shared/security/attacks.jsonl.
type attackCase = attacktest.Case

// inScope reports the cases this test runs: tool:* and shell surfaces.
func inScope(c attackCase) bool {
	return c.Surface == "shell" || strings.HasPrefix(c.Surface, "tool:")
}

// toolFor maps the case's tool name (other agents' names) to aidex's.
// Unknown tools (archive_extract, web_fetch) stay as they
// are: the registry must refuse them.
func toolFor(c attackCase) string {
	name := strings.TrimPrefix(c.Surface, "tool:")
	switch name {
	case "shell", "bash", "git":
		return "run_command"
	case "glob":
		return "search_files"
	case "list_dir":
		return "list_directory"
	}
	return name
}

func str(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

// attackEnv is one case's world: a temp dir holding the workspace (ws),
// a sibling sharing its prefix (ws_sibling), an outside dir, and HOME.
type attackEnv struct {
	tmp, ws, home, sibling, outside, marker string

	rt  *Runtime
	wsp *permission.Workspace
	reg *tools.Registry
	env *tools.Env
	ts  *toolSet

	// headless: mode ask, cannot ask. interactive: mode ask, can ask.
	// permissive: yolo plus run_command(*). ruled: mode ask with broad
	// allow rules a user might have.
	headless, interactive, permissive, ruled *engine.Policy

	snap map[string]string
	// skipReason is why the case was skipped.
	skipReason string
}

// attackEnvLookup is the runtime's environment: only HOME and PATH.
func attackEnvLookup(home string) func(string) string {
	return func(k string) string {
		switch k {
		case "HOME":
			return home
		case "PATH":
			return os.Getenv("PATH")
		}
		return ""
	}
}

func mkdirs(t *testing.T, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func writeFile(t *testing.T, p, s string, mode os.FileMode) {
	t.Helper()
	mkdirs(t, filepath.Dir(p))
	if err := os.WriteFile(p, []byte(s), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

func newAttackEnv(t *testing.T) *attackEnv {
	t.Helper()
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e := &attackEnv{tmp: tmp, ws: filepath.Join(tmp, "ws"), home: filepath.Join(tmp, "home"),
		sibling: filepath.Join(tmp, "ws_sibling"), outside: filepath.Join(tmp, "outside"), marker: filepath.Join(tmp, "MARKER")}
	mkdirs(t, e.ws, e.sibling, e.outside, filepath.Join(e.ws, "sub"))
	writeFile(t, filepath.Join(tmp, "outside.txt"), "outside\n", 0o644)
	writeFile(t, filepath.Join(e.outside, "secret.txt"), "secret\n", 0o644)
	writeFile(t, filepath.Join(e.outside, "key.pem"), "-----BEGIN PRIVATE KEY-----\n", 0o600)
	writeFile(t, filepath.Join(e.sibling, "keep.txt"), "sibling\n", 0o644)
	writeFile(t, filepath.Join(e.home, ".bashrc"), "# rc\n", 0o644)
	writeFile(t, filepath.Join(e.home, ".ssh", "id_rsa"), "-----BEGIN OPENSSH PRIVATE KEY-----\n", 0o600)
	writeFile(t, filepath.Join(e.home, ".aws", "credentials"), "[default]\naws_secret_access_key=attack-aws-secret\n", 0o600)
	writeFile(t, filepath.Join(e.home, ".config", "gh", "hosts.yml"), "oauth_token: attack-gh-token\n", 0o600)
	writeFile(t, filepath.Join(e.home, ".gitconfig"), "[user]\n\tname = Attack Test\n\temail = attack@example.com\n[init]\n\tdefaultBranch = main\n", 0o644)
	writeFile(t, filepath.Join(e.ws, "notes.txt"), "notes\n", 0o644)
	writeFile(t, filepath.Join(e.ws, "README.md"), "# readme\nlocalhost\n", 0o644)

	rt, err := LoadBase(Options{Workspace: e.ws, Getenv: attackEnvLookup(e.home)})
	if err != nil {
		t.Fatalf("LoadBase: %v", err)
	}
	// The full profile offers the git tools too (a superset of standard:
	// Prepare is the same for the standard tools).
	rt.Config.Tools.Profile = tools.ProfileFull
	rt.Config.PermissionMode = "ask"
	e.rt = rt
	reg, closeTools, err := rt.engineRoom().registry()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(closeTools)
	e.reg = reg
	if e.wsp, err = rt.NewWorkspace(false); err != nil {
		t.Fatal(err)
	}
	e.env = tools.NewEnv(e.wsp)
	e.env.Grep = search.DefaultBackend()
	if e.ts, err = newToolSet(reg, e.env, rt.Profile(), nil); err != nil {
		t.Fatal(err)
	}
	e.headless = e.adapter(t, false, "ask", nil)
	e.interactive = e.adapter(t, true, "ask", nil)
	e.permissive = e.adapter(t, true, "yolo", []string{"run_command(*)"})
	e.ruled = e.adapter(t, true, "ask", []string{"run_command(*)", "write_file(**)", "read_file(**)", "edit_file(**)",
		"grep(**)", "search_files(**)", "list_directory(**)", "delete_file(**)"})
	return e
}

// adapter builds a policy through engineRoom.policy with the given mode and
// extra allow rules.
func (e *attackEnv) adapter(t *testing.T, canAsk bool, mode string, allow []string) *engine.Policy {
	t.Helper()
	saved := *e.rt.Config
	defer func() { *e.rt.Config = saved }()
	e.rt.Config.PermissionMode = mode
	e.rt.Config.Permissions.Allow = slices.Clone(saved.Permissions.Allow)
	for _, r := range allow {
		e.rt.Config.Permissions.Allow = append(e.rt.Config.Permissions.Allow, config.Rule{Text: r, Source: "attacks_test"})
	}
	p, err := e.rt.engineRoom().policy(e.wsp, canAsk, e.reg)
	if err != nil {
		t.Fatalf("Policy(%s): %v", mode, err)
	}
	return &engine.Policy{P: p, ProjectFile: config.ProjectConfigFile(e.ws)}
}

// expand substitutes the case placeholders.
func (e *attackEnv) expand(s string) string {
	s = strings.ReplaceAll(s, "$WS_sibling", e.sibling)
	s = strings.ReplaceAll(s, "$OUTSIDE", filepath.Join(e.outside, "escaped.txt"))
	s = strings.ReplaceAll(s, "$WS", e.ws)
	s = strings.ReplaceAll(s, ".agentcfg", ".aidex")
	return strings.ReplaceAll(s, ".agent/", ".aidex/")
}

// snapshot records every file and directory outside the workspace in tmp
// (mode, size, content hash) plus the system files the cases aim at.
func (e *attackEnv) snapshot(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	_ = filepath.WalkDir(e.tmp, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			out[p] = "error " + err.Error()
			return nil
		}
		if p == e.ws {
			return filepath.SkipDir
		}
		out[p] = describe(p)
		return nil
	})
	for _, p := range []string{"/etc/hosts", "/etc/passwd"} {
		out[p] = describe(p)
	}
	return out
}

func describe(p string) string {
	fi, err := os.Lstat(p)
	if err != nil {
		return "missing"
	}
	if !fi.Mode().IsRegular() {
		return fi.Mode().String()
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return "unreadable"
	}
	return fmt.Sprintf("%s %d %x", fi.Mode(), len(b), sha256.Sum256(b))
}

// checkOutside reports anything created, changed or removed outside the
// workspace since the snapshot.
func (e *attackEnv) checkOutside(t *testing.T) {
	t.Helper()
	if e.snap == nil {
		return
	}
	now := e.snapshot(t)
	var diffs []string
	for p, v := range now {
		if old, ok := e.snap[p]; !ok {
			diffs = append(diffs, "created "+p)
		} else if old != v {
			diffs = append(diffs, "changed "+p)
		}
	}
	for p := range e.snap {
		if _, ok := now[p]; !ok {
			diffs = append(diffs, "removed "+p)
		}
	}
	sort.Strings(diffs)
	if len(diffs) > 0 {
		t.Errorf("something changed outside the workspace: %s", strings.Join(diffs, "; "))
	}
}

// checkMarker fails when a hostile program wrote the marker file, then
// removes it so later steps are judged on their own.
func (e *attackEnv) checkMarker(t *testing.T, step string) {
	t.Helper()
	if _, err := os.Stat(e.marker); err == nil {
		t.Errorf("%s: a program from the repository's config or hooks ran (marker %s was written)", step, e.marker)
		_ = os.Remove(e.marker)
	}
}

func rawArgs(t *testing.T, args any) json.RawMessage {
	t.Helper()
	switch a := args.(type) {
	case string:
		return json.RawMessage(a)
	case json.RawMessage:
		return a
	}
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// judged is a call after Prepare and the policies' Check.
type judged struct {
	call    *agent.Call
	refused *agent.ToolResultInfo
	head    agent.Verdict
	inter   agent.Verdict
	perm    agent.Verdict
	ruled   agent.Verdict
}

func (e *attackEnv) judge(t *testing.T, name string, args any) judged {
	t.Helper()
	call, refused := e.ts.Prepare(name, rawArgs(t, args))
	if refused != nil {
		if refused.OK || refused.Error == "" {
			t.Errorf("Prepare refused %s without an error message: %+v", name, refused)
		}
		return judged{refused: refused}
	}
	return judged{call: call, head: e.headless.Check(call), inter: e.interactive.Check(call),
		perm: e.permissive.Check(call), ruled: e.ruled.Check(call)}
}

func (j judged) String() string {
	if j.refused != nil {
		return "refused by Prepare: " + j.refused.Error
	}
	return fmt.Sprintf("%s %q paths %q: headless %s (%s: %s), interactive %s, yolo %s, ruled %s",
		j.call.Name, j.call.Command, j.call.Paths, j.head.Decision, j.head.Rule, j.head.Reason, j.inter.Decision, j.perm.Decision, j.ruled.Decision)
}

// mustNotAllow: refused by Prepare, or denied headless (with a rule and a
// reason) and asked or denied interactively.
func mustNotAllow(t *testing.T, c attackCase, j judged) {
	t.Helper()
	if j.refused != nil {
		return
	}
	if j.head.Decision != "deny" || j.head.Rule == "" || j.head.Reason == "" {
		t.Errorf("%s: headless must deny with a rule and reason (%s); got %s", c.ID, c.Expected, j)
	}
	if j.inter.Decision == "allow" {
		t.Errorf("%s: interactive ask mode allowed it (%s); got %s", c.ID, c.Expected, j)
	}
	if strings.Contains(c.Expected, "never auto-approved") && j.ruled.Decision == "allow" {
		t.Errorf("%s: broad allow rules auto-approved it (%s); got %s", c.ID, c.Expected, j)
	}
	// A shell line the case says is "Rejected" is denied even when the
	// user could be asked; file tools reject such input at Prepare or Run.
	if strings.HasPrefix(c.Expected, "Rejected") && j.call.Name == "run_command" && j.inter.Decision != "deny" {
		t.Errorf("%s: expected a rejection even when the user can be asked; got %s", c.ID, j)
	}
}

func mustRefuseUnknown(t *testing.T, j judged) {
	t.Helper()
	if j.refused == nil || !strings.Contains(j.refused.Error, "unknown tool") {
		t.Errorf("want the call refused as an unknown tool; got %s", j)
	}
}

// runWith prepares, checks with pol (which must allow) and runs the call.
func (e *attackEnv) runWith(t *testing.T, pol *engine.Policy, name string, args any, timeout time.Duration) agent.ToolResultInfo {
	t.Helper()
	call, refused := e.ts.Prepare(name, rawArgs(t, args))
	if refused != nil {
		t.Fatalf("Prepare %s refused: %s", name, refused.Error)
	}
	if v := pol.Check(call); v.Decision != "allow" {
		t.Fatalf("%s %s: the policy answered %s (%s: %s); the run step needs allow", name, call.Command, v.Decision, v.Rule, v.Reason)
	}
	return e.runCall(t, call, timeout)
}

// runCall runs a prepared call with a deadline; a call that does not
// return within timeout + 15 s fails the test (it would hang the engine).
func (e *attackEnv) runCall(t *testing.T, call *agent.Call, timeout time.Duration) agent.ToolResultInfo {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	done := make(chan agent.ToolResultInfo, 1)
	go func() { done <- runCall(e.ts, ctx, call) }()
	select {
	case r := <-done:
		return r
	case <-time.After(timeout + 15*time.Second):
		t.Fatalf("%s did not return %s after its context deadline", call.Name, 15*time.Second)
	}
	return agent.ToolResultInfo{}
}

func meta(t *testing.T, r agent.ToolResultInfo) tools.Meta {
	t.Helper()
	var m tools.Meta
	if len(r.Meta) > 0 {
		if err := json.Unmarshal(r.Meta, &m); err != nil {
			t.Fatalf("bad metadata %s: %v", r.Meta, err)
		}
	}
	return m
}

// ---- handlers ----

type handler func(t *testing.T, e *attackEnv, c attackCase)

// shellRunIfAllowed lists shell cases that are harmless to run (they
// write inside tmp at worst) when the permissive policy lets them: the
// outside snapshot then proves nothing escaped (aidex has no OS sandbox).
var shellRunIfAllowed = map[string]bool{"E-017": true, "E-020": true, "E-203": true}

// protectedInYolo lists cases that must not be allowed even in yolo mode.
var protectedInYolo = map[string]bool{"E-019": true, "E-090": true, "E-096": true, "E-172": true, "E-032": true, "E-084": true}

func judgeShell(t *testing.T, e *attackEnv, c attackCase) {
	cmd := e.expand(str(c.Input, "command"))
	args := map[string]any{"command": cmd}
	if cwd := str(c.Input, "cwd"); cwd != "" {
		args["cwd"] = cwd
	}
	if to, ok := c.Input["timeout"].(float64); ok {
		args["timeout"] = int(to)
	}
	j := e.judge(t, "run_command", args)
	mustNotAllow(t, c, j)
	if j.refused != nil {
		return
	}
	if protectedInYolo[c.ID] && j.perm.Decision == "allow" {
		t.Errorf("%s: yolo allowed a change to a protected path: %s", c.ID, j)
	}
	if shellRunIfAllowed[c.ID] && j.perm.Decision == "allow" {
		r := e.runCall(t, j.call, 5*time.Second)
		t.Logf("%s ran under yolo: ok=%v %s", c.ID, r.OK, firstLine(r.Output+r.Error))
	}
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return l
}

// setupFromInput performs the generic descriptive setups.
func (e *attackEnv) setupFromInput(t *testing.T, c attackCase) {
	setup := str(c.Input, "setup")
	switch {
	case strings.HasPrefix(setup, "ln -s "):
		f := strings.Fields(setup)
		link := filepath.Join(e.ws, strings.TrimPrefix(f[len(f)-1], "ws/"))
		if err := os.Symlink(f[len(f)-2], link); err != nil {
			t.Fatal(err)
		}
	case strings.Contains(setup, "gitdir:"):
		mkdirs(t, filepath.Join(e.tmp, "real.git", "hooks"))
		writeFile(t, filepath.Join(e.ws, ".git"), "gitdir: ../real.git\n", 0o644)
	}
}

// judgePath runs a file-tool case that must be refused: by Prepare, or by
// the policy; when the path escapes the workspace, the tool itself is run
// too (bypassing the policy) and must refuse on its own.
func judgePath(t *testing.T, e *attackEnv, c attackCase) {
	e.setupFromInput(t, c)
	if c.ID == "E-129" {
		writeFile(t, filepath.Join(e.ws, ".env"), "OPENAI_API_KEY=sk-attack\n", 0o600)
	}
	e.snap = e.snapshot(t)
	args := map[string]any{}
	for k, v := range c.Input {
		switch k {
		case "setup", "note", "technique", "sandbox":
			continue
		}
		if s, ok := v.(string); ok {
			v = e.expand(s)
		}
		args[k] = v
	}
	j := e.judge(t, toolFor(c), args)
	mustNotAllow(t, c, j)
	if j.refused != nil {
		return
	}
	if protectedInYolo[c.ID] && j.perm.Decision == "allow" {
		t.Errorf("%s: yolo allowed a change to a protected path: %s", c.ID, j)
	}
	escapes := false
	for _, p := range j.call.Paths {
		if _, err := e.wsp.Resolve(p); err != nil {
			escapes = true
		}
	}
	if escapes && (j.call.Kind == kind.Read || j.call.Kind == kind.Write) {
		r := e.runCall(t, j.call, 5*time.Second)
		if r.OK || (r.Category != string(tools.CategorySecurity) && r.Category != string(tools.CategoryValidation)) {
			t.Errorf("%s: the tool itself did not refuse the escaping path: ok=%v category=%s %s", c.ID, r.OK, r.Category, r.Error)
		}
	}
	if c.ID == "E-032" {
		// The resolved gitdir target is protected too.
		abs := filepath.Join(e.tmp, "real.git", "hooks", "post-checkout")
		mustNotAllow(t, c, e.judge(t, "write_file", map[string]any{"path": abs, "content": "#!/bin/sh\n"}))
	}
}

func skipAfter(reason string) handler {
	return func(t *testing.T, e *attackEnv, c attackCase) { skipf(t, e, "%s", reason) }
}

// skipf records the reason for the summary and skips the case.
func skipf(t *testing.T, e *attackEnv, format string, args ...any) {
	t.Helper()
	e.skipReason = fmt.Sprintf(format, args...)
	t.Skip(e.skipReason)
}

// handlers lists the cases that need more than judgeShell / judgePath.
func handlers() map[string]handler {
	return map[string]handler{
		"E-008": caseLiteralEdit,
		"E-009": caseLiteralHome,
		"E-012": caseGlobEscape,
		"E-021": caseApplyPatchEscape,
		"E-030": caseDeleteSymlinkRoot,
		"E-031": caseArchive,
		"E-078": caseGitFsmonitor,
		"E-079": caseGitPager,
		"E-080": caseGitHooks,
		"E-082": caseGitFilter,
		"E-083": caseGitSSH,
		"E-085": caseGitEmail,
		"E-088": caseYarn,
		"E-120": caseAgentsMD,
		"E-121": caseWebFetch,
		"E-124": caseInvisibleUnicode,
		"E-126": caseTerminalEscapes,
		"E-130": caseEnvScrubbed,
		"E-135": caseSandboxOnly("OS sandbox: the command's network namespace forbids direct egress (the policy part, curl not auto-allowed, is asserted)"),
		"E-136": caseSandboxOnly("OS sandbox: the command's network namespace has no route out, so no proxy allowlist is needed (the policy part, python3 -c not auto-allowed, is asserted)"),
		"E-141": caseYes,
		"E-142": caseSleepClamp,
		"E-144": caseSparse,
		"E-146": caseFIFO,
		"E-147": caseReDoS,
		"E-148": caseGlobLoop,
		"E-149": caseWriteCap,
		"E-152": caseOutputCap,
		"E-153": skipAfter("agent loop: covered in internal/agent (TestRunLoopDetection: the same call 3 times in a row stops the run; max_tool_turns bounds any other repetition) and internal/cli (TestE2ELoopStopped)"),
		"E-154": caseMalformed,
		"E-155": caseMalformed,
		"E-156": caseMalformed,
		"E-157": caseMalformed,
		"E-159": caseMalformed,
		"E-163": caseAmbiguousEdit,
		"E-164": caseSurrogate,
		"E-167": caseNULToolName,
		"E-168": caseCaseVariantTool,
		"E-179": caseNFC,
		"E-181": caseStaleRead,
		"E-183": caseAtomicWrite,
		"E-184": skipAfter("needs a full filesystem (ENOSPC) during the write: not reproducible in a unit test without privileges to mount a tiny tmpfs; write_file writes a temp file then renames (renameio), so the original is untouched on a failed write"),
		"E-185": caseModeCRLF,
		"E-186": caseCheckpoint,
		"E-189": caseConcurrentSessions,
	}
}

// shellJudgedTools lists tool:bash / tool:git cases the policy decides.
var shellJudgedTools = map[string]bool{
	"E-017": true, "E-018": true, "E-019": true, "E-020": true, "E-087": true, "E-090": true,
	"E-131": true, "E-132": true, "E-134": true, "E-203": true,
}

func TestAttackCasesEndToEnd(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the cases use POSIX shells, symlinks and FIFOs")
	}
	cases := attacktest.Load(t)
	hs := handlers()
	// Child processes (git, the shell) see a temp HOME with no global
	// config but a user name.
	home := t.TempDir()
	writeFile(t, filepath.Join(home, ".gitconfig"), "[user]\n\tname = Attack Test\n\temail = attack@example.com\n[init]\n\tdefaultBranch = main\n", 0o644)
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	var ran, passed int
	var skipped, failed []string
	for _, c := range cases {
		if !inScope(c) {
			continue
		}
		h, ok := hs[c.ID]
		switch {
		case ok:
		case c.Surface == "shell" || shellJudgedTools[c.ID]:
			h = judgeShell
		default:
			h = judgePath
		}
		var started, wasSkipped bool
		var env *attackEnv
		res := t.Run(c.ID, func(t *testing.T) {
			started = true
			defer func() { wasSkipped = t.Skipped() }()
			e := newAttackEnv(t)
			env = e
			defer func() {
				if !t.Skipped() {
					e.checkMarker(t, "end of case")
					e.checkOutside(t)
				}
			}()
			h(t, e, c)
		})
		if !started {
			continue // filtered out by -run
		}
		ran++
		switch {
		case wasSkipped:
			skipped = append(skipped, fmt.Sprintf("%s (%s)", c.ID, env.skipReason))
		case res:
			passed++
		default:
			failed = append(failed, c.ID)
		}
	}
	t.Logf("attacks: %d run, %d passed, %d skipped (%s); failed: %v", ran, passed, len(skipped), strings.Join(skipped, "; "), failed)
	if ran < 100 && !strings.Contains(flagRun(), "/") {
		t.Errorf("only %d tool/shell cases ran; the file has 114", ran)
	}
}

// flagRun returns the -test.run pattern ("" when unset).
func flagRun() string {
	if f := flag.Lookup("test.run"); f != nil {
		return f.Value.String()
	}
	return ""
}

// runCall runs a prepared call, an infrastructure failure as a result
// with category "internal".
func runCall(ts *toolSet, ctx context.Context, call *agent.Call) agent.ToolResultInfo {
	r, err := ts.Run(ctx, call)
	if err != nil {
		return agent.ToolResultInfo{Error: err.Error(), Category: "internal"}
	}
	return r
}
