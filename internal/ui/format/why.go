package format

import "github.com/zelvior/aidex/internal/agent"

// ApprovalWhy is the line of an approval prompt that says why it asks:
// the request's plain-words reason (Why), else its policy reason, else
// the rule that asked ("" when none is known).
func ApprovalWhy(req agent.ApprovalInfo) string {
	switch {
	case req.Why != "":
		return req.Why
	case req.Reason != "":
		return req.Reason
	case req.Rule != "":
		return "Asked by " + req.Rule + "."
	}
	return ""
}
