package agent

import (
	"context"
	"testing"

	"github.com/zelvior/aidex/internal/llm"
)

// TestPlanNudge: with PlanAfter 3, the third tool call without a plan
// gets the request to write one, once; a run that writes a plan first,
// or a session with an open plan, is never asked; 0 never asks.
func TestPlanNudge(t *testing.T) {
	read := func(id string) step { return call(id, "read", `{"path":"`+id+`"}`) }
	plan := call("p", "todo_write", `{"todos":[{"content":"fix","status":"in_progress"}]}`)
	const ask = "tool calls without a plan"
	cases := []struct {
		name     string
		after    int
		todos    []Todo
		steps    []step
		askedAt  int // the request (1-based) whose last result carries the ask; 0: none
		requests int
	}{
		{name: "asked once", after: 3, steps: []step{read("a"), read("b"), read("c"), read("d"), say("ok")}, askedAt: 4, requests: 5},
		{name: "planned first", after: 3, steps: []step{plan, read("a"), read("b"), read("c"), say("ok")}, requests: 5},
		{name: "open plan in the session", after: 3, todos: []Todo{{Content: "x", Status: "pending"}},
			steps: []step{read("a"), read("b"), read("c"), say("ok")}, requests: 4},
		{name: "finished plan in the session", after: 2, todos: []Todo{{Content: "x", Status: "completed"}},
			steps: []step{read("a"), read("b"), say("ok")}, askedAt: 3, requests: 3},
		{name: "off", steps: []step{read("a"), read("b"), read("c"), read("d"), say("ok")}, requests: 5},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := &script{steps: tc.steps}
			e, _, _, _ := newEngine(p, nil)
			e.Config.Harness.PlanAfter = tc.after
			d, err := e.Run(context.Background(), &Conversation{ID: "s", Todos: tc.todos}, []llm.Part{{Type: llm.PartText, Text: "fix"}}, (&recorder{}).emit)
			if err != nil {
				t.Fatal(err)
			}
			if len(p.reqs) != tc.requests || d.Harness.PlanAfter != tc.after {
				t.Fatalf("%d requests, harness %+v", len(p.reqs), d.Harness)
			}
			for i, req := range p.reqs {
				last := req.Messages[len(req.Messages)-1]
				has := countIn(&llm.Request{Messages: []llm.Message{last}}, ask) > 0
				if has != (i+1 == tc.askedAt) {
					t.Errorf("request %d: asked %v (want the ask in request %d only)", i+1, has, tc.askedAt)
				}
				if total := countIn(req, ask); total > 1 {
					t.Errorf("request %d carries %d asks", i+1, total)
				}
			}
		})
	}
}
