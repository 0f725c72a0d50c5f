package app

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app/engine"
	"github.com/zelvior/aidex/internal/atomicfile"
	"github.com/zelvior/aidex/internal/config"
	"github.com/zelvior/aidex/internal/hooks"
	"github.com/zelvior/aidex/internal/llm"
)

// loadHooks reads the hooks of the runtime's files (see hooks.Load): the
// global ones always, the project's only when the folder is trusted (the
// others are listed, with a warning, and never run). Errors: a malformed
// hook in a file that counts.
func (rt engineRoom) loadHooks(o Options) error {
	c := rt.Config
	src := hooks.ProjectSources(c.Paths.ConfigFile, c.Paths.Home, rt.Workspace, c.ProjectTrusted)
	src.Plugins = rt.Plugins().pluginHookSources()
	list, warnings, err := hooks.Load(src)
	if err != nil {
		return err
	}
	for _, w := range warnings {
		rt.Warnings = append(rt.Warnings, config.Warning{Message: w})
	}
	ignored := 0
	for _, h := range list {
		if h.Ignored != "" {
			ignored++
		}
	}
	if ignored > 0 {
		rt.Warnings = append(rt.Warnings, config.Warning{Message: fmt.Sprintf(
			"%d hook(s) of this project are ignored because the folder is not trusted; review them with 'aidex hooks list', then 'aidex trust' to run them", ignored)})
	}
	rt.hooks = &hooks.Runner{Hooks: list, ProjectDir: rt.Workspace, Log: o.HookLog, Sandbox: hookConfiner{rt.runtimeView}}
	if sh, err := rt.CommandShell(); err == nil {
		rt.hooks.Shell = sh
	}
	return nil
}

// hookConfiner runs hook commands in the runtime's sandbox, the one the
// model's commands run in (decided, and built, when the first hook runs):
// a hook's program may be a workspace file the model edited.
type hookConfiner struct{ rt *Runtime }

// Confine runs cmd in the runtime's sandbox; ok is false when commands
// run unsandboxed. Errors: the sandbox was asked for and cannot be had
// or built (fail closed).
func (c hookConfiner) Confine(cmd *exec.Cmd) (bool, error) {
	on, err := c.rt.toolRoom().sandboxOn()
	if err != nil || !on {
		return false, err
	}
	return true, lazyConfiner(c).Confine(cmd, false)
}

// Explain says when output shows that the sandbox stopped a hook.
func (c hookConfiner) Explain(output string) string { return lazyConfiner(c).Explain(output) }

// Begin starts the audit of a confined hook.
func (c hookConfiner) Begin() func() []string { return lazyConfiner(c).Begin() }

var _ hooks.Confiner = hookConfiner{}

// Hooks returns the configured hooks, with the file each came from;
// Ignored is set on those that do not run (untrusted project).
func (rt *Runtime) Hooks() []hooks.Hook {
	if rt.hooks == nil {
		return nil
	}
	return rt.hooks.Hooks
}

// hookRunner returns the runtime's hook runner (nil when none is loaded),
// for callers that fire an event themselves.
func (rt engineRoom) hookRunner() *hooks.Runner { return rt.hooks }

// hookAdapterFor returns the hooks of an engine built with o (nil when
// no hook would run): o's hook state (a live session's: its
// CLAUDE_ENV_FILE variables and transcripts folder; nil: a state of the
// adapter's own) and, for a subagent, what its SubagentStop tells.
func (rt engineRoom) hookAdapterFor(o EngineOptions) *hookAdapter {
	if rt.hooks == nil || !rt.anyHook() {
		return nil
	}
	st := o.hookState
	if st == nil {
		st = &hookState{}
	}
	return &hookAdapter{r: rt.hooks, workspace: rt.Workspace, mode: claudeMode(rt.Config.PermissionMode),
		model: rt.Provider.Name + "/" + rt.Model, transcripts: filepath.Join(rt.Config.Paths.DataDir, "transcripts"),
		subagent: o.Subagent, agent: o.hookAgent, state: st,
		sandboxed: func() bool { on, _ := rt.toolRoom().sandboxOn(); return on }}
}

// engineHooks is h as the engine's hooks (a nil interface for nil).
func engineHooks(h *hookAdapter) agent.Hooks {
	if h == nil {
		return nil
	}
	return h
}

func (rt engineRoom) anyHook() bool {
	for _, ev := range hooks.Events() {
		if rt.hooks.Active(ev) {
			return true
		}
	}
	return false
}

// claudeMode names an aidex permission mode as Claude Code does.
func claudeMode(m string) string {
	switch m {
	case "ask", "":
		return "default"
	case "auto-edit":
		return "acceptEdits"
	case "yolo":
		return "bypassPermissions"
	}
	return m
}

// hookAdapter adapts the hook runner to the engine (agent.Hooks) and to
// the session's own points (SessionStart, UserPromptSubmit, SessionEnd).
type hookAdapter struct {
	r           *hooks.Runner
	workspace   string
	mode        string
	model       string // "provider/model", SessionStart's model
	transcripts string // the folder of the JSONL transcripts given to hooks
	subagent    bool
	agent       *hookAgent  // a subagent's engine: who it is (nil: not one, or not known)
	state       *hookState  // the scope's exported variables and transcripts temp folder
	sandboxed   func() bool // hooks not marked "sandbox": false run in the sandbox
}

// hookAgent is what a subagent's hooks tell of it: the session that
// started it (the main session: SubagentStop's session_id and
// transcript_path) and its type (agent_type, the matcher); the child
// session's id is agent_id.
type hookAgent struct {
	parent *agent.Conversation
	typ    string
}

// fire runs ev's matching hooks for session s. The transcript file is
// written first (only when a hook will run). A failure of the hooks
// themselves (ctx ended) is a message for the user.
func (h *hookAdapter) fire(ctx context.Context, s *agent.Conversation, in hooks.Input) hooks.Outcome {
	in.SessionID, in.Cwd, in.PermissionMode = s.ID, h.workspace, h.mode
	if in.Event == hooks.SubagentStop && h.agent != nil {
		in.AgentType = h.agent.typ // the matcher's
	}
	list := h.r.Matching(&in)
	if len(list) == 0 {
		return hooks.Outcome{}
	}
	dir := h.transcripts
	if h.sandboxed != nil && slices.ContainsFunc(list, func(x *hooks.Hook) bool { return !x.Unsandboxed }) && h.sandboxed() {
		var err error
		if dir, err = h.state.transcripts(); err != nil {
			return hooks.Outcome{Messages: []string{fmt.Sprintf("%s hooks: transcript: %v", in.Event, err)}}
		}
	}
	path, err := writeTranscript(dir, s, h.workspace)
	if err != nil {
		return hooks.Outcome{Messages: []string{fmt.Sprintf("%s hooks: %v", in.Event, err)}}
	}
	in.TranscriptPath = path
	if in.Event == hooks.SubagentStop && h.agent != nil {
		// Claude Code's: the main session's id and transcript, the
		// subagent's own as agent_id and agent_transcript_path.
		in.AgentID, in.AgentTranscript = s.ID, path
		in.SessionID = h.agent.parent.ID
		if in.TranscriptPath, err = writeTranscript(dir, h.agent.parent, h.workspace); err != nil {
			return hooks.Outcome{Messages: []string{fmt.Sprintf("%s hooks: %v", in.Event, err)}}
		}
	}
	out, err := h.r.Fire(ctx, in)
	if err != nil {
		out.Messages = append(out.Messages, err.Error())
	}
	return out
}

// writeTranscript writes session s as dir/<session>.jsonl, the file
// hooks are given as transcript_path, in Claude Code's transcript format
// (engine.ClaudeTranscript): aidex keeps sessions in SQLite, so the file is
// written for them (dir: the data folder's transcripts/, or for
// sandboxed hooks the scope's temp folder).
func writeTranscript(dir string, s *agent.Conversation, workspace string) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("transcript folder: %w", err)
	}
	data, err := engine.ClaudeTranscript(s, workspace)
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
func (h *hookAdapter) toolInput(ev hooks.Event, c *agent.Call) hooks.Input {
	name, input := hooks.ClaudeTool(c.Name, c.Args, h.workspace)
	return hooks.Input{Event: ev, ToolName: name, ToolInput: input, ToolUseID: c.ID, AidexToolName: c.Name, AidexToolInput: c.Args}
}

// BeforeTool runs the PreToolUse hooks.
func (h *hookAdapter) BeforeTool(ctx context.Context, s *agent.Conversation, c *agent.Call) agent.HookAnswer {
	out := h.fire(ctx, s, h.toolInput(hooks.PreToolUse, c))
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
func (h *hookAdapter) Permission(ctx context.Context, s *agent.Conversation, c *agent.Call) agent.HookAnswer {
	return answer(h.fire(ctx, s, h.toolInput(hooks.PermissionRequest, c)))
}

// AfterTool runs the PostToolUse hooks (PostToolUseFailure for a failed
// call).
func (h *hookAdapter) AfterTool(ctx context.Context, s *agent.Conversation, c *agent.Call, res agent.ToolResultInfo) agent.HookAnswer {
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
	return answer(h.fire(ctx, s, in))
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
func (h *hookAdapter) Stop(ctx context.Context, s *agent.Conversation, active bool) agent.HookAnswer {
	ev := hooks.Stop
	if h.subagent {
		ev = hooks.SubagentStop
	}
	return answer(h.fire(ctx, s, hooks.Input{Event: ev, StopHookActive: &active, LastAssistantMessage: engine.LastAssistantText(s)}))
}

// Compact runs the PreCompact hooks.
func (h *hookAdapter) Compact(ctx context.Context, s *agent.Conversation, trigger, focus string) agent.HookAnswer {
	return answer(h.fire(ctx, s, hooks.Input{Event: hooks.PreCompact, Trigger: trigger, CustomInstructions: &focus}))
}

// Notify runs the Notification hooks.
func (h *hookAdapter) Notify(ctx context.Context, s *agent.Conversation, kind, message string) {
	h.fire(ctx, s, hooks.Input{Event: hooks.Notification, NotificationType: kind, Message: message})
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

// promptHooks runs the UserPromptSubmit hooks on the prompt in parts: the
// parts to send (with the hooks' added context) and the hooks' messages
// for the user, or a *PromptBlockedError (its messages sent to emit).
func (h *hookAdapter) promptHooks(ctx context.Context, s *agent.Conversation, parts []llm.Part, emit func(agent.Event)) ([]llm.Part, []string, error) {
	prompt := llm.Message{Role: llm.RoleUser, Parts: parts}.Text()
	out := h.fire(ctx, s, hooks.Input{Event: hooks.UserPromptSubmit, Prompt: prompt})
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

func emitMessages(s *agent.Conversation, msgs []string, emit func(agent.Event)) {
	for _, m := range msgs {
		emit(agent.Event{Type: agent.EventError, SessionID: s.ID, Error: &agent.ErrorInfo{Message: m, Kind: "hook"}})
	}
}

// afterSession returns emit that sends msgs (hook messages) right after
// the run's session event, which stays the first event of a run.
func afterSession(s *agent.Conversation, msgs []string, emit func(agent.Event)) func(agent.Event) {
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

var _ agent.Hooks = (*hookAdapter)(nil)
