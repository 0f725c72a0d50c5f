package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm"
)

// failingTools fails every exec call whose command has "fail" in it and
// every write call with {"bad":1}.
type failingTools struct{ fakeTools }

func (f *failingTools) Run(ctx context.Context, c *Call) (ToolResultInfo, error) {
	res, err := f.fakeTools.Run(ctx, c)
	if strings.Contains(c.Command, "fail") || string(c.Args) == `{"bad":1}` {
		return ToolResultInfo{Error: "exit code 1", Output: "FAIL", Category: "execution"}, err
	}
	return res, err
}

// TestFailureLoops: with FailureLoops on, the same failing command (or
// edit) a third time gets one nudge, a fourth time stops the run with
// stop reason loop, even with other calls between them; off, the run
// goes on (today's behaviour); a command that fails three times but
// then passes is no loop.
func TestFailureLoops(t *testing.T) {
	failing, other := call("f", "exec", `{"command":"make fail"}`), call("o", "read", `{"path":"a"}`)
	badEdit := call("e", "write", `{"bad":1}`)
	cases := []struct {
		name   string
		steps  []step
		off    bool
		stop   StopReason
		nudges int
	}{
		{name: "command", steps: []step{failing, other, failing, other, failing, other, failing, say("never")}, stop: StopLoop, nudges: 1},
		{name: "edit", steps: []step{badEdit, other, badEdit, other, badEdit, other, badEdit, say("never")}, stop: StopLoop, nudges: 1},
		{name: "nudge heeded", steps: []step{failing, other, failing, other, failing, call("g", "exec", `{"command":"make"}`), say("ok")}, stop: StopDone, nudges: 1},
		{name: "off", off: true, steps: []step{failing, other, failing, other, failing, other, failing, say("gave up")}, stop: StopDone},
		{name: "different commands", steps: []step{failing, call("f2", "exec", `{"command":"make fail2"}`), failing, other, call("f3", "exec", `{"command":"make fail3"}`), say("gave up")}, stop: StopDone},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := &script{steps: tc.steps}
			e, _, _, _ := newEngine(p, &approver{d: AnswerSession})
			e.Tools = &failingTools{}
			e.Config.Harness.FailureLoops = !tc.off
			rec := &recorder{}
			d, err := e.Run(context.Background(), &Conversation{ID: "s"}, []llm.Part{{Type: llm.PartText, Text: "fix"}}, rec.emit)
			if err != nil {
				t.Fatal(err)
			}
			if d.StopReason != tc.stop || d.Harness.FailureLoops == tc.off {
				t.Fatalf("stop %s (%s), harness %+v; want %s", d.StopReason, d.Result, d.Harness, tc.stop)
			}
			if tc.stop == StopLoop && (!strings.Contains(d.Result, "failed 4 times") || len(p.reqs) != 7) {
				t.Errorf("loop stop %q after %d requests", d.Result, len(p.reqs))
			}
			if countIn(p.reqs[len(p.reqs)-1], "has now failed 3 times") != tc.nudges {
				t.Errorf("the last request carries %d nudges, want %d", countIn(p.reqs[len(p.reqs)-1], "has now failed 3 times"), tc.nudges)
			}
		})
	}
}

// countIn counts the tool results of req containing s.
func countIn(req *llm.Request, s string) int {
	n := 0
	for _, m := range req.Messages {
		for _, part := range m.Parts {
			if part.ToolResult != nil && strings.Contains(part.ToolResult.Content, s) {
				n++
			}
		}
	}
	return n
}
