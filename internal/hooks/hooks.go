// Package hooks runs the user's hook commands at points of a session, in
// Claude Code's shape, so that existing Claude hook scripts work unchanged:
// the configuration (`{"matcher": "Edit|Write", "hooks": [{"type":
// "command", "command": "...", "timeout": 60}]}` per event), the JSON on
// the command's stdin, its exit code (0 go on, 2 block, other a non-blocking
// error) and the JSON it may print on stdout.
//
// Hooks come from `[[hooks.EVENT]]` tables of aidex's TOML files and from
// the `hooks` object of Claude's settings files (see [Load]); a project's
// own files count only when the folder is trusted. [Runner.Fire] runs the
// hooks of one event that match, in parallel, and folds their answers into
// one [Outcome].
package hooks

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"time"
)

// Event names a point where hooks run (Claude Code's names).
type Event string

// The events, as Claude Code names them.
const (
	Setup              Event = "Setup"              // aidex started with --init, --init-only or --maintenance (matcher: trigger)
	SessionStart       Event = "SessionStart"       // a session starts or is resumed (matcher: source)
	UserPromptSubmit   Event = "UserPromptSubmit"   // before a prompt goes to the model
	PreToolUse         Event = "PreToolUse"         // before the policy judges a tool call (matcher: tool)
	PermissionRequest  Event = "PermissionRequest"  // the policy asks for approval (matcher: tool)
	PostToolUse        Event = "PostToolUse"        // a tool call succeeded (matcher: tool)
	PostToolUseFailure Event = "PostToolUseFailure" // a tool call failed (matcher: tool)
	Notification       Event = "Notification"       // the run waits for the user (matcher: notification_type)
	Stop               Event = "Stop"               // the model finished its answer
	SubagentStart      Event = "SubagentStart"      // a subagent (task tool) starts (matcher: agent type)
	SubagentStop       Event = "SubagentStop"       // a subagent (task tool) finished (matcher: agent type)
	PreCompact         Event = "PreCompact"         // before a compaction (matcher: manual|auto)
	SessionEnd         Event = "SessionEnd"         // the session ends (matcher: reason)
)

// Events lists every event, in the order of a session.
func Events() []Event {
	return []Event{Setup, SessionStart, UserPromptSubmit, PreToolUse, PermissionRequest, PostToolUse,
		PostToolUseFailure, Notification, Stop, SubagentStart, SubagentStop, PreCompact, SessionEnd}
}

// ParseEvent returns the event named s (exactly as Claude spells it).
// Errors: an unknown name, listing the known ones.
func ParseEvent(s string) (Event, error) {
	if slices.Contains(Events(), Event(s)) {
		return Event(s), nil
	}
	return "", fmt.Errorf("unknown hook event %q; the events are %v", s, Events())
}

// DefaultTimeout is a hook command's time limit when it sets none.
const DefaultTimeout = 60 * time.Second

// Hook is one configured hook command.
type Hook struct {
	Event   Event
	Matcher string        // "" or "*": everything; else a regular expression matched against the whole name
	Command string        // run with sh -c in the project folder
	Timeout time.Duration // the command is killed (its process group) after it
	Source  string        // the file it came from
	// Ignored says why the hook does not run ("" when it does): the
	// project folder is not trusted.
	Ignored string
	// Unsandboxed runs the command outside the OS sandbox of the model's
	// commands ("sandbox": false on the hook entry); hooks run in it
	// otherwise, since their program may be a workspace file the model
	// edited.
	Unsandboxed bool
	// Plugin is the name of the plugin the hook comes from ("": none);
	// PluginRoot its folder, CLAUDE_PLUGIN_ROOT in the command's
	// environment.
	Plugin, PluginRoot string

	re *regexp.Regexp
}

// Matches reports whether the hook applies to any of names (for tool
// events: the Claude tool name and aidex's; for others the event's
// matcher value). An empty or "*" matcher matches everything, also when
// names is empty.
func (h *Hook) Matches(names ...string) bool {
	if h.Matcher == "" || h.Matcher == "*" {
		return true
	}
	re := h.re
	if re == nil { // a Hook built by hand, not by Load
		var err error
		if re, err = regexp.Compile("^(?:" + h.Matcher + ")$"); err != nil {
			return false
		}
	}
	for _, n := range names {
		if n != "" && re.MatchString(n) {
			return true
		}
	}
	return false
}

// compile prepares the matcher; Claude matches a plain name exactly and
// a pattern as a regular expression of the whole name.
func (h *Hook) compile() error {
	if h.Matcher == "" || h.Matcher == "*" {
		return nil
	}
	re, err := regexp.Compile("^(?:" + h.Matcher + ")$")
	if err != nil {
		return fmt.Errorf("matcher %q is not a valid regular expression (use \"*\" to match every tool): %w", h.Matcher, err)
	}
	h.re = re
	return nil
}

// Input is what a hook is told on stdin: the fields of Claude Code's hook
// input (the common ones are filled in by the Runner when empty) plus
// aidex's own tool name and arguments.
type Input struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	Event          Event  `json:"hook_event_name"`
	PermissionMode string `json:"permission_mode"`

	Prompt string `json:"prompt,omitempty"` // UserPromptSubmit

	// Tool events: the Claude name and input (see ClaudeTool), aidex's own.
	ToolName       string          `json:"tool_name,omitempty"`
	ToolInput      json.RawMessage `json:"tool_input,omitempty"`
	ToolUseID      string          `json:"tool_use_id,omitempty"`
	ToolResponse   any             `json:"tool_response,omitempty"` // PostToolUse
	Error          string          `json:"error,omitempty"`         // PostToolUseFailure
	AidexToolName  string          `json:"aidex_tool_name,omitempty"`
	AidexToolInput json.RawMessage `json:"aidex_tool_input,omitempty"`

	StopHookActive *bool `json:"stop_hook_active,omitempty"` // Stop, SubagentStop
	// LastAssistantMessage is the text of the last assistant message
	// (Stop, SubagentStop), so that a script need not read the transcript.
	LastAssistantMessage string `json:"last_assistant_message,omitempty"`
	// AgentID and AgentType name the subagent (SubagentStart,
	// SubagentStop); AgentTranscript is its own transcript (SubagentStop;
	// TranscriptPath is then the main session's).
	AgentID         string `json:"agent_id,omitempty"`
	AgentType       string `json:"agent_type,omitempty"`
	AgentTranscript string `json:"agent_transcript_path,omitempty"`

	Message          string `json:"message,omitempty"`           // Notification
	NotificationType string `json:"notification_type,omitempty"` // permission_prompt, idle_prompt

	// Trigger is PreCompact's "manual" or "auto", Setup's "init" or
	// "maintenance".
	Trigger string `json:"trigger,omitempty"`
	// CustomInstructions is PreCompact's: what the user gave /compact
	// ("" for a plain /compact; always sent at PreCompact, nil elsewhere).
	CustomInstructions *string `json:"custom_instructions,omitempty"`

	Source string `json:"source,omitempty"` // SessionStart: startup | resume | clear | compact
	Model  string `json:"model,omitempty"`  // SessionStart: the session's model ("provider/model")
	Reason string `json:"reason,omitempty"` // SessionEnd: clear | logout | prompt_input_exit | other
}

// matchNames are the names an event's matchers are matched against.
func (in *Input) matchNames() []string {
	switch in.Event {
	case PreToolUse, PermissionRequest, PostToolUse, PostToolUseFailure:
		return []string{in.ToolName, in.AidexToolName}
	case Notification:
		return []string{in.NotificationType}
	case PreCompact, Setup:
		return []string{in.Trigger}
	case SubagentStart, SubagentStop:
		return []string{in.AgentType}
	case SessionStart:
		return []string{in.Source}
	case SessionEnd:
		return []string{in.Reason}
	}
	return nil
}

// Decision is a hook's answer about a tool call.
type Decision string

// The decisions of PreToolUse (permissionDecision) and PermissionRequest
// (decision.behavior). "" is no opinion.
const (
	DecisionAllow Decision = "allow"
	DecisionDeny  Decision = "deny"
	DecisionAsk   Decision = "ask"
)

// Outcome is the folded answer of the hooks of one event.
//
// Block: a hook exited 2 or answered decision "block" (for PreToolUse
// also permissionDecision "deny"); Reason is its stderr or reason, for the
// model (PreToolUse, PostToolUse, Stop) or the user (UserPromptSubmit).
// Stop: a hook answered "continue": false (StopReason for the user): the
// run ends. Decision and DecisionReason: PreToolUse's permissionDecision
// (deny beats ask beats allow) or PermissionRequest's behavior.
// UpdatedInput: the tool input a hook rewrote (the last one wins, in the
// Claude form when the tool has one). Context: additionalContext and the
// stdout of UserPromptSubmit/SessionStart hooks, for the model. Messages:
// systemMessage and non-blocking errors, for the user. Env: the
// variables SessionStart and Setup hooks exported through
// CLAUDE_ENV_FILE, "NAME=value" in the order given (see ParseEnvFile).
// Blocker: the first hook (in configuration order) that blocked or
// denied (nil: none). Runs: each hook that ran.
type Outcome struct {
	Block          bool
	Reason         string
	Stop           bool
	StopReason     string
	Decision       Decision
	DecisionReason string
	UpdatedInput   json.RawMessage
	Context        []string
	Messages       []string
	Env            []string
	Blocker        *Hook
	Runs           []Run
}

// Run is one hook command's run: the exit code (-1: it could not start
// or was killed at its timeout), its output and how long it took.
type Run struct {
	Hook     *Hook
	ExitCode int
	Stdout   string
	Stderr   string
	Duration time.Duration
	Err      error // could not start, timed out, the sandbox could not confine it
	// NotStarted reports a command that never ran (no shell, the
	// program missing, the sandbox could not confine it): a hook of a
	// guarding event then blocks what it guards.
	NotStarted bool
	// Sandbox is the sandbox's one line when it stopped the command (a
	// write outside the writable set, a refused connection); "" when not.
	Sandbox string
	// Reverted are the sandbox audit's lines: what the command changed
	// that would run later outside the sandbox, undone (git hooks and
	// config, project configuration).
	Reverted []string
}
