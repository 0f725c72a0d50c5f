package acp

import (
	"context"
	"fmt"
	"sync"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/zelvior/aidex/internal/agent"
)

// The permission options offered for an approval.
const (
	optAllowOnce    = "allow_once"
	optAllowAlways  = "allow_always"
	optRejectOnce   = "reject_once"
	optRejectAlways = "reject_always"
)

// approver answers the engine's asks with session/request_permission.
// rejected are the rules answered reject always: the run going on still
// has the policy from before the deny rule was saved, so their next asks
// are refused here without asking again.
type approver struct {
	s        *session
	mu       sync.Mutex
	rejected map[string]bool
}

// Approve asks the client. Allow always is the terminal's "a" (the
// suggested rule saved as an allow rule of the project); reject always
// saves the same rule as a deny rule. When no rule may allow such calls
// (no suggested rule) only the once options are offered. A cancelled
// request denies the call.
func (ap *approver) Approve(ctx context.Context, req agent.ApprovalInfo) (agent.Answer, string, error) {
	s := ap.s
	ap.mu.Lock()
	refused := req.Suggested != "" && ap.rejected[req.Suggested]
	ap.mu.Unlock()
	if refused {
		return agent.AnswerDeny, "the user rejected " + req.Suggested + " always", nil
	}
	s.mu.Lock()
	v := s.calls[req.CallID]
	s.mu.Unlock()
	title := v.title
	if title == "" {
		title = req.Tool
	}
	if req.Subagent != "" {
		title = req.Subagent + ": " + title
	}
	opts := options(req.Suggested)
	tc := sdk.ToolCallUpdate{ToolCallId: sdk.ToolCallId(req.CallID), Title: sdk.Ptr(title), Status: sdk.Ptr(sdk.ToolCallStatusPending),
		Locations: v.locations, Content: v.diff, RawInput: v.raw}
	if v.kind != "" {
		tc.Kind = sdk.Ptr(v.kind)
	}
	if req.Command != "" && len(v.diff) == 0 {
		tc.Content = []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock("$ " + req.Command))}
	}
	resp, err := s.conn.RequestPermission(ctx, sdk.RequestPermissionRequest{SessionId: s.id, ToolCall: tc, Options: opts})
	if err != nil {
		if ctx.Err() != nil {
			return "", "", ctx.Err()
		}
		return "", "", fmt.Errorf("ask the editor: %w", err)
	}
	if resp.Outcome.Selected == nil {
		return agent.AnswerDeny, "the user cancelled the request", nil
	}
	switch resp.Outcome.Selected.OptionId {
	case optAllowOnce:
		return agent.AnswerOnce, "", nil
	case optAllowAlways:
		return agent.AnswerAlways, "", nil
	case optRejectAlways:
		ap.mu.Lock()
		if ap.rejected == nil {
			ap.rejected = map[string]bool{}
		}
		ap.rejected[req.Suggested] = true
		ap.mu.Unlock()
		if err := s.svc.DenyAlways(ctx, req.Suggested); err != nil {
			return agent.AnswerDeny, "", fmt.Errorf("reject always: %w", err)
		}
		return agent.AnswerDeny, "", nil
	}
	return agent.AnswerDeny, "", nil
}

// options are the permission options for an ask whose "always" rule is
// suggested ("": only the once options).
func options(suggested string) []sdk.PermissionOption {
	opts := []sdk.PermissionOption{{OptionId: optAllowOnce, Name: "Allow once", Kind: sdk.PermissionOptionKindAllowOnce}}
	if suggested != "" {
		opts = append(opts, sdk.PermissionOption{OptionId: optAllowAlways, Name: "Always allow " + suggested + " in this project", Kind: sdk.PermissionOptionKindAllowAlways})
	}
	opts = append(opts, sdk.PermissionOption{OptionId: optRejectOnce, Name: "Reject", Kind: sdk.PermissionOptionKindRejectOnce})
	if suggested != "" {
		opts = append(opts, sdk.PermissionOption{OptionId: optRejectAlways, Name: "Always reject " + suggested + " in this project", Kind: sdk.PermissionOptionKindRejectAlways})
	}
	return opts
}
