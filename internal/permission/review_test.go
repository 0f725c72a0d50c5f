package permission

import (
	"path/filepath"
	"testing"

	"github.com/zelvior/aidex/internal/kind"
)

// TestReadOnlyOptionAbbreviations: GNU getopt accepts abbreviated long
// options and bundled short ones, so "sort --compress-p=sh" runs a program
// and "sort -nruo FILE" writes FILE; neither is read-only.
func TestReadOnlyOptionAbbreviations(t *testing.T) {
	f := newFixture(t)
	for _, mode := range []Mode{ModePlan, ModeAsk} {
		p := newPolicy(t, f, mode, true)
		for _, line := range []string{
			"sort --compress-p=sh -S1 inside.txt", "sort --o=out.txt inside.txt", "sort --outp out.txt inside.txt",
			"sort -nruo out.txt inside.txt", "sort -nruoout.txt inside.txt", "date --se=2020-01-01", "tree -ofoo",
		} {
			if v := p.Check(execReq(line)); v.Decision == Allow {
				t.Errorf("mode %s: %q allowed (%s: %s), want ask or deny", mode, line, v.Rule, v.Reason)
			}
		}
	}
}

// TestSortAbbreviatedOutputIsWrite: an allow rule for sort must not let
// "--o=.git/hooks/pre-commit" or "-nruo .git/..." write a protected path.
func TestSortAbbreviatedOutputIsWrite(t *testing.T) {
	f := newFixture(t)
	p := newPolicy(t, f, ModeAsk, true, rule(t, Allow, "run_command(sort *)"))
	for _, line := range []string{"sort --o=.git/hooks/pre-commit x", "sort -nruo.git/hooks/pre-commit x",
		"sort --outp=.git/config x"} {
		if v := p.Check(execReq(line)); v.Decision == Allow {
			t.Errorf("%q allowed (%s: %s), want ask", line, v.Rule, v.Reason)
		}
	}
	if v := p.Check(execReq("sort -n inside.txt")); v.Decision != Allow {
		t.Errorf("sort -n: got %s (%s), want allow", v.Decision, v.Reason)
	}
}

// TestReadOnlyWithEnvPrefix: RIPGREP_CONFIG_PATH=cfg makes rg read
// --pre=sh from a file; GIT_TRACE=/path makes git write anywhere.
func TestReadOnlyWithEnvPrefix(t *testing.T) {
	f := newFixture(t)
	p := newPolicy(t, f, ModePlan, true)
	for _, line := range []string{"RIPGREP_CONFIG_PATH=cfg rg x", "GIT_TRACE=/tmp/x git status", "FOO=1 cat inside.txt",
		"X=1 sh -c 'rg x'"} {
		if v := p.Check(execReq(line)); v.Decision == Allow {
			t.Errorf("%q allowed (%s: %s), want deny", line, v.Rule, v.Reason)
		}
	}
	pa := newPolicy(t, f, ModeAsk, true, rule(t, Allow, "run_command(rg *)"))
	if v := pa.Check(execReq("RIPGREP_CONFIG_PATH=cfg rg x")); v.Decision == Allow {
		t.Errorf("allow rule rg * approved RIPGREP_CONFIG_PATH=cfg rg x (%s)", v.Reason)
	}
	if v := p.Check(execReq("cat inside.txt")); v.Decision != Allow {
		t.Errorf("cat: got %s, want allow", v.Decision)
	}
}

// TestGitReadOnlyOnlyAtRoot: below the root git may discover a bare-style
// repository stored as plain files whose config sets core.fsmonitor.
func TestGitReadOnlyOnlyAtRoot(t *testing.T) {
	f := newFixture(t)
	p := newPolicy(t, f, ModePlan, true)
	for _, req := range []Request{execReq("cd sub && git status"), execReq("cd sub/deep; git diff"),
		{Tool: CommandTool, Kind: kind.Exec, Command: "git status", Paths: []string{"sub"}},
		{Tool: CommandTool, Kind: kind.Exec, Command: "git log", Paths: []string{filepath.Join(f.root, "sub")}}} {
		if v := p.Check(req); v.Decision == Allow {
			t.Errorf("%q in %v allowed (%s), want deny", req.Command, req.Paths, v.Reason)
		}
	}
	if v := p.Check(execReq("git status")); v.Decision != Allow {
		t.Errorf("git status at the root: got %s (%s), want allow", v.Decision, v.Reason)
	}
	if v := p.Check(Request{Tool: CommandTool, Kind: kind.Exec, Command: "git status", Paths: []string{"."}}); v.Decision != Allow {
		t.Errorf("git status with cwd .: got %s (%s), want allow", v.Decision, v.Reason)
	}
}
