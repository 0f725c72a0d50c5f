package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/atomicfile"
	"github.com/zelvior/aidex/internal/hooks"
	"github.com/zelvior/aidex/internal/llm"
)

// Hooks adapts the hook runner to the engine (agent.Hooks) and to
// the session's own points (SessionStart, UserPromptSubmit, SessionEnd).
type Hooks struct {
	Runner      *hooks.Runner
	Workspace   string
	Mode        string      // the permission mode as Claude Code names it
	Model       string      // "provider/model", SessionStart's model
	Transcripts string      // the folder of the JSONL transcripts given to hooks
	Subagent    bool        // a child engine: its Stop point fires SubagentStop
	Agent       *HookAgent  // a subagent's engine: who it is (nil: not one, or not known)
	State       *HookState  // the scope's exported variables and transcripts temp folder
	Sandboxed   func() bool // hooks not marked "sandbox": false run in the sandbox
}

// Fire runs ev's matching hooks for session s. The transcript file is
// written first (only when a hook will run). A failure of the hooks
// themselves (ctx ended) is a message for the user.
func (h *Hooks) Fire(ctx context.Context, s *agent.Conversation, in hooks.Input) hooks.Outcome {
	in.SessionID, in.Cwd, in.PermissionMode = s.ID, h.Workspace, h.Mode
	if in.Event == hooks.SubagentStop && h.Agent != nil {
		in.AgentType = h.Agent.Type // the matcher's
	}
	list := h.Runner.Matching(&in)
	if len(list) == 0 {
		return hooks.Outcome{}
	}
	dir := h.Transcripts
	if h.Sandboxed != nil && slices.ContainsFunc(list, func(x *hooks.Hook) bool { return !x.Unsandboxed }) && h.Sandboxed() {
		var err error
		if dir, err = h.State.transcripts(); err != nil {
			return hooks.Outcome{Messages: []string{fmt.Sprintf("%s hooks: transcript: %v", in.Event, err)}}
		}
	}
	path, err := writeTranscript(dir, s, h.Workspace)
	if err != nil {
		return hooks.Outcome{Messages: []string{fmt.Sprintf("%s hooks: %v", in.Event, err)}}
	}
	in.TranscriptPath = path
	if in.Event == hooks.SubagentStop && h.Agent != nil {
		// Claude Code's: the main session's id and transcript, the
		// subagent's own as agent_id and agent_transcript_path.
		in.AgentID, in.AgentTranscript = s.ID, path
		in.SessionID = h.Agent.Parent.ID
		if in.TranscriptPath, err = writeTranscript(dir, h.Agent.Parent, h.Workspace); err != nil {
			return hooks.Outcome{Messages: []string{fmt.Sprintf("%s hooks: %v", in.Event, err)}}
		}
	}
	out, err := h.Runner.Fire(ctx, in)
	if err != nil {
		out.Messages = append(out.Messages, err.Error())
	}
	return out
}

// writeTranscript writes session s as dir/<session>.jsonl, the file
// hooks are given as transcript_path, in Claude Code's transcript format
// (ClaudeTranscript): aidex keeps sessions in SQLite, so the file is
// written for them (dir: the data folder's transcripts/, or for
// sandboxed hooks the scope's temp folder).
func writeTranscript(dir string, s *agent.Conversation, workspace string) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("transcript folder: %w", err)
	}
	data, err := ClaudeTranscript(s, workspace)
	if err != nil {
		return "", fmt.Errorf("transcript: %w", err)
	}
	path := filepath.Join(dir, s.ID+".jsonl")
	if err := atomicfile.WriteFile(path, data, 0o600); err != nil {
		return "", fmt.Errorf("transcript: %w", err)
	}
	return path, nil
}

// toolInput fills the tool fields of in for call c.
func (h *Hooks) toolInput(ev hooks.Event, c *agent.Call) hooks.Input {
	name, input := hooks.ClaudeTool(c.Name, c.Args, h.Workspace)
	return hooks.Input{Event: ev, ToolName: name, ToolInput: input, ToolUseID: c.ID, AidexToolName: c.Name, AidexToolInput: c.Args}
}

// BeforeTool runs the PreToolUse hooks.
func (h *Hooks) BeforeTool(ctx context.Context, s *agent.Conversation, c *agent.Call) agent.HookAnswer {
	out := h.Fire(ctx, s, h.toolInput(hooks.PreToolUse, c))
	a := answer(out)
	if len(out.UpdatedInput) > 0 {
		args, err := hooks.AidexInput(c.Name, c.Args, out.UpdatedInput)
		if err != nil {
			a.Block, a.Reason = true, "the PreToolUse hook's updatedInput is not a JSON object: "+err.Error()
			return a
		}
		a.Args = args
	}
	return a
}

// Permission runs the PermissionRequest hooks.
func (h *Hooks) Permission(ctx context.Context, s *agent.Conversation, c *agent.Call) agent.HookAnswer {
	return answer(h.Fire(ctx, s, h.toolInput(hooks.PermissionRequest, c)))
}

// AfterTool runs the PostToolUse hooks (PostToolUseFailure for a failed
// call).
func (h *Hooks) AfterTool(ctx context.Context, s *agent.Conversation, c *agent.Call, res agent.ToolResultInfo) agent.HookAnswer {
	ev := hooks.PostToolUse
	if !res.OK {
		ev = hooks.PostToolUseFailure
	}
	in := h.toolInput(ev, c)
	if res.OK {
		in.ToolResponse = toolResponse(in.ToolName, in.ToolInput, res)
	} else {
		in.Error = res.Error
	}
	return answer(h.Fire(ctx, s, in))
}

// toolResponse is tool_response: the result in the shape of Claude's for
// its tools where simple (Bash: stdout; Write and Edit: filePath), with
// success and aidex's output for every tool.
func toolResponse(claudeName string, input json.RawMessage, res agent.ToolResultInfo) map[string]any {
	out := map[string]any{"success": res.OK, "output": res.Output}
	switch claudeName {
	case "Bash":
		out["stdout"], out["stderr"], out["interrupted"], out["isImage"] = commandOutput(res.Output), "", false, false
	case "Write", "Edit":
		var in struct {
			FilePath string `json:"file_path"`
		}
		if json.Unmarshal(input, &in) == nil {
			out["filePath"] = in.FilePath
		}
	}
	return out
}

// commandOutput is what a command printed, without the "[exit code: N]"
// line aidex's command tools end their output with. aidex runs a command
// with stdout and stderr joined in one stream, so it is all stdout.
func commandOutput(out string) string {
	body, last := "", out
	if i := strings.LastIndexByte(out, '\n'); i >= 0 {
		body, last = out[:i+1], out[i+1:]
	}
	if code, ok := strings.CutPrefix(last, "[exit code: "); ok && strings.HasSuffix(code, "]") {
		if _, err := strconv.Atoi(strings.TrimSuffix(code, "]")); err == nil {
			return body
		}
	}
	return out
}

// Stop runs the Stop hooks (SubagentStop in a child engine).
func (h *Hooks) Stop(ctx context.Context, s *agent.Conversation, active bool) agent.HookAnswer {
	ev := hooks.Stop
	if h.Subagent {
		ev = hooks.SubagentStop
	}
	return answer(h.Fire(ctx, s, hooks.Input{Event: ev, StopHookActive: &active, LastAssistantMessage: LastAssistantText(s)}))
}

// Compact runs the PreCompact hooks.
func (h *Hooks) Compact(ctx context.Context, s *agent.Conversation, trigger, focus string) agent.HookAnswer {
	return answer(h.Fire(ctx, s, hooks.Input{Event: hooks.PreCompact, Trigger: trigger, CustomInstructions: &focus}))
}

// Notify runs the Notification hooks.
func (h *Hooks) Notify(ctx context.Context, s *agent.Conversation, kind, message string) {
	h.Fire(ctx, s, hooks.Input{Event: hooks.Notification, NotificationType: kind, Message: message})
}

// answer converts the hooks' outcome for the engine.
func answer(o hooks.Outcome) agent.HookAnswer {
	a := agent.HookAnswer{Block: o.Block, Reason: o.Reason, Stop: o.Stop, StopReason: o.StopReason, Messages: o.Messages}
	if b := o.Blocker; b != nil {
		a.Rule, a.Source = fmt.Sprintf("%s hook %q", b.Event, b.Command), b.Source
	}
	switch o.Decision {
	case hooks.DecisionAllow:
		a.Decision = agent.Allow
	case hooks.DecisionAsk:
		a.Decision = agent.Ask
	case hooks.DecisionDeny:
		a.Decision = agent.Deny
		if o.DecisionReason != "" {
			a.Reason = o.DecisionReason
		}
	}
	if a.Reason == "" {
		a.Reason = o.DecisionReason
	}
	for i, c := range o.Context {
		if i > 0 {
			a.Context += "\n"
		}
		a.Context += c
	}
	return a
}

// PromptBlockedError is the error of a run whose prompt a
// UserPromptSubmit hook blocked (exit 2 or decision "block"); Reason is
// the hook's stderr or reason, for the user. The prompt was not sent.
type PromptBlockedError struct{ Reason string }

// Error implements error.
func (e *PromptBlockedError) Error() string {
	return "a UserPromptSubmit hook blocked the prompt (it was not sent): " + e.Reason
}

// PromptHooks runs the UserPromptSubmit hooks on the prompt in parts: the
// parts to send (with the hooks' added context) and the hooks' messages
// for the user, or a *PromptBlockedError (its messages sent to emit).
func (h *Hooks) PromptHooks(ctx context.Context, s *agent.Conversation, parts []llm.Part, emit func(agent.Event)) ([]llm.Part, []string, error) {
	prompt := llm.Message{Role: llm.RoleUser, Parts: parts}.Text()
	out := h.Fire(ctx, s, hooks.Input{Event: hooks.UserPromptSubmit, Prompt: prompt})
	if out.Block || out.Stop {
		emitMessages(s, out.Messages, emit)
		reason := out.Reason
		if !out.Block {
			reason = out.StopReason
		}
		return nil, nil, &PromptBlockedError{Reason: reason}
	}
	for _, c := range out.Context {
		parts = append(parts, llm.Part{Type: llm.PartText, Text: "UserPromptSubmit hook additional context:\n" + c})
	}
	return parts, out.Messages, nil
}

// emitMessages sends the hooks' messages for the user as error events.
func emitMessages(s *agent.Conversation, msgs []string, emit func(agent.Event)) {
	for _, m := range msgs {
		emit(agent.Event{Type: agent.EventError, SessionID: s.ID, Error: &agent.ErrorInfo{Message: m, Kind: "hook"}})
	}
}

// AfterSession returns emit that sends msgs (hook messages) right after
// the run's session event, which stays the first event of a run.
func AfterSession(s *agent.Conversation, msgs []string, emit func(agent.Event)) func(agent.Event) {
	if len(msgs) == 0 {
		return emit
	}
	return func(e agent.Event) {
		emit(e)
		if e.Type == agent.EventSession && msgs != nil {
			emitMessages(s, msgs, emit)
			msgs = nil
		}
	}
}

var _ agent.Hooks = (*Hooks)(nil)

// HookAgent is what a subagent's hooks tell of it: the session that
// started it (the main session: SubagentStop's session_id and
// transcript_path) and its type (agent_type, the matcher); the child
// session's id is agent_id.
type HookAgent struct {
	Parent *agent.Conversation
	Type   string
}

// EngineHooks is h as the engine's hooks (a nil interface for nil).
func EngineHooks(h *Hooks) agent.Hooks {
	if h == nil {
		return nil
	}
	return h
}
