package agent

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm"
)

// A done marker in a response that also calls tools ends the run after
// the calls ran (issue 23 item 2): the calls get their results, so the
// session stays valid, and no further request is made.
func TestDoneMarkerRunsCallsThenStops(t *testing.T) {
	for _, marker := range []string{"%%DONE%%", "%%COMPLETED%%", "%%COMPLETE%%"} {
		p := &script{steps: []func(context.Context, *llm.Request, *llm.Accumulator) error{
			func(_ context.Context, _ *llm.Request, acc *llm.Accumulator) error {
				acc.Text("finished " + marker)
				acc.ToolCall(llm.ToolCall{ID: "1", Name: "read", Arguments: json.RawMessage(`{"path":"a"}`)})
				return nil
			}, say("never asked")}}
		e, tools, store, _ := newEngine(p, nil)
		e.Config.DoneMarkers = []string{"%%DONE%%", "%%COMPLETED%%", "%%COMPLETE%%"}
		e.Config.AgentMode, e.Config.MaxTurns = true, 5
		done, err := e.Run(context.Background(), &Conversation{ID: "s"}, []llm.Part{{Type: llm.PartText, Text: "go"}}, func(Event) {})
		if err != nil || done.StopReason != StopMarker || len(tools.ran) != 1 || len(p.reqs) != 1 {
			t.Fatalf("%s: done %+v err %v ran %v requests %d", marker, done, err, tools.ran, len(p.reqs))
		}
		last := store.msgs[len(store.msgs)-1]
		if last.Role != llm.RoleTool || last.Parts[0].ToolResult.CallID != "1" || !strings.Contains(last.Parts[0].ToolResult.Content, "ran read") {
			t.Fatalf("%s: the call has no result: %+v", marker, last)
		}
	}
}

// In agent mode a text-only answer does not end the run (issue 23 item 1):
// the next turn goes on with "continue" as the user turn, each told
// "Turn X of Y", until the last step.
func TestAgentModeRunsEveryStep(t *testing.T) {
	p := &script{steps: []func(context.Context, *llm.Request, *llm.Accumulator) error{say("one"), say("two"), say("three")}}
	e, _, store, _ := newEngine(p, nil)
	e.Config.AgentMode, e.Config.StepNotes, e.Config.MaxTurns = true, true, 3
	var seen []int
	e.Config.BeforeRequest = func(req *llm.Request) { seen = append(seen, len(req.Messages)) }
	var turns []int
	done, err := e.Run(context.Background(), &Conversation{ID: "s"}, []llm.Part{{Type: llm.PartText, Text: "go"}}, func(ev Event) {
		if ev.Type == EventWaiting {
			turns = append(turns, ev.Waiting.Turn)
		}
	})
	if err != nil || done.StopReason != StopDone || done.Result != "three" || done.Turns != 3 {
		t.Fatalf("done %+v err %v", done, err)
	}
	if len(p.reqs) != 3 || len(seen) != 3 || len(turns) != 3 || turns[2] != 3 {
		t.Fatalf("requests %d, hook %v, waiting turns %v", len(p.reqs), seen, turns)
	}
	for i, req := range p.reqs {
		last := req.Messages[len(req.Messages)-1]
		if want := "<status>Turn " + string(rune('1'+i)) + " of 3</status>"; !strings.HasSuffix(last.Text(), want) {
			t.Errorf("request %d: the last message %q does not end with %q", i+1, last.Text(), want)
		}
		if req.System != p.reqs[0].System || strings.Contains(req.System, "Turn") {
			t.Errorf("request %d: the system prompt changed: %q", i+1, req.System)
		}
	}
	msgs := p.reqs[2].Messages
	if u := msgs[len(msgs)-1]; u.Role != llm.RoleUser || u.Parts[0].Text != ContinuePrompt {
		t.Errorf("the third turn's user message: %+v", u)
	}
	if n := len(store.msgs); n != 6 { // go, one, continue, two, continue, three
		t.Errorf("stored %d messages", n)
	}
	for _, m := range store.msgs {
		if strings.Contains(m.Text(), "<status>") {
			t.Errorf("the status was saved in the session: %+v", m)
		}
	}
}

// Without agent mode a text answer ends the run at once.
func TestTextAnswerEndsRunOutsideAgentMode(t *testing.T) {
	p := &script{steps: []func(context.Context, *llm.Request, *llm.Accumulator) error{say("one"), say("two")}}
	e, _, _, _ := newEngine(p, nil)
	e.Config.MaxTurns = 3
	if _, err := e.Run(context.Background(), &Conversation{ID: "s"}, []llm.Part{{Type: llm.PartText, Text: "go"}}, func(Event) {}); err != nil || len(p.reqs) != 1 {
		t.Fatalf("err %v requests %d", err, len(p.reqs))
	}
}

// A done marker in a text answer ends an agent-mode run early.
func TestAgentModeStopsAtMarker(t *testing.T) {
	p := &script{steps: []func(context.Context, *llm.Request, *llm.Accumulator) error{say("one"), say("all done %%COMPLETED%%"), say("never")}}
	e, _, _, _ := newEngine(p, nil)
	e.Config.AgentMode, e.Config.MaxTurns = true, 5
	e.Config.DoneMarkers = []string{"%%DONE%%", "%%COMPLETED%%", "%%COMPLETE%%"}
	done, err := e.Run(context.Background(), &Conversation{ID: "s"}, []llm.Part{{Type: llm.PartText, Text: "go"}}, func(Event) {})
	if err != nil || done.StopReason != StopMarker || len(p.reqs) != 2 {
		t.Fatalf("done %+v err %v requests %d", done, err, len(p.reqs))
	}
}

// Issue 23 item 9: reasoning tokens are billed as output unless
// bill_reasoning_as_output is off.
func TestCostBillsReasoning(t *testing.T) {
	u := llm.Usage{OutputTokens: 1_000_000, ReasoningTokens: 600_000}
	if c := (ModelInfo{OutputPrice: 10}).Cost(u); c != 10 {
		t.Errorf("billed: %v", c)
	}
	if c := (ModelInfo{OutputPrice: 10, UnbilledReasoning: true}).Cost(u); c != 4 {
		t.Errorf("unbilled: %v", c)
	}
}

// After tool calls the status goes at the end of the last tool result (of
// the request only).
func TestStatusAfterToolResults(t *testing.T) {
	p := &script{steps: []func(context.Context, *llm.Request, *llm.Accumulator) error{call("1", "read", `{"path":"a"}`), say("done %%DONE%%")}}
	e, _, store, _ := newEngine(p, nil)
	e.Config.AgentMode, e.Config.StepNotes, e.Config.MaxTurns = true, true, 4
	e.Config.DoneMarkers = []string{"%%DONE%%"}
	if _, err := e.Run(context.Background(), &Conversation{ID: "s"}, []llm.Part{{Type: llm.PartText, Text: "go"}}, func(Event) {}); err != nil {
		t.Fatal(err)
	}
	msgs := p.reqs[1].Messages
	last := msgs[len(msgs)-1]
	if last.Role != llm.RoleTool || !strings.HasSuffix(last.Parts[0].ToolResult.Content, "<status>Turn 2 of 4</status>") {
		t.Fatalf("last message of request 2: %+v", last.Parts[0].ToolResult)
	}
	if strings.Contains(store.msgs[2].Parts[0].ToolResult.Content, "status") {
		t.Errorf("the stored tool result changed: %+v", store.msgs[2].Parts[0].ToolResult)
	}
}
