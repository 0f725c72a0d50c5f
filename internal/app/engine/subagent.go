package engine

import (
	"context"
	"sync/atomic"

	"github.com/zelvior/aidex/internal/agent"
)

// LabelledApprover passes a subagent's approvals to the parent's
// approver, labelled with the subagent, with ids made unique among the
// parent's.
type LabelledApprover struct {
	// Approver is the parent's approver; Label names the subagent
	// ("explore: find tests"); CallID is the parent's task call.
	Approver agent.Approver
	Label    string
	CallID   string
}

// Approve implements agent.Approver.
func (l LabelledApprover) Approve(ctx context.Context, req agent.ApprovalInfo) (agent.Answer, string, error) {
	req.ID = l.CallID + "_" + req.ID
	if req.Subagent == "" {
		req.Subagent = l.Label
	}
	return l.Approver.Approve(ctx, req)
}

// ChildEmit forwards a child's events to the parent's stream, marked with
// the task call and the label (a grandchild's keep their own), and counts
// the child's own tool calls.
func ChildEmit(ec agent.EngineCall, label string, calls *atomic.Int64) func(agent.Event) {
	return func(ev agent.Event) {
		if ev.ParentToolCallID == "" {
			ev.ParentToolCallID, ev.Subagent = ec.ID, label
			if ev.Type == agent.EventToolCall {
				calls.Add(1)
			}
		}
		if ev.Approval != nil {
			cp := *ev.Approval
			cp.ID = ec.ID + "_" + cp.ID
			if cp.Subagent == "" {
				cp.Subagent = label
			}
			ev.Approval = &cp
		}
		ec.Emit(ev)
	}
}

var _ agent.Approver = LabelledApprover{}
