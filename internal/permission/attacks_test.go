package permission

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/attacktest"
	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/permission/shell"
)

// attackCase is one line of ../shared/security/attacks.jsonl.
type attackCase = attacktest.Case

func str(m map[string]any, k string) (string, bool) {
	v, ok := m[k].(string)
	return v, ok
}

// agentDirAlias maps the generic agent-config directory names used by the
// cases (.agent, .agentcfg) to aidex's own (.aidex).
func agentDirAlias(s string) string {
	s = strings.ReplaceAll(s, ".agentcfg", ".aidex")
	return strings.ReplaceAll(s, ".agent/", ".aidex/")
}

// shellJudged lists tool:bash / tool:git cases whose expectation the
// policy alone decides (the command must not run without approval).
var shellJudged = map[string]bool{
	"E-017": true, "E-018": true, "E-019": true, "E-020": true, "E-087": true, "E-090": true,
	"E-130": true, "E-131": true, "E-132": true, "E-134": true, "E-203": true,
}

// protectedInYolo lists cases that must ask even in yolo mode.
var protectedInYolo = map[string]bool{"E-019": true, "E-090": true, "E-096": true, "E-172": true, "E-032": true}

// notPolicy explains cases that need another component.
var notPolicy = map[string]string{
	"E-012": "tools: glob must filter results (the policy refuses ../.. as a root)",
	"E-031": "tools: archive extraction must reject symlink members",
	"E-078": "tools: git must run with -c core.fsmonitor= (the policy lets `git status` run)",
	"E-079": "tools: git must run with --no-pager / GIT_PAGER=cat",
	"E-080": "tools: git must run with -c core.hooksPath=/dev/null",
	"E-082": "tools: git filter drivers need the tool's safe git flags",
	"E-083": "tools: repo sshCommand ignored by the git tool (the policy asks for git fetch)",
	"E-085": "tools: argv-only exec of git config values",
	"E-088": "front end / config: workspace trust before package-manager plugins run",
	"E-126": "front end: escape terminal sequences in tool output",
	"E-135": "OS sandbox: network namespace (the policy asks for curl)",
	"E-136": "OS sandbox / proxy: hostname validation (the policy asks for python3 -c)",
	"E-141": "tools: output cap and timeout",
	"E-142": "tools: timeout clamp and process-group kill",
	"E-152": "tools: output line caps",
	"E-153": "agent loop: doom-loop detection",
	"E-186": "tools/session: snapshot before risky shell commands (the policy asks for rm -rf src)",
	"E-179": "NFC/NFD: protected names are ASCII, so normalisation cannot forge .git; no separate check",
	"E-146": "tools: reject FIFOs and other non-regular files on open",
}

type judgeResult struct {
	headless, ask, yolo, ruled Verdict
}

func TestAttackCases(t *testing.T) {
	cases := attacktest.Load(t)
	counts := map[string]int{}
	var needOther []string
	for _, c := range cases {
		if why, ok := notPolicy[c.ID]; ok {
			needOther = append(needOther, c.ID+" ("+c.Surface+"): "+why)
			counts["needs another component"]++
			continue
		}
		switch {
		case c.Surface == "shell" || shellJudged[c.ID]:
			cmd, ok := str(c.Input, "command")
			if !ok {
				needOther = append(needOther, c.ID+" ("+c.Surface+"): no command; "+c.Expected)
				counts["needs another component"]++
				continue
			}
			t.Run(c.ID, func(t *testing.T) { judgeShell(t, c, agentDirAlias(cmd)) })
			counts["shell judged"]++
		case strings.HasPrefix(c.Surface, "tool:") && pathCase(c):
			t.Run(c.ID, func(t *testing.T) { judgePath(t, c) })
			counts["path judged"]++
		default:
			counts["other surfaces (web, config, cli, provider, tools)"]++
		}
	}
	sort.Strings(needOther)
	t.Logf("attack cases: %d total; %v", len(cases), counts)
	for _, n := range needOther {
		t.Logf("not decided by the policy: %s", n)
	}
	if counts["shell judged"] < 40 {
		t.Errorf("only %d shell cases judged; expected the 40+ shell cases of the file", counts["shell judged"])
	}
}

// pathCase reports tool cases judged by Resolve + Check.
func pathCase(c attackCase) bool {
	switch c.Category {
	case "path_escape", "symlink", "windows_unicode_path":
		return true
	}
	return c.ID == "E-129" || c.ID == "E-096" || c.ID == "E-145"
}

func newAttackPolicies(t *testing.T, root, home string, extraRules []Rule) (headless, ask, yolo, ruled *Policy) {
	t.Helper()
	ws, err := NewWorkspace(root, WorkspaceOptions{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	mk := func(mode Mode, canAsk bool, rules []Rule) *Policy {
		p, err := NewPolicy(PolicyConfig{Mode: mode, SafeMode: true, Workspace: ws, CanAsk: canAsk, Rules: rules})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	return mk(ModeAsk, false, nil), mk(ModeAsk, true, nil), mk(ModeYolo, true, nil), mk(ModeAsk, true, extraRules)
}

func judgeShell(t *testing.T, c attackCase, cmd string) {
	f := newFixture(t)
	rules := attackRules(t, c, cmd)
	headless, ask, yolo, ruled := newAttackPolicies(t, f.root, f.home, rules)
	req := Request{Tool: CommandTool, Kind: kind.Exec, Command: cmd}
	if cwd, ok := str(c.Input, "cwd"); ok {
		req.Paths = []string{cwd}
	}
	hv := headless.Check(req)
	if hv.Decision != Deny {
		t.Errorf("%s %q: headless decision %s, want deny (%s)\n%s", c.ID, cmd, hv.Decision, c.Expected, Explain(hv))
	}
	if hv.Reason == "" || hv.Rule == "" {
		t.Errorf("%s: verdict without rule or reason: %+v", c.ID, hv)
	}
	av := ask.Check(req)
	if av.Decision == Allow {
		t.Errorf("%s %q: ask mode allowed it (%s)\n%s", c.ID, cmd, c.Expected, Explain(av))
	}
	if rv := ruled.Check(req); rules != nil && rv.Decision == Allow {
		t.Errorf("%s %q: allowed by a broad allow rule %s (%s)\n%s", c.ID, cmd, rv.Rule, c.Expected, Explain(rv))
	}
	if protectedInYolo[c.ID] {
		if yv := yolo.Check(req); yv.Decision == Allow {
			t.Errorf("%s %q: yolo allowed a protected-path change\n%s", c.ID, cmd, Explain(yv))
		}
	}
	if strings.HasPrefix(c.Expected, "Rejected") && av.Decision != Deny {
		t.Errorf("%s %q: expected rejection even when the user can be asked, got %s\n%s", c.ID, cmd, av.Decision, Explain(av))
	}
}

// payloadBases are the commands an attack case is about; allow rules for
// the other (benign-looking) commands of a line must not approve it.
var payloadBases = map[string]bool{
	"curl": true, "wget": true, "nc": true, "ping": true, "nslookup": true, "dig": true, "host": true, "ssh": true,
	"rm": true, "printenv": true, "env": true, "python3": true, "python": true, "node": true, "perl": true,
	"sh": true, "bash": true, "zsh": true, "less": true, "vim": true, "touch": true, "mv": true, "cat": true,
}

// attackRules returns the allow rules a user might plausibly have for the
// case: for "never auto-approved" cases, a rule for every command and
// wrapper plus run_command(*); otherwise rules for the commands and
// wrappers that are not the payload. nil means no rule-based check.
func attackRules(t *testing.T, c attackCase, cmd string) []Rule {
	t.Helper()
	switch c.ID {
	case "E-211", "E-212", "E-213":
		return nil // about the built-in read-only list; a user rule for git is explicit
	}
	never := strings.Contains(c.Expected, "never auto-approved")
	var specs []string
	for _, sc := range shell.Analyze(cmd).Commands {
		for _, w := range sc.Wrappers {
			specs = append(specs, CommandTool+"("+strings.Fields(w)[0]+" *)")
		}
		if sc.NonLiteral {
			continue
		}
		base := sc.FoldedBase()
		if never || !payloadBases[base] {
			specs = append(specs, CommandTool+"("+base+" *)")
		}
	}
	if never {
		specs = append(specs, CommandTool+"(*)", "write_file(**)", "read_file(**)")
	}
	rules, err := ParseRules(Allow, "test-rules", specs)
	if err != nil {
		t.Fatal(err)
	}
	return rules
}

// literalOK lists path cases where treating the path literally inside the
// workspace is the expected safe outcome.
var literalOK = map[string]bool{"E-008": true, "E-009": true}

func judgePath(t *testing.T, c attackCase) {
	f := newFixture(t)
	p, _ := str(c.Input, "path")
	p = strings.ReplaceAll(p, "$WS_sibling", f.sibling)
	setupPathCase(t, f, c)
	tool := strings.TrimPrefix(c.Surface, "tool:")
	k := kind.Write
	switch tool {
	case "read_file", "list_dir", "grep", "glob":
		k = kind.Read
	}
	rules, err := ParseRules(Allow, "test-rules", []string{"write_file(**)", "read_file(**)", tool + "(**)"})
	if err != nil {
		t.Fatal(err)
	}
	headless, ask, yolo, ruled := newAttackPolicies(t, f.root, f.home, rules)
	req := Request{Tool: tool, Kind: k, Paths: casePaths(c, p)}
	if literalOK[c.ID] {
		v := yolo.Check(req)
		want := filepath.Join(f.root, filepath.FromSlash(p))
		if v.Decision != Allow || len(v.Resolved) != 1 || v.Resolved[0] != want {
			t.Errorf("%s %q: want the literal in-workspace path %s, got %+v", c.ID, p, want, v)
		}
		return
	}
	checkPathVerdicts(t, c, req, judgeResult{headless: headless.Check(req), ask: ask.Check(req), yolo: yolo.Check(req), ruled: ruled.Check(req)})
	// Nothing outside the workspace was created by checking.
	if _, err := os.Stat(filepath.Join(f.tmp, "pwned.txt")); err == nil {
		t.Errorf("%s: a file appeared outside the workspace", c.ID)
	}
}

// setupPathCase prepares the case's "setup": a symlink, or a .git file
// pointing at a git directory outside the workspace.
func setupPathCase(t *testing.T, f fixture, c attackCase) {
	setup, _ := str(c.Input, "setup")
	switch {
	case strings.HasPrefix(setup, "ln -s "):
		fields := strings.Fields(setup)
		link := filepath.Join(f.root, strings.TrimPrefix(fields[len(fields)-1], "ws/"))
		mustSymlink(t, fields[len(fields)-2], link)
	case strings.Contains(setup, "gitdir:"):
		if err := os.RemoveAll(filepath.Join(f.root, ".git")); err != nil {
			t.Fatal(err)
		}
		mustMkdir(t, filepath.Join(f.tmp, "real.git", "hooks"))
		mustWrite(t, filepath.Join(f.root, ".git"), "gitdir: ../real.git\n")
	}
}

// casePaths returns the paths the case's tool call touches: the pattern
// of a glob, the files of a patch, or the path.
func casePaths(c attackCase, p string) []string {
	if pat, ok := str(c.Input, "pattern"); ok && c.Surface == "tool:glob" {
		return []string{pat}
	}
	if patch, ok := str(c.Input, "patch"); ok {
		var paths []string
		for _, l := range strings.Split(patch, "\n") {
			for _, pfx := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: "} {
				if v, ok := strings.CutPrefix(l, pfx); ok {
					paths = append(paths, v)
				}
			}
		}
		return paths
	}
	return []string{p}
}

// checkPathVerdicts: denied headless, never allowed when asking, by a
// broad allow rule or in yolo mode, and denied in every mode when the case
// expects "Blocked" (protected paths ask instead).
func checkPathVerdicts(t *testing.T, c attackCase, req Request, j judgeResult) {
	t.Helper()
	paths := req.Paths
	if j.headless.Decision != Deny || j.headless.Reason == "" {
		t.Errorf("%s %q: headless decision %s, want deny (%s)\n%s", c.ID, paths, j.headless.Decision, c.Expected, Explain(j.headless))
	}
	if j.ask.Decision == Allow {
		t.Errorf("%s %q: ask mode allowed it (%s)\n%s", c.ID, paths, c.Expected, Explain(j.ask))
	}
	if j.ruled.Decision == Allow {
		t.Errorf("%s %q: allowed by a broad allow rule (%s)\n%s", c.ID, paths, c.Expected, Explain(j.ruled))
	}
	if j.yolo.Decision == Allow {
		t.Errorf("%s %q: yolo allowed it\n%s", c.ID, paths, Explain(j.yolo))
	}
	if strings.HasPrefix(c.Expected, "Blocked") && j.yolo.Decision != Deny && !protectedInYolo[c.ID] {
		t.Errorf("%s %q: expected blocked in every mode, yolo gave %s", c.ID, paths, j.yolo.Decision)
	}
}
