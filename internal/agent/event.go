package agent

import (
	"encoding/json"

	"github.com/zelvior/aidex/internal/llm"
)

// EventType names an engine event. These names are a contract: headless
// `--output-format stream-json` prints them, the web UI sends them as SSE
// event names and the TUI renders them.
type EventType string

// The engine's events, in the order a run produces them.
const (
	EventSession    EventType = "session"     // first event of a run: session id, provider, model, workspace
	EventWaiting    EventType = "waiting"     // a model request was sent; nothing of its answer has arrived yet
	EventText       EventType = "text"        // a delta of the answer's text
	EventReasoning  EventType = "reasoning"   // a delta of reasoning/thinking text
	EventToolCall   EventType = "tool_call"   // a complete tool call the model asked for
	EventApproval   EventType = "approval"    // an approval request, or the decision taken
	EventProgress   EventType = "progress"    // a running tool's progress (an MCP server's notifications), between its tool_call and tool_result
	EventToolResult EventType = "tool_result" // the result of a tool call
	EventUsage      EventType = "usage"       // token usage and cost after a model response
	EventBudget     EventType = "budget"      // a budget limit passed 80% (a warning) or was used up (the run stops at the next step boundary)
	EventTodos      EventType = "todos"       // the model's plan changed (todo_write)
	EventNotice     EventType = "notice"      // a line for the user: a fallback model took over, a phase of an architect turn began
	EventError      EventType = "error"       // a failure (the run may go on or end)
	EventDone       EventType = "done"        // last event of a run
)

// Event is one thing that happened in a run. Type selects which of the
// pointer fields is set; Text is used by text, reasoning and error events.
type Event struct {
	Type       EventType       `json:"type"`
	SessionID  string          `json:"session_id,omitempty"`
	Text       string          `json:"text,omitempty"`
	Session    *SessionInfo    `json:"session,omitempty"`
	Waiting    *WaitingInfo    `json:"waiting,omitempty"`
	ToolCall   *ToolCallInfo   `json:"tool_call,omitempty"`
	Approval   *ApprovalInfo   `json:"approval,omitempty"`
	ToolResult *ToolResultInfo `json:"tool_result,omitempty"`
	Progress   *ProgressInfo   `json:"progress,omitempty"`
	Usage      *UsageInfo      `json:"usage,omitempty"`
	Budget     *BudgetInfo     `json:"budget,omitempty"`
	Todos      []Todo          `json:"todos,omitempty"`
	Error      *ErrorInfo      `json:"error,omitempty"`
	Done       *DoneInfo       `json:"done,omitempty"`
	// ParentToolCallID is set on the events of a subagent's run: the id
	// of the parent's task call that started it. Subagent labels that run
	// ("reviewer: check the diff": the type and the task's description).
	ParentToolCallID string `json:"parent_tool_call_id,omitempty"`
	Subagent         string `json:"subagent,omitempty"`
	// Model is the "PROVIDER/MODEL" id of the model whose run produced
	// the event, on waiting, text, reasoning, tool_call, tool_result and
	// usage events, and on the error of one model's failure in a turn
	// several models answer: front ends label answers with it when
	// several models take part in a conversation.
	Model string `json:"model,omitempty"`
	// Phase is set on every event of one phase of an architect turn:
	// "architect" (the plan, read-only tools) or "editor" (the edits).
	Phase string `json:"phase,omitempty"`
	// Notice is set on notice events (Text is the line to show).
	Notice *NoticeInfo `json:"notice,omitempty"`

	// Interaction is set on interaction events (ask_user): the questions
	// (Answer nil), then the same with the answer.
	Interaction *InteractionInfo `json:"interaction,omitempty"`
}

// NoticeInfo says what a notice event is about. Kind is "fallback" (the
// run's model failed and From → To took over the rest of the turn; Reason
// is the failure, ErrorKind its llm.ErrorKind: rate_limit, overloaded,
// not_found, ...; To is "" when a fallback could not be used and the next
// one is tried), "phase" (Phase "architect" or "editor" begins, on
// model To) or "mcp" (an MCP server failed to start: the text names it,
// the cause and that the session goes on without it) or "verify" (verify
// before finishing runs its check, then reports its result; Reason is why
// it could not run).
type NoticeInfo struct {
	Kind      string `json:"kind"`
	From      string `json:"from,omitempty"`
	To        string `json:"to,omitempty"`
	Reason    string `json:"reason,omitempty"`
	ErrorKind string `json:"error_kind,omitempty"`
	Phase     string `json:"phase,omitempty"`
}

// The kinds of notice events.
const (
	NoticeFallback = "fallback"
	NoticePhase    = "phase"
	// NoticeVerify: verify before finishing runs its check (Text names
	// it), then its result.
	NoticeVerify = "verify"
	NoticeMCP    = "mcp"
)

// ProgressInfo is a running tool's progress: the tool (as the model calls
// it), the server's message, and Progress out of Total (Total 0: unknown).
type ProgressInfo struct {
	Tool     string  `json:"tool"`
	Message  string  `json:"message,omitempty"`
	Progress float64 `json:"progress"`
	Total    float64 `json:"total,omitempty"`
}

// SessionInfo describes the session a run works in.
type SessionInfo struct {
	ID        string `json:"session_id"`
	Provider  string `json:"provider"`
	Model     string `json:"model"`
	Workspace string `json:"workspace"`
	Resumed   bool   `json:"resumed,omitempty"`
}

// WaitingInfo describes a model request just sent, before any of its
// answer arrived: the provider and model asked, and InputTokens, the
// engine's estimate of the request's size in tokens (system prompt,
// messages and tool definitions at about 4 bytes a token). A model on the
// user's CPU may read that many tokens for minutes before it answers; front
// ends show "waiting for PROVIDER/MODEL — reading ~N tokens" until the
// response's first event.
type WaitingInfo struct {
	Provider    string `json:"provider"`
	Model       string `json:"model"`
	InputTokens int    `json:"input_tokens"`
	// Turn is the request's number in this run, from 1 (the Turn X of
	// --steps).
	Turn int `json:"turn,omitempty"`
}

// ToolCallInfo is a tool call as front ends show it.
type ToolCallInfo struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// ApprovalInfo is an approval request (Answer empty) or the decision taken
// for it. Diff is a unified diff of the change for file tools, Command the
// exact command line for shell tools, Rule the rule or mode that asked,
// Why the reason it asks in plain words for the user ("Your rule
// run_command(rm *) asks (in /ws/.aidex/config.toml)"),
// Suggested the rule "always allow" would save ("" when no rule may allow
// such calls: "session" and "always" then allow this call only). Answer is
// one of "once", "session", "always", "deny"; Reason the user's reason for
// a denial.
type ApprovalInfo struct {
	ID        string          `json:"id"`
	CallID    string          `json:"call_id"`
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Diff      string          `json:"diff,omitempty"`
	Command   string          `json:"command,omitempty"`
	Rule      string          `json:"rule,omitempty"`
	Why       string          `json:"why,omitempty"`
	Reason    string          `json:"reason,omitempty"`
	Suggested string          `json:"suggested_rule,omitempty"`
	Answer    Answer          `json:"decision,omitempty"`
	// Subagent labels an approval a subagent asks for (its type and
	// task description); "" for the session's own calls.
	Subagent string `json:"subagent,omitempty"`
}

// ToolResultInfo is a tool's result as front ends show it. Category is one
// of security, permission, validation, not_found, execution, declined (the
// user declined ask_user's questions) when OK is false.
// Meta carries the tool's metadata (diff, exit code, path, ...) as JSON.
type ToolResultInfo struct {
	ID         string          `json:"id"`
	Name       string          `json:"name"`
	OK         bool            `json:"ok"`
	Output     string          `json:"output"`
	Error      string          `json:"error,omitempty"`
	Category   string          `json:"category,omitempty"`
	Meta       json.RawMessage `json:"metadata,omitempty"`
	DurationMS int64           `json:"duration_ms"`
	// Denial is set when the permission policy refused the call (category
	// permission): what was refused, by which rule, and the narrowest rule
	// that would allow it.
	Denial *DenialInfo `json:"denial,omitempty"`
	// RetryUnconfined is set by Tools.Run when the OS sandbox stopped the
	// call and running it again outside the sandbox could succeed: the
	// reason put to the user. With an Approver the engine asks (an
	// approval with rule "sandbox"), and when allowed runs the call again
	// with Call.Unconfined; that result is the call's result. Not sent.
	RetryUnconfined string `json:"-"`
	// Images are pictures the tool returns for the model to see (image
	// parts: read_file of a PNG, a notebook's plots). The engine sends them
	// after the results, in the same message. Not in the event stream.
	Images []llm.Part `json:"-"`
}

// DenialInfo describes a call the permission policy refused. Decision is
// "deny" when a rule, the mode or a boundary refused it, "ask" when it
// needed an approval and no one could be asked (headless runs, Ralph).
// Command is the command line of a shell tool, Paths the paths a file tool
// names; Rule names the rule, mode or check that decided ("run_command(git
// push *)", "mode ask", "workspace confinement") and Source where it came
// from (a config file, "flag", "built-in").
// Allow is the narrowest allow rule that would let the call run (the
// --allow value), "" when no allow rule can (Decision "deny": deny beats
// allow).
type DenialInfo struct {
	Tool     string   `json:"tool"`
	Command  string   `json:"command,omitempty"`
	Paths    []string `json:"paths,omitempty"`
	Decision Decision `json:"decision"`
	Rule     string   `json:"rule,omitempty"`
	Source   string   `json:"source,omitempty"`
	Allow    string   `json:"allow_rule,omitempty"`
	// Hook is set when a hook refused the call (PreToolUse, or
	// PermissionRequest): Rule names the hook's event and command,
	// Source its configuration file.
	Hook bool `json:"hook,omitempty"`
}

// UsageInfo reports tokens after a model response: Turn for that response,
// Session for the whole session; CostUSD the session's cost from catalog
// prices (0 when unknown or free); ContextTokens the prompt size of the last
// request and ContextWindow the model's window, both in tokens;
// ContextPercent = 100·ContextTokens/ContextWindow (0 when the window is
// unknown). TurnCostUSD is the price of this response alone, in USD.
type UsageInfo struct {
	Turn           llm.Usage `json:"turn"`
	Session        llm.Usage `json:"session"`
	CostUSD        float64   `json:"cost_usd"`
	TurnCostUSD    float64   `json:"turn_cost_usd,omitempty"`
	ContextTokens  int       `json:"context_tokens"`
	ContextWindow  int       `json:"context_window,omitempty"`
	ContextPercent float64   `json:"context_percent,omitempty"`
}

// ErrorInfo describes a failure: Kind is an llm.ErrorKind for provider
// errors, or "engine"/"cancelled"; Fatal says whether the run ended.
type ErrorInfo struct {
	Message string `json:"message"`
	Kind    string `json:"kind,omitempty"`
	Fatal   bool   `json:"fatal,omitempty"`
}

// DoneInfo closes a run: why it stopped, how many model responses it took,
// the final answer's text, the run's usage and the session's cost, how
// many tool calls the policy or the user denied (Denials), how many a
// hook refused (HookDenials: not a denial of the policy's; a headless
// run that otherwise finished exits 0, as claude -p does), and how many
// of those would have changed something: a file write or a command (kind
// write or exec; DeniedChanges). Ralph does not take a task for done when
// DeniedChanges > 0 and no verification command checks it.
type DoneInfo struct {
	StopReason StopReason `json:"stop_reason"`
	Turns      int        `json:"turns"`
	Result     string     `json:"result"`
	Usage      llm.Usage  `json:"usage"`
	CostUSD    float64    `json:"cost_usd"`
	Denials    int        `json:"denials,omitempty"`
	// HookDenials counts the calls a PreToolUse or PermissionRequest hook
	// refused (each result's Denial names the hook as its source).
	HookDenials int `json:"hook_denials,omitempty"`
	// DeniedChanges counts the denied calls of kind write or exec, but
	// not command lines the policy found read-only (Verdict.ReadsOnly).
	DeniedChanges int `json:"denied_changes,omitempty"`
	// Raw is the provider's raw last response body or chunk (for --raw).
	Raw json.RawMessage `json:"-"`
	// FinishReason is the provider's own finish reason of the last model
	// response ("stop", "length", "max_tokens", "content_filter",
	// "refusal", "SAFETY", ...; "" when there was none), for front ends
	// that map it (ACP's max_tokens and refusal stop reasons). Not in the
	// event stream.
	FinishReason string `json:"-"`
	// Budget is the limit that stopped the run (stop reason budget).
	Budget *BudgetInfo `json:"budget,omitempty"`
	// Verified is verify before finishing's outcome: "true" (the check
	// passed after the run's last change), "false" (it failed), "none" (no
	// check ran; VerifyReason says why); "" when the mechanism is off.
	Verified     string `json:"verified,omitempty"`
	VerifyReason string `json:"verify_reason,omitempty"`
	// Harness records the harness settings the run had in force.
	Harness *HarnessInfo `json:"harness,omitempty"`
}

// StopReason says why a run ended.
type StopReason string

// The reasons a run ends.
const (
	StopDone      StopReason = "done"        // the model answered without tool calls
	StopMaxTurns  StopReason = "max_turns"   // max_tool_turns / --max-turns reached
	StopLoop      StopReason = "loop"        // the same tool call repeated 3 times in a row
	StopCancelled StopReason = "cancelled"   // the context was cancelled (Esc, Ctrl+C)
	StopError     StopReason = "error"       // a provider or engine failure
	StopMarker    StopReason = "done_marker" // the model wrote %%DONE%%, %%COMPLETED%% or %%COMPLETE%% (agent mode)
	StopBudget    StopReason = "budget"      // a budget limit was used up (--max-cost, [budget]); the session stays resumable
)
