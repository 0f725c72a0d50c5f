package permission

import (
	"path/filepath"
	"testing"
)

// Regression tests for holes 2, 4, 5 and 12 of issue 22, through the
// policy: what the analysis reports about options is confined and decided.

// holeFixture is the usual fixture with links out of the workspace: out
// (a directory link to outside/) and sub/leak (a file link to the secret).
func holeFixture(t *testing.T) fixture {
	t.Helper()
	f := newFixture(t)
	mustSymlink(t, f.outside, filepath.Join(f.root, "out"))
	mustSymlink(t, filepath.Join(f.outside, "secret.txt"), filepath.Join(f.root, "sub", "leak"))
	return f
}

type holeCase struct {
	mode Mode
	line string
	want Decision // the decision wanted; for Ask, Deny is accepted too (stricter)
}

func checkHoleCases(t *testing.T, f fixture, cases []holeCase, rules ...Rule) {
	t.Helper()
	for _, c := range cases {
		p := newPolicy(t, f, c.mode, true, rules...)
		v := p.Check(execReq(c.line))
		if v.Decision != c.want && !(c.want == Ask && v.Decision == Deny) {
			t.Errorf("mode %s: %q: got %s (%s: %s), want %s", c.mode, c.line, v.Decision, v.Rule, v.Reason, c.want)
		}
	}
}

// TestFindDashDashPolicy: hole 2.
func TestFindDashDashPolicy(t *testing.T) {
	f := holeFixture(t)
	var cases []holeCase
	for _, line := range []string{"find -- . -delete", "find -- . -fprint F", "find -L -- . -delete", "find . -- -delete",
		"find -- . -exec rm {} \\;", "find -- . -fls x", "find -O3 -- . -delete", "find -- . --dele", "find -- sub -okdir rm {} \\;"} {
		cases = append(cases, holeCase{ModePlan, line, Deny}, holeCase{ModeAsk, line, Ask})
	}
	cases = append(cases, holeCase{ModeYolo, "find -- . -fprint ../x", Deny}, holeCase{ModeYolo, "find . -fprint out/x", Deny},
		holeCase{ModeYolo, "find . -fprint .git/config", Ask}, holeCase{ModePlan, "find -- . -name x -print", Allow})
	checkHoleCases(t, f, cases)
}
