package engine

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/zelvior/aidex/internal/agent"
)

type recordApprover struct{ got agent.ApprovalInfo }

func (r *recordApprover) Approve(_ context.Context, req agent.ApprovalInfo) (agent.Answer, string, error) {
	r.got = req
	return agent.AnswerOnce, "", nil
}

func TestLabelledApprover(t *testing.T) {
	parent := &recordApprover{}
	a := LabelledApprover{Approver: parent, Label: "explore: find tests", CallID: "call_1"}
	if _, _, err := a.Approve(context.Background(), agent.ApprovalInfo{ID: "a1"}); err != nil {
		t.Fatal(err)
	}
	if parent.got.ID != "call_1_a1" || parent.got.Subagent != "explore: find tests" {
		t.Errorf("the parent got id %q subagent %q, want call_1_a1 and the label", parent.got.ID, parent.got.Subagent)
	}
}

func TestChildEmit(t *testing.T) {
	var got []agent.Event
	ec := agent.EngineCall{ID: "call_1", Emit: func(ev agent.Event) { got = append(got, ev) }}
	var calls atomic.Int64
	emit := ChildEmit(ec, "explore", &calls)
	emit(agent.Event{Type: agent.EventToolCall})
	emit(agent.Event{Type: agent.EventToolCall, ParentToolCallID: "call_9", Subagent: "grandchild"})
	if calls.Load() != 1 {
		t.Errorf("counted %d tool calls, want 1 (the child's own)", calls.Load())
	}
	if got[0].ParentToolCallID != "call_1" || got[0].Subagent != "explore" || got[1].ParentToolCallID != "call_9" {
		t.Errorf("events forwarded as %+v", got)
	}
}
