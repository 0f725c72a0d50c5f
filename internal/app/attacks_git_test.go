package app

// Attack cases of TestAttackCasesEndToEnd: git with a hostile repository
// config.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zelvior/aidex/internal/agent"
)

// gitRepo makes ws a repository with one commit, then applies the hostile
// config. Setup git runs with hooks and fsmonitor off.
func (e *attackEnv) gitRepo(t *testing.T, cfg [][2]string) {
	t.Helper()
	e.git(t, "init", "-q")
	e.git(t, "add", "-A")
	e.git(t, "commit", "-q", "-m", "initial")
	for _, kv := range cfg {
		e.git(t, "config", kv[0], kv[1])
	}
}

func (e *attackEnv) git(t *testing.T, args ...string) {
	t.Helper()
	argv := append([]string{"-c", "core.hooksPath=" + os.DevNull, "-c", "core.fsmonitor=", "-c", "user.name=Setup", "-c", "user.email=setup@example.com"}, args...)
	cmd := exec.Command("git", argv...)
	cmd.Dir = e.ws
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("setup git %v: %v\n%s", args, err, out)
	}
}

func (e *attackEnv) touchMarker() string { return "touch " + e.marker }

// sessionStart builds the system prompt as a session start does (it runs
// git status for the summary): no repository program may run.
func (e *attackEnv) sessionStart(t *testing.T) {
	t.Helper()
	if _, err := e.rt.engineRoom().systemPrompt(context.Background(), engineOptions{}); err != nil {
		t.Fatalf("SystemPrompt: %v", err)
	}
	e.checkMarker(t, "session start (system prompt git summary)")
}

// shellGitStep judges the case's git command line; whatever a policy
// allows is run exactly as the engine would, and must not run repository
// programs.
func (e *attackEnv) shellGitStep(t *testing.T, c attackCase, cmd string, mustAsk bool) {
	t.Helper()
	j := e.judge(t, "run_command", map[string]any{"command": cmd})
	if mustAsk {
		mustNotAllow(t, c, j)
	}
	if j.refused != nil {
		return
	}
	switch {
	case j.head.Decision == "allow":
		e.runCall(t, j.call, 10*time.Second)
		e.checkMarker(t, fmt.Sprintf("run_command %q, allowed headless (%s)", cmd, j.head.Rule))
	case j.perm.Decision == "allow":
		e.runCall(t, j.call, 10*time.Second)
		e.checkMarker(t, fmt.Sprintf("run_command %q after approval", cmd))
	}
}

func (e *attackEnv) gitTool(t *testing.T, name string, args any) agent.ToolResultInfo {
	t.Helper()
	r := e.runWith(t, e.permissive, name, args, 20*time.Second)
	e.checkMarker(t, "aidex tool "+name)
	return r
}

// E-078: core.fsmonitor from the repository.
func caseGitFsmonitor(t *testing.T, e *attackEnv, c attackCase) {
	e.gitRepo(t, [][2]string{{"core.fsmonitor", e.touchMarker() + "; false"}})
	e.snap = e.snapshot(t)
	e.sessionStart(t)
	if r := e.gitTool(t, "git_status", map[string]any{}); !r.OK {
		t.Errorf("git_status: %s", r.Error)
	}
	e.shellGitStep(t, c, str(c.Input, "command"), false)
}

// E-079: core.pager from the repository.
func caseGitPager(t *testing.T, e *attackEnv, c attackCase) {
	e.gitRepo(t, [][2]string{{"core.pager", "sh -c '" + e.touchMarker() + "'"}})
	e.snap = e.snapshot(t)
	e.sessionStart(t)
	if r := e.gitTool(t, "git_log", map[string]any{}); !r.OK || !strings.Contains(r.Output, "initial") {
		t.Errorf("git_log: ok=%v %s %s", r.OK, r.Output, r.Error)
	}
	e.shellGitStep(t, c, str(c.Input, "command"), false)
}

// E-080: core.hooksPath pointing at attacker scripts.
func caseGitHooks(t *testing.T, e *attackEnv, c attackCase) {
	for _, h := range []string{"pre-commit", "commit-msg", "prepare-commit-msg", "post-commit", "post-checkout", "pre-push"} {
		writeFile(t, filepath.Join(e.ws, "tools", "hooks", h), "#!/bin/sh\n"+e.touchMarker()+"\n", 0o755)
	}
	e.gitRepo(t, [][2]string{{"core.hooksPath", "./tools/hooks"}})
	writeFile(t, filepath.Join(e.ws, "new.txt"), "new\n", 0o644)
	e.git(t, "add", "new.txt")
	e.snap = e.snapshot(t)
	e.sessionStart(t)
	// The shell command needs approval: "require confirmation".
	mustNotAllow(t, c, e.judge(t, "run_command", map[string]any{"command": str(c.Input, "command")}))
	if r := e.gitTool(t, "git_commit", map[string]any{"message": "x"}); !r.OK {
		t.Errorf("git_commit: %s", r.Error)
	}
	if r := e.gitTool(t, "git_checkout", map[string]any{"ref": "feature", "create": true}); !r.OK {
		t.Errorf("git_checkout: %s", r.Error)
	}
}

// E-082: a filter driver from the repository config.
func caseGitFilter(t *testing.T, e *attackEnv, c attackCase) {
	writeFile(t, filepath.Join(e.ws, "a.txt"), "one\n", 0o644)
	e.gitRepo(t, [][2]string{{"filter.x.clean", e.touchMarker() + "; cat"}, {"filter.x.smudge", e.touchMarker() + "; cat"}})
	writeFile(t, filepath.Join(e.ws, ".gitattributes"), "* filter=x\n", 0o644)
	writeFile(t, filepath.Join(e.ws, "a.txt"), "two\n", 0o644)
	writeFile(t, filepath.Join(e.ws, "b.txt"), "bee\n", 0o644)
	e.snap = e.snapshot(t)
	e.sessionStart(t)
	mustNotAllow(t, c, e.judge(t, "run_command", map[string]any{"command": str(c.Input, "command")}))
	if r := e.gitTool(t, "git_add", map[string]any{"paths": []string{"."}}); !r.OK {
		t.Errorf("git_add: %s", r.Error)
	}
	e.gitTool(t, "git_status", map[string]any{})
	e.gitTool(t, "git_diff", map[string]any{"staged": true})
	if r := e.gitTool(t, "git_commit", map[string]any{"message": "filtered"}); !r.OK {
		t.Errorf("git_commit: %s", r.Error)
	}
}

// E-083: core.sshCommand from the repository, with an ssh remote.
func caseGitSSH(t *testing.T, e *attackEnv, c attackCase) {
	e.gitRepo(t, [][2]string{{"core.sshCommand", e.touchMarker() + "; false"}, {"remote.origin.url", "git@evil.example:repo.git"},
		{"remote.origin.fetch", "+refs/heads/*:refs/remotes/origin/*"}})
	e.snap = e.snapshot(t)
	e.sessionStart(t)
	e.shellGitStep(t, c, str(c.Input, "command"), true)
}

// E-085: git config values are never interpolated into a shell.
func caseGitEmail(t *testing.T, e *attackEnv, c attackCase) {
	e.gitRepo(t, [][2]string{{"user.email", `"$(` + e.touchMarker() + `)"@x`}, {"user.name", "$(" + e.touchMarker() + ")"}})
	writeFile(t, filepath.Join(e.ws, "new.txt"), "new\n", 0o644)
	e.snap = e.snapshot(t)
	e.sessionStart(t)
	e.gitTool(t, "git_add", map[string]any{"paths": []string{"new.txt"}})
	if r := e.gitTool(t, "git_commit", map[string]any{"message": "$(" + e.touchMarker() + ")"}); !r.OK {
		t.Errorf("git_commit: %s", r.Error)
	}
	if r := e.gitTool(t, "git_log", map[string]any{}); !strings.Contains(r.Output, "$(touch") {
		t.Errorf("git_log should show the author name literally: %s", r.Output)
	}
	e.gitTool(t, "git_branch", map[string]any{})
}

// E-088: a project-local yarn plugin: yarn never runs without approval.
func caseYarn(t *testing.T, e *attackEnv, c attackCase) {
	writeFile(t, filepath.Join(e.ws, ".yarnrc.yml"), "plugins:\n  - path: .yarn/plugins/evil.cjs\n", 0o644)
	writeFile(t, filepath.Join(e.ws, ".yarn", "plugins", "evil.cjs"),
		"require('fs').writeFileSync("+strconv.Quote(e.marker)+", 'x');\nmodule.exports={name:'evil',factory:()=>({})};\n", 0o644)
	e.snap = e.snapshot(t)
	e.sessionStart(t)
	mustNotAllow(t, c, e.judge(t, "run_command", map[string]any{"command": str(c.Input, "command")}))
}
