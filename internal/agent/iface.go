package agent

import (
	"context"
	"encoding/json"

	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/llm"
)

// Tools is what the engine needs of the tool registry: the schemas offered
// to the model, a check of a call's arguments before the policy is asked,
// and the run itself.
type Tools interface {
	// Specs returns the tools offered to the model.
	Specs() []llm.Tool
	// Prepare normalises a call (tool-name and parameter aliases) and
	// validates its arguments. A non-nil result is a validation problem to
	// send back to the model instead of running the call.
	Prepare(name string, args json.RawMessage) (*Call, *ToolResultInfo)
	// Run executes a prepared, approved call. Problems the model can fix
	// are results with OK false, never Go errors. An error is an
	// infrastructure failure (no workspace or checkpoint store, a panic in
	// the tool): the engine aborts the turn with it, the session saved.
	Run(ctx context.Context, c *Call) (ToolResultInfo, error)
}

// Call is a validated tool call ready for the policy: the canonical tool
// name, normalised arguments, the tool's kind (read, write, exec, network,
// other), the path arguments as the model gave them, the command line for
// shell tools, and a preview (unified diff of a file change) for approvals:
// Preview when known up front, else Previewer computes it when an approval
// is asked (so calls that are simply allowed pay nothing). Impl is the
// registry's own handle.
type Call struct {
	ID        string
	Name      string
	Args      json.RawMessage
	Kind      kind.Kind
	Paths     []string
	Command   string
	ReadOnly  bool
	Preview   string
	Previewer func(ctx context.Context) string
	Impl      any
	// Unconfined runs the call outside the OS sandbox: the user approved
	// running it again without the sandbox after the sandbox stopped it
	// (see ToolResultInfo.RetryUnconfined).
	Unconfined bool
}

// Decision is the policy's decision on a call.
type Decision string

// The policy's decisions. Deny beats ask beats allow: see
// internal/permission.
const (
	Allow Decision = "allow" // run it
	Ask   Decision = "ask"   // ask the Approver (denied when there is none)
	Deny  Decision = "deny"  // refuse; the reason goes to the model
)

// Verdict is the policy's answer for a call.
type Verdict struct {
	Decision  Decision
	Rule      string // the rule or mode that decided
	Source    string // the file (or "flag", "default") the rule came from
	Reason    string // a sentence for the model and the user
	Suggested string // the rule "always allow" would save
	// Unasked: the policy would have asked but cannot (headless, Ralph), so
	// it denied; an allow rule (Suggested) would let the call run.
	Unasked bool
	// ReadsOnly: the call only reads although its kind may say otherwise
	// (a command line found read-only); refusing it refuses no change (see
	// DoneInfo.DeniedChanges).
	ReadsOnly bool
	// ModeOnly: the policy asks (or, unable to ask, denied: Unasked) only
	// because of the permission mode's default, not an ask rule, a
	// protected path, safe_mode or a doubt of the shell analysis; a
	// PreToolUse hook's allow may skip such an ask (see Hooks).
	ModeOnly bool
}

// Policy decides whether a call may run. Remember records an approval
// answered "session" or "always" ("always" also writes the project's
// config).
type Policy interface {
	Check(c *Call) Verdict
	Remember(d Answer, rule string) error
}

// Answer is a user's answer to an approval request.
type Answer string

// The answers to an approval request.
const (
	AnswerOnce    Answer = "once"    // allow this call
	AnswerSession Answer = "session" // allow calls matching the rule for this session
	AnswerAlways  Answer = "always"  // allow in this project (saved as a rule)
	AnswerDeny    Answer = "deny"    // refuse; Reason goes to the model
)

// Approver asks a person. Approve blocks until they answer or ctx ends. A
// front end that cannot ask passes a nil Approver: what the policy does not
// allow is then denied.
type Approver interface {
	Approve(ctx context.Context, req ApprovalInfo) (Answer, string, error)
}

// Store persists a session as it goes. Every method is called when the
// thing it records is complete, so an abort loses nothing.
type Store interface {
	// AppendMessage saves one complete message with the usage of the model
	// response that produced it (nil for user and tool messages).
	AppendMessage(ctx context.Context, sessionID string, m llm.Message, usage *llm.Usage) error
	// ReplaceMessages swaps the session's messages after a compaction.
	ReplaceMessages(ctx context.Context, sessionID string, msgs []llm.Message) error
	// SaveTodos saves the model's plan.
	SaveTodos(ctx context.Context, sessionID string, todos []Todo) error
}
