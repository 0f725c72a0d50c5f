// Package toolcall is the room of app that front ends use for direct
// tool calls — a tool run as the model would run it, through the same
// pipeline as the engine (prepare, the permission policy, run), but asked
// for by a person or a client: `aidex tool`, `aidex permissions check`,
// POST /api/tool, `aidex mcp serve`, /save-code and /reprint. It holds
// the calls' options, what an approval is asked about, how a call ended,
// a client's series of calls, the tool list's rows and the errors to
// match with errors.Is. app.Runtime makes the calls (CallTool,
// NewToolClient, ExplainCall, ToolList, ProfileTools); this package
// imports nothing of app.
package toolcall

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/permission"
	"github.com/zelvior/aidex/internal/tools"
)

// Options configure a direct tool call (app.Runtime.CallTool,
// Client.CallTool).
//
// Web applies the web UI's confinement: always confined to the workspace,
// shell tools only with web_allow_shell_tools. UserAction marks the call as
// the user's own action (POST /api/tool): what the policy would ask about
// runs, since the person asking is the one who would approve, except
// changes to protected paths (.git, .aidex, editor and aidex config), which
// need an approval in a session. Without UserAction (aidex tool) no one is
// asked and what needs an approval is refused.
//
// Approve, when set (and UserAction is not), is asked about a call the
// policy would ask about (aidex mcp serve: an MCP elicitation to the
// client): true runs the call once, false refuses it; an error refuses it
// with the error's text; a refusal's Result names in Suggested the allow
// rule that would let the call run. Nil: such a call is refused.
type Options struct {
	Web        bool
	UserAction bool
	Approve    func(ctx context.Context, a Approval) (bool, error)
}

// Approval is what [Options.Approve] is asked about: the tool, its
// arguments (JSON), the command line or URL it judges (Subject, "" when
// none), the paths the policy judged, and the rule and reason that made the
// policy ask.
type Approval struct {
	Tool      string
	Arguments json.RawMessage
	Subject   string
	Paths     []string
	Rule      string
	Reason    string
}

// Outcome classifies a direct tool call's end.
type Outcome int

// The outcomes of a direct tool call.
const (
	OK          Outcome = iota // the tool ran and succeeded
	Failed                     // the tool ran and failed (Result.Error says why)
	Invalid                    // the arguments were invalid; nothing ran
	UnknownTool                // no tool has that name or alias
	Refused                    // the policy, the confinement or the front end refused it
)

// Result is the end of a direct tool call: the tool's result (the same
// JSON the model sees, before invisible characters are revealed), how it
// ended, and the policy's verdict (zero when the call never reached the
// policy). Suggested is the narrowest allow rule that would let a call
// refused because no one could approve it run ("" otherwise, or when no
// rule can safely allow it).
type Result struct {
	Result    tools.Result
	Outcome   Outcome
	Verdict   permission.Verdict
	Suggested string
}

// Client is a client's series of direct tool calls (an MCP client's
// connection to `aidex mcp serve`, a user command's calls): its calls
// share one tool registry, so that what a call starts (a background
// process) is still there for the next call (list, output, kill), until
// Close stops it. Safe for concurrent calls. app.Runtime.NewToolClient
// makes one.
type Client interface {
	// CallTool runs tool name with args (a JSON object; nil or "null":
	// no arguments) as app.Runtime.CallTool does, within the series.
	// Errors: as app.Runtime.CallTool's (ErrConfig, ErrInternal wrapped;
	// everything about the call itself is in the Result).
	CallTool(ctx context.Context, name string, args json.RawMessage, o Options) (Result, error)
	// Close stops what the series' calls started (background
	// processes). Calling it again does nothing.
	Close()
}

// Info is one tool as a front end lists it (app.Runtime.ToolList,
// ProfileTools): its schema (name, description, JSON Schema of the
// parameters), kind, and whether the front end offers it (Available
// false: outside the tool profile, or a shell tool in the web UI without
// web_allow_shell_tools).
type Info struct {
	tools.ToolSchema
	Kind      kind.Kind `json:"kind"`
	Available bool      `json:"available"`
}

// ErrInternal is wrapped by a direct call's error when the tool could
// not run for a reason of aidex's own (no workspace or checkpoint store,
// a panic in the tool): a bug to report, not bad input.
var ErrInternal = errors.New("aidex failed")

// ErrConfig is wrapped by a direct call's error when the configuration
// cannot be applied (a malformed permission rule, an unknown mode): bad
// input the user fixes in the config or the flags.
var ErrConfig = errors.New("bad configuration")

// ErrInvalidCall is wrapped by app.Runtime.ExplainCall's and
// ProfileTools' errors when the tool is unknown, its arguments are
// invalid, or the profile is unknown.
var ErrInvalidCall = errors.New("invalid tool call")
