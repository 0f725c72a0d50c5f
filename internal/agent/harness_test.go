package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm"
)

// checker is a scripted verify check: it answers from results in order
// (the last one again when they run out) and counts its runs.
type checker struct {
	results []VerifyResult
	runs    int
}

func (c *checker) check(command string) *VerifyCheck {
	return &VerifyCheck{Command: command, Run: func(context.Context) VerifyResult {
		c.runs++
		return c.results[min(c.runs, len(c.results))-1]
	}}
}

type step = func(context.Context, *llm.Request, *llm.Accumulator) error

// TestVerifyBeforeFinishing runs verify before finishing with a scripted
// model over every path: a run that changed files and passes, one that
// fails once and is fixed, one that fails twice (reported false, never a
// third check), one that changed nothing, one without a check (none with
// the reason), a command counted as a change, and the mechanism off.
func TestVerifyBeforeFinishing(t *testing.T) {
	pass, fail := VerifyResult{OK: true}, VerifyResult{ExitCode: 1, Output: "FAIL: TestX"}
	write := call("w", "write", `{}`)
	cases := []struct {
		name        string
		steps       []step
		results     []VerifyResult
		noCommand   bool
		off         bool
		runs        int
		verified    string
		reason      string
		fedBack     bool
		finalAnswer string
	}{
		{name: "passes", steps: []step{write, say("done")}, results: []VerifyResult{pass}, runs: 1, verified: VerifiedTrue, finalAnswer: "done"},
		{name: "fails then fixed", steps: []step{write, say("done"), call("w2", "write", `{"fix":1}`), say("fixed")},
			results: []VerifyResult{fail, pass}, runs: 2, verified: VerifiedTrue, fedBack: true, finalAnswer: "fixed"},
		{name: "fails twice", steps: []step{write, say("done"), call("w2", "write", `{"fix":1}`), say("still")},
			results: []VerifyResult{fail}, runs: 2, verified: VerifiedFalse, reason: "exited 1", fedBack: true, finalAnswer: "still"},
		{name: "no change after the failure", steps: []step{write, say("done"), say("cannot fix: the test needs a network")},
			results: []VerifyResult{fail}, runs: 1, verified: VerifiedFalse, reason: "exited 1", fedBack: true, finalAnswer: "cannot fix: the test needs a network"},
		{name: "nothing changed", steps: []step{call("r", "read", `{"path":"a"}`), say("it reads")}, results: []VerifyResult{pass},
			verified: VerifiedNone, reason: "changed no files", finalAnswer: "it reads"},
		{name: "a command is a change", steps: []step{call("x", "exec", `{"command":"sed -i s/a/b/ f"}`), say("done")},
			results: []VerifyResult{pass}, runs: 1, verified: VerifiedTrue, finalAnswer: "done"},
		{name: "no check", steps: []step{write, say("done")}, noCommand: true, verified: VerifiedNone, reason: "no test command detected", finalAnswer: "done"},
		{name: "off", steps: []step{write, say("done")}, off: true, finalAnswer: "done"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := &script{steps: tc.steps}
			e, _, _, _ := newEngine(p, &approver{d: AnswerSession})
			c := &checker{results: tc.results}
			switch {
			case tc.noCommand:
				e.Config.Harness.Verify = &VerifyCheck{Reason: "no verify_command and no test command detected"}
			case !tc.off:
				e.Config.Harness.Verify = c.check("go test ./...")
			}
			rec := &recorder{}
			d, err := e.Run(context.Background(), &Conversation{ID: "s"}, []llm.Part{{Type: llm.PartText, Text: "fix"}}, rec.emit)
			if err != nil {
				t.Fatal(err)
			}
			if c.runs != tc.runs || d.Verified != tc.verified || !strings.Contains(d.VerifyReason, tc.reason) || d.Result != tc.finalAnswer {
				t.Fatalf("check ran %d times, verified %q (%s), answer %q; want %d, %q (%s), %q", c.runs, d.Verified, d.VerifyReason, d.Result,
					tc.runs, tc.verified, tc.reason, tc.finalAnswer)
			}
			if d.Harness == nil || d.Harness.Verify == tc.off || (!tc.off && !tc.noCommand && d.Harness.VerifyCommand != "go test ./...") {
				t.Errorf("harness record %+v", d.Harness)
			}
			fed := false
			for _, req := range p.reqs {
				last := req.Messages[len(req.Messages)-1]
				fed = fed || (last.Role == llm.RoleUser && strings.Contains(last.Text(), "`go test ./...` on your changes, and it failed (exited 1):\n\nFAIL: TestX"))
			}
			if fed != tc.fedBack {
				t.Errorf("the model got the failed check: %v, want %v", fed, tc.fedBack)
			}
			notices := 0
			for _, ev := range rec.events {
				if ev.Type == EventNotice && ev.Notice.Kind == NoticeVerify {
					notices++
				}
			}
			if notices != 2*tc.runs {
				t.Errorf("%d verify notices for %d checks", notices, tc.runs)
			}
		})
	}
}

// TestVerifyStopsWithTheRun: a run that ends on its turn limit right
// after a failed check reports false with the reason; a cancelled check
// gives no feedback.
func TestVerifyEndsWithTheTurnLimit(t *testing.T) {
	p := &script{steps: []step{call("w", "write", `{}`), say("done"), call("w2", "write", `{"again":1}`)}}
	e, _, _, _ := newEngine(p, &approver{d: AnswerSession})
	e.Config.MaxTurns = 3
	c := &checker{results: []VerifyResult{{ExitCode: 2, Output: "build failed"}}}
	e.Config.Harness.Verify = c.check("make check")
	d, err := e.Run(context.Background(), &Conversation{ID: "s"}, []llm.Part{{Type: llm.PartText, Text: "fix"}}, (&recorder{}).emit)
	if err != nil {
		t.Fatal(err)
	}
	if d.StopReason != StopMaxTurns || d.Verified != VerifiedFalse || !strings.Contains(d.VerifyReason, "files changed after the last check `make check`") {
		t.Fatalf("done %+v", d)
	}
}
