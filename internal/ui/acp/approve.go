package acp

import (
	"context"
	"fmt"

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
type approver struct{ s *session }

// Approve asks the client. Allow always is the terminal's "a" (the
// suggested rule saved as an allow rule of the project); reject always
// saves the same rule as a deny rule. When no rule may allow such calls
// (no suggested rule) only the once options are offered. A cancelled
// request denies the call.
func (ap *approver) Approve(ctx context.Context, req agent.ApprovalInfo) (agent.Answer, string, error) {
	s := ap.s
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
	opts := []sdk.PermissionOption{{OptionId: optAllowOnce, Name: "Allow once", Kind: sdk.PermissionOptionKindAllowOnce}}
	if req.Suggested != "" {
		opts = append(opts, sdk.PermissionOption{OptionId: optAllowAlways, Name: "Always allow " + req.Suggested + " in this project", Kind: sdk.PermissionOptionKindAllowAlways})
	}
	opts = append(opts, sdk.PermissionOption{OptionId: optRejectOnce, Name: "Reject", Kind: sdk.PermissionOptionKindRejectOnce})
	if req.Suggested != "" {
		opts = append(opts, sdk.PermissionOption{OptionId: optRejectAlways, Name: "Always reject " + req.Suggested + " in this project", Kind: sdk.PermissionOptionKindRejectAlways})
	}
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
		if err := s.svc.DenyAlways(ctx, req.Suggested); err != nil {
			return agent.AnswerDeny, "", fmt.Errorf("reject always: %w", err)
		}
		return agent.AnswerDeny, "", nil
	}
	return agent.AnswerDeny, "", nil
}
