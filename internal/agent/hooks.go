package agent

import (
	"context"
	"encoding/json"
	"slices"
)

// Hooks are the user's hook commands at the engine's points (Claude
// Code's PreToolUse, PermissionRequest, PostToolUse(Failure), Stop,
// PreCompact and Notification); app adapts internal/hooks to it.
// Engine.Hooks nil runs none. Every method blocks while the hooks run.
type Hooks interface {
	// BeforeTool runs before the policy judges c: Decision Deny (or
	// Block) refuses it with Reason for the model, Ask forces an
	// approval, Allow skips an approval the mode alone asks for (never a
	// deny or an ask rule, a protected path, safe mode or confinement);
	// Args rewrites the arguments (prepared and judged again).
	BeforeTool(ctx context.Context, s *Conversation, c *Call) HookAnswer
	// Permission runs when an approval is about to be asked for c:
	// Decision Allow answers it yes, Deny no (Reason for the model).
	Permission(ctx context.Context, s *Conversation, c *Call) HookAnswer
	// AfterTool runs after c ran with res: Block (Reason) and Context go
	// to the model with the result.
	AfterTool(ctx context.Context, s *Conversation, c *Call, res ToolResultInfo) HookAnswer
	// Stop runs when the model answered without tool calls; active is
	// true when the run already continued because of a Stop hook. Block
	// makes the model continue with Reason.
	Stop(ctx context.Context, s *Conversation, active bool) HookAnswer
	// Compact runs before a compaction; trigger is "manual" or "auto".
	Compact(ctx context.Context, s *Conversation, trigger, focus string) HookAnswer
	// Notify tells the hooks the run waits for the user (kind
	// "permission_prompt" with the approval's message).
	Notify(ctx context.Context, s *Conversation, kind, message string)
}

// HookAnswer is what hooks answered at an engine point.
//
// Decision is Allow, Ask, Deny or "" (no opinion). Block with Reason
// blocks (the reason goes to the model). Args are rewritten arguments
// (aidex's form; nil: unchanged). Context is text added for the model.
// Stop ends the run (a hook's "continue": false) with StopReason for the
// user. Messages are for the user (a hook's systemMessage, a failing
// hook). Rule and Source name the hook that blocked or denied (its event
// and command, its configuration file), for the call's DenialInfo.
type HookAnswer struct {
	Decision   Decision
	Reason     string
	Block      bool
	Args       json.RawMessage
	Context    string
	Stop       bool
	StopReason string
	Messages   []string
	Rule       string
	Source     string
}

// StopHook is the stop reason of a run a hook ended ("continue": false).
const StopHook StopReason = "hook"

// hookMessages shows the hooks' messages to the user as non-fatal errors
// of kind "hook".
func (r *run) hookMessages(a HookAnswer) {
	for _, m := range a.Messages {
		r.emit(Event{Type: EventError, SessionID: r.s.ID, Error: &ErrorInfo{Message: m, Kind: "hook"}})
	}
}

// beforeTool asks the PreToolUse hooks about sl's call, re-preparing it
// when they rewrote its arguments. It reports the answer, and false when
// the call was refused (its result then set).
func (r *run) beforeTool(ctx context.Context, sl *slot) (HookAnswer, bool) {
	if r.e.Hooks == nil {
		return HookAnswer{}, true
	}
	a := r.e.Hooks.BeforeTool(ctx, r.s, sl.call)
	r.hookMessages(a)
	if a.Stop {
		r.hookStop = &a
	}
	if a.Block || a.Decision == Deny || a.Stop {
		reason := a.Reason
		if reason == "" {
			reason = a.StopReason
		}
		r.hookDeny(sl, "blocked by a PreToolUse hook: "+reason, a, "PreToolUse hook")
		return a, false
	}
	if len(a.Args) > 0 && r.extra(sl.call.Name) != nil {
		sl.call.Args = a.Args // an engine tool: its Run checks the arguments
	} else if len(a.Args) > 0 {
		call, bad := r.tools.Prepare(sl.call.Name, a.Args)
		if bad != nil {
			bad.ID, bad.Name = sl.tc.ID, sl.tc.Name
			bad.Error = "the arguments a PreToolUse hook rewrote are invalid: " + bad.Error
			r.finish(sl, *bad)
			return a, false
		}
		call.ID = sl.tc.ID
		sl.call = call
	}
	return a, true
}

// hookDeny refuses a call a hook blocked or denied: a denial whose
// source is the hook (a's Rule and Source; rule when it names none),
// counted apart from the policy's (DoneInfo.HookDenials), as Claude Code
// does: a run whose call a hook refused has still finished.
func (r *run) hookDeny(sl *slot, msg string, a HookAnswer, rule string) {
	r.hookDenials++
	d := &DenialInfo{Tool: sl.tc.Name, Decision: Deny, Rule: a.Rule, Source: a.Source, Hook: true}
	if d.Rule == "" {
		d.Rule = rule
	}
	if sl.call != nil {
		d.Tool, d.Command, d.Paths = sl.call.Name, sl.call.Command, sl.call.Paths
	}
	r.finish(sl, ToolResultInfo{ID: sl.tc.ID, Name: sl.tc.Name, Error: msg, Category: "permission", Denial: d})
}

// hookVerdict applies a PreToolUse hook's decision to the policy's
// verdict: a hook never loosens a deny, an ask rule, a protected path,
// safe mode or confinement (only an ask of the mode alone, ModeOnly, is
// skipped by its allow); its ask turns an allow into an ask.
func hookVerdict(v Verdict, d Decision, reason string) Verdict {
	switch {
	case d == Allow && v.ModeOnly && (v.Decision == Ask || v.Unasked):
		return Verdict{Decision: Allow, Rule: "PreToolUse hook", Reason: reason, ReadsOnly: v.ReadsOnly}
	case d == Ask && v.Decision == Allow:
		v.Decision, v.Rule, v.Source = Ask, "PreToolUse hook", ""
		v.Reason = "a PreToolUse hook asks for approval"
		if reason != "" {
			v.Reason += ": " + reason
		}
	}
	return v
}

// permissionHook asks the PermissionRequest hooks about the approval v
// asks for: decided is true when they answered (allow: run reports
// true). Their allow answers only what an allow rule could allow
// (v.Suggested): never a protected path, a path outside the workspace or
// a command aidex cannot analyse; those still go to a person.
func (r *run) permissionHook(ctx context.Context, sl *slot, v Verdict) (decided, run bool) {
	if r.e.Hooks == nil {
		return false, false
	}
	a := r.e.Hooks.Permission(ctx, r.s, sl.call)
	r.hookMessages(a)
	switch {
	case a.Block || a.Decision == Deny:
		r.hookDeny(sl, "denied by a PermissionRequest hook: "+a.Reason, a, "PermissionRequest hook")
		return true, false
	case a.Decision == Allow && v.Suggested == "":
		r.hookMessages(HookAnswer{Messages: []string{"a PermissionRequest hook allowed " + sl.call.Name +
			", but no rule may allow this call (" + ruleText(v) + "): it needs your approval"}})
	case a.Decision == Allow:
		return true, true
	}
	return false, false
}

// afterTool runs the PostToolUse hooks of a call that ran and adds what
// they said for the model to its result.
func (r *run) afterTool(ctx context.Context, sl *slot, res ToolResultInfo) ToolResultInfo {
	if r.e.Hooks == nil || sl.call == nil {
		return res
	}
	a := r.e.Hooks.AfterTool(ctx, r.s, sl.call, res)
	r.hookMessages(a)
	if a.Stop {
		r.hookStop = &a
	}
	var note string
	if a.Block {
		note = "PostToolUse hook feedback: " + a.Reason
	}
	if a.Context != "" {
		note = joinNote(note, a.Context)
	}
	if note != "" {
		if res.OK {
			res.Output = joinNote(res.Output, note)
		} else {
			res.Error = joinNote(res.Error, note)
		}
	}
	return res
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "\n\n" + b
}

// stopHook runs the Stop hooks when the model answered; it returns the
// message to continue with ("" to end the run). As in Claude Code, a
// Stop hook may keep the run going round after round (stop_hook_active
// tells it the run already continued for a Stop hook); each round is a
// model response, counted toward the turn limit and charged to the
// budget, so a hook that never lets go ends the run there.
func (r *run) stopHook(ctx context.Context) string {
	if r.e.Hooks == nil {
		return ""
	}
	a := r.e.Hooks.Stop(ctx, r.s, r.stopActive)
	r.hookMessages(a)
	if a.Stop {
		r.hookStop = &a
		return ""
	}
	if !a.Block {
		return ""
	}
	r.stopActive = true
	reason := a.Reason
	if reason == "" {
		reason = "a Stop hook asks you to continue"
	}
	return "Stop hook feedback: " + reason
}

// notify tells the Notification hooks that the run waits for the user.
// They run in the background (a desktop notification must not delay the
// approval it announces), on a copy of the session, and finish even when
// the approval is answered first.
func (r *run) notify(ctx context.Context, kind, message string) {
	if r.e.Hooks == nil {
		return
	}
	cp := &Conversation{ID: r.s.ID, Workspace: r.s.Workspace, Messages: slices.Clone(r.s.Messages)}
	go r.e.Hooks.Notify(context.WithoutCancel(ctx), cp, kind, message)
}
