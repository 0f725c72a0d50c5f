package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/llm"
)

// EngineTool is a tool the engine itself answers (todo_write, Ralph's
// complete_task): it changes the session or the run, not the workspace, so
// the permission policy is not asked.
//
// Run answers a call; Call, when set, is used instead and also gets the
// call's id and the run's event stream (the task tool reports its child's
// events through it). Concurrent tools (task) run in parallel with the
// other concurrent calls next to them in one response, as read-only calls
// do; the tool itself bounds how many run at once.
type EngineTool struct {
	Spec       llm.Tool
	Run        func(ctx context.Context, s *Conversation, args json.RawMessage) ToolResultInfo
	Call       func(ctx context.Context, c EngineCall, args json.RawMessage) ToolResultInfo
	Concurrent bool
}

// EngineCall is what an EngineTool's Call gets besides the arguments: the
// conversation, the id of the model's tool call, and Emit, which reports an
// event in the run's stream (safe to call from several goroutines; the
// engine serialises the stream).
type EngineCall struct {
	Conversation *Conversation
	ID           string
	Emit         func(Event)
}

// answer runs an engine tool's call id with args.
func (x *EngineTool) answer(ctx context.Context, r *run, id string, args json.RawMessage) ToolResultInfo {
	var res ToolResultInfo
	args = coerceStrings(x.Spec.Parameters, args)
	if x.Call != nil {
		res = x.Call(ctx, EngineCall{Conversation: r.s, ID: id, Emit: r.emit}, args)
	} else {
		res = x.Run(ctx, r.s, args)
	}
	res.ID, res.Name = id, x.Spec.Name
	return res
}

// Offered returns the tools a run of e offers the model: the registry's,
// then the engine's own (todo_write, ask_user when an Asker answers,
// Config.EngineTools), in the order a request lists them.
func (e *Engine) Offered() []llm.Tool {
	r := &run{e: e, cfg: e.Config}
	r.tools = e.Tools
	return r.specs()
}

func (r *run) specs() []llm.Tool {
	var specs []llm.Tool
	if r.tools != nil {
		specs = append(specs, r.tools.Specs()...)
	}
	for _, x := range r.engineTools() {
		specs = append(specs, x.Spec)
	}
	return specs
}

func (r *run) engineTools() []EngineTool {
	list := []EngineTool{todoTool(r)}
	if r.e.Asker != nil {
		list = append(list, askTool(r))
	}
	return append(list, r.cfg.EngineTools...)
}

func (r *run) extra(name string) *EngineTool {
	for _, x := range r.engineTools() {
		if x.Spec.Name == name {
			return &x
		}
	}
	return nil
}

// slot is one tool call of a model response on its way to a result. err
// is an infrastructure failure of its run (see Tools.Run).
type slot struct {
	tc        llm.ToolCall
	call      *Call
	result    ToolResultInfo
	done      bool
	err       error
	readsOnly bool // the policy found the call only reads (Verdict.ReadsOnly)
	// engine is the concurrent engine tool answering the call (nil: a
	// registry tool, in call).
	engine *EngineTool
	// note is added to the result the model gets (not to the event): a
	// harness nudge (loops.go).
	note string
}

// batchClass says which calls may share a parallel batch: read-only
// registry calls (1), concurrent engine tools (2); 0 runs alone.
func (sl *slot) batchClass() int {
	switch {
	case sl.engine != nil:
		return 2
	case sl.call != nil && sl.call.ReadOnly:
		return 1
	}
	return 0
}

// errInfrastructure marks the error a run aborts with when a tool could
// not run for a reason of aidex's own (see Tools.Run).
var errInfrastructure = errors.New("aidex could not run a tool")

// runCalls decides and runs the calls of one model response, in order,
// running consecutive read-only calls in parallel (and consecutive
// concurrent engine tools: task), and appends the tool
// message with every call's result (cancelled calls included, so the next
// request stays valid).
func (r *run) runCalls(ctx context.Context, calls []llm.ToolCall, textMode bool) error {
	slots := make([]*slot, len(calls))
	var batch []*slot
	var failed error
	for i, tc := range calls {
		sl := &slot{tc: tc}
		slots[i] = sl
		r.emit(Event{Type: EventToolCall, SessionID: r.s.ID, ToolCall: &ToolCallInfo{ID: tc.ID, Name: tc.Name, Arguments: tc.Arguments}})
		switch {
		case failed != nil:
			r.finish(sl, notRun(tc))
			continue
		case ctx.Err() != nil:
			r.finish(sl, cancelledResult(tc))
			continue
		case !r.decide(ctx, sl):
			continue
		}
		cls := sl.batchClass()
		if cls != 0 && (len(batch) == 0 || batch[0].batchClass() == cls) {
			batch = append(batch, sl)
			continue
		}
		failed = r.execute(ctx, batch)
		batch = nil
		switch {
		case failed != nil:
			r.finish(sl, notRun(tc))
		case cls != 0:
			batch = []*slot{sl}
		default:
			failed = r.execute(ctx, []*slot{sl})
		}
	}
	if err := r.execute(ctx, batch); failed == nil {
		failed = err
	}
	r.planNudge(slots)
	results := make([]llm.ToolResult, len(slots))
	var images []llm.Part
	for i, sl := range slots {
		results[i] = modelResult(sl)
		if sl.done && sl.result.OK {
			images = append(images, sl.result.Images...)
		}
	}
	msg := resultMessage(results, textMode)
	msg.Parts = append(msg.Parts, images...)
	if err := r.append(ctx, msg, nil); err != nil {
		return err
	}
	return failed
}

// decide prepares a call and asks the policy (and, when it says ask, the
// user). It reports whether the call should run; otherwise its result is set.
func (r *run) decide(ctx context.Context, sl *slot) bool {
	tc := sl.tc
	if tc.ArgsError != "" {
		r.finish(sl, ToolResultInfo{ID: tc.ID, Name: tc.Name, Error: tc.ArgsError, Category: "validation"})
		return false
	}
	if x := r.extra(tc.Name); x != nil {
		if x.Concurrent {
			sl.call = &Call{ID: tc.ID, Name: tc.Name, Args: tc.Arguments, Kind: kind.Other}
			if _, ok := r.beforeTool(ctx, sl); !ok {
				return false
			}
			sl.engine = x
			return true
		}
		r.runEngineTool(ctx, sl, x)
		return false
	}
	if r.tools == nil {
		r.finish(sl, ToolResultInfo{ID: tc.ID, Name: tc.Name, Error: "no tools are available in this session", Category: "not_found"})
		return false
	}
	call, bad := r.tools.Prepare(tc.Name, tc.Arguments)
	if bad != nil {
		bad.ID, bad.Name = tc.ID, tc.Name
		r.finish(sl, *bad)
		return false
	}
	call.ID = tc.ID
	sl.call = call
	hook, ok := r.beforeTool(ctx, sl)
	if !ok {
		return false
	}
	if r.e.Policy == nil {
		return true
	}
	v := hookVerdict(r.e.Policy.Check(sl.call), hook.Decision, hook.Reason)
	sl.readsOnly = v.ReadsOnly
	switch v.Decision {
	case Allow:
		return true
	case Ask:
		return r.ask(ctx, sl, v)
	}
	r.deny(sl, policyDenial(v), denialInfo(v, sl.call))
	return false
}

// runEngineTool runs an engine-owned tool (todo_write, complete_task):
// no policy is asked, but the PreToolUse hooks may refuse it or rewrite
// its arguments, and the PostToolUse hooks see its result.
func (r *run) runEngineTool(ctx context.Context, sl *slot, x *EngineTool) {
	tc := sl.tc
	sl.call = &Call{ID: tc.ID, Name: tc.Name, Args: tc.Arguments, Kind: kind.Other}
	if _, ok := r.beforeTool(ctx, sl); !ok {
		return
	}
	res := x.answer(ctx, r, tc.ID, sl.call.Args)
	if ctx.Err() == nil {
		res = r.afterTool(ctx, sl, res)
	}
	r.finish(sl, res)
}

// ask puts an approval request to the user, or denies when no one can be
// asked.
func (r *run) ask(ctx context.Context, sl *slot, v Verdict) bool {
	if decided, run := r.permissionHook(ctx, sl, v); decided {
		return run
	}
	if r.e.Approver == nil {
		d := denialInfo(v, sl.call)
		r.deny(sl, fmt.Sprintf("%s needs approval (%s), and no one can be asked in this mode; the user can allow it with %s", sl.call.Name, ruleText(v), allowHint(d.Allow)), d)
		return false
	}
	if sl.call.Preview == "" && sl.call.Previewer != nil {
		sl.call.Preview = sl.call.Previewer(ctx)
	}
	info := ApprovalInfo{ID: "ap_" + sl.tc.ID, CallID: sl.tc.ID, Tool: sl.call.Name, Arguments: sl.call.Args,
		Diff: sl.call.Preview, Command: ShowControls(sl.call.Command), Rule: ruleText(v), Why: ApprovalWhy(v, sl.call.Kind), Reason: v.Reason, Suggested: v.Suggested}
	r.emit(Event{Type: EventApproval, SessionID: r.s.ID, Approval: &info})
	r.notify(ctx, "permission_prompt", "aidex needs your permission to use "+sl.call.Name)
	d, reason, err := r.e.Approver.Approve(ctx, info)
	if err != nil || ctx.Err() != nil {
		r.finish(sl, cancelledResult(sl.tc))
		return false
	}
	answered := info
	answered.Answer, answered.Reason = d, reason
	r.emit(Event{Type: EventApproval, SessionID: r.s.ID, Approval: &answered})
	switch d {
	case AnswerOnce:
		return true
	case AnswerSession, AnswerAlways:
		if info.Suggested == "" {
			return true // no rule may allow such calls: the answer allows this one
		}
		if err := r.e.Policy.Remember(d, info.Suggested); err != nil {
			r.emit(Event{Type: EventError, SessionID: r.s.ID, Error: &ErrorInfo{Message: "could not save the rule: " + err.Error(), Kind: "engine"}})
		}
		return true
	}
	msg := "the user denied this call"
	if reason != "" {
		msg += ": " + reason
	}
	r.deny(sl, msg, nil)
	return false
}

// deny refuses a call: d describes a refusal by the policy (nil when the
// user said no).
func (r *run) deny(sl *slot, msg string, d *DenialInfo) {
	r.denials++
	r.finish(sl, ToolResultInfo{ID: sl.tc.ID, Name: sl.tc.Name, Error: msg, Category: "permission", Denial: d})
}

// execute runs the slots concurrently (a batch holds only read-only calls,
// or a single call) and reports each result as it completes. It returns
// the first infrastructure failure (the failing call's result then tells
// the model only that aidex failed; the error goes to the user).
func (r *run) execute(ctx context.Context, batch []*slot) error {
	if len(batch) == 0 {
		return nil
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	slots := r.readSlots(batch)
	for _, sl := range batch {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if slots != nil {
				slots <- struct{}{}
				defer func() { <-slots }()
			}
			res, err := r.runOne(ctx, sl)
			if err == nil && ctx.Err() == nil {
				res = r.afterTool(ctx, sl, res)
			}
			mu.Lock()
			defer mu.Unlock()
			sl.err = err
			r.finish(sl, res)
		}()
	}
	wg.Wait()
	for _, sl := range batch {
		if sl.err != nil {
			return fmt.Errorf("%w: %s: %w", errInfrastructure, sl.call.Name, sl.err)
		}
	}
	return nil
}

// runOne runs one approved call and times it.
func (r *run) runOne(ctx context.Context, sl *slot) (ToolResultInfo, error) {
	start := r.e.Now()
	if sl.engine != nil {
		// execute runs the PostToolUse hooks of every call it ran, engine
		// tools' included: once.
		res := sl.engine.answer(ctx, r, sl.tc.ID, sl.call.Args)
		res.DurationMS = time.Since(start).Milliseconds()
		return res, nil
	}
	res, err := r.tools.Run(ctx, sl.call)
	if err == nil && res.RetryUnconfined != "" && !sl.call.Unconfined && r.approveUnconfined(ctx, sl, res.RetryUnconfined) {
		sl.call.Unconfined = true
		res, err = r.tools.Run(ctx, sl.call)
	}
	if err != nil {
		res = ToolResultInfo{Error: "not run: aidex failed internally (the error was shown to the user)", Category: "execution"}
	}
	res.ID, res.Name = sl.tc.ID, sl.call.Name
	res.DurationMS = time.Since(start).Milliseconds()
	if err == nil && ctx.Err() != nil && !res.OK {
		res = cancelledResult(sl.tc)
	}
	return res, err
}

// RuleSandbox is the rule of the approval that offers to run a call
// again outside the OS sandbox after the sandbox stopped it.
const RuleSandbox = "sandbox"

// RuleTrust is the rule of the approvals that review a trusted project's
// new or changed content before a session's first run (internal/trust):
// an allow approves the item, "always" records it.
const RuleTrust = "trust review"

// approveUnconfined asks the user whether a call the OS sandbox stopped
// may run again without it (reason says why); false without an Approver,
// on a denial or a cancellation. An allow of any kind allows this call
// only: no rule is saved.
func (r *run) approveUnconfined(ctx context.Context, sl *slot, reason string) bool {
	if r.e.Approver == nil || ctx.Err() != nil {
		return false
	}
	info := ApprovalInfo{ID: "ap_" + sl.tc.ID + "_unsandboxed", CallID: sl.tc.ID, Tool: sl.call.Name, Arguments: sl.call.Args,
		Command: ShowControls(sl.call.Command), Rule: RuleSandbox, Why: strings.TrimSpace(reason), Reason: reason}
	r.emit(Event{Type: EventApproval, SessionID: r.s.ID, Approval: &info})
	d, why, err := r.e.Approver.Approve(ctx, info)
	if err != nil || ctx.Err() != nil {
		return false
	}
	answered := info
	answered.Answer, answered.Reason = d, why
	r.emit(Event{Type: EventApproval, SessionID: r.s.ID, Approval: &answered})
	return d == AnswerOnce || d == AnswerSession || d == AnswerAlways
}

// finish records a call's result and reports it; calls of execute run
// concurrently but finish one at a time.
func (r *run) finish(sl *slot, res ToolResultInfo) {
	sl.result, sl.done = res, true
	if res.Category == "permission" && sl.call != nil && !sl.readsOnly && (sl.call.Kind == kind.Write || sl.call.Kind == kind.Exec) {
		r.deniedChanges++ // a change refused: see DoneInfo.DeniedChanges
	}
	r.noteChange(sl, res)
	r.noteFailure(sl, res)
	r.emit(Event{Type: EventToolResult, SessionID: r.s.ID, ToolResult: &res})
}

// closeCalls answers calls that will not run (so the conversation stays
// valid) without running them.
func (r *run) closeCalls(ctx context.Context, calls []llm.ToolCall, textMode bool, why string) {
	results := make([]llm.ToolResult, len(calls))
	for i, c := range calls {
		results[i] = llm.ToolResult{CallID: c.ID, Name: c.Name, Content: why, IsError: true}
	}
	if err := r.append(ctx, resultMessage(results, textMode), nil); err != nil {
		r.emit(Event{Type: EventError, SessionID: r.s.ID, Error: &ErrorInfo{Message: err.Error(), Kind: "engine"}})
	}
}

// resultMessage is the message carrying results: native tool results, or
// text for a model that wrote its calls as text.
func resultMessage(results []llm.ToolResult, textMode bool) llm.Message {
	if textMode {
		return textResults(results)
	}
	return llm.ToolResults(results...)
}

// modelResult is the text the model sees for a slot.
func modelResult(sl *slot) llm.ToolResult {
	res := sl.result
	if !sl.done {
		res = cancelledResult(sl.tc)
	}
	tr := llm.ToolResult{CallID: sl.tc.ID, Name: sl.tc.Name, Content: res.Output}
	if !res.OK {
		tr.IsError = true
		tr.Content = "Error"
		if res.Category != "" {
			tr.Content += " (" + res.Category + ")"
		}
		tr.Content += ": " + res.Error
		if res.Output != "" {
			tr.Content += "\n" + res.Output
		}
	}
	if tr.Content == "" {
		tr.Content = "(no output)"
	}
	tr.Content = RevealInvisible(tr.Content)
	if sl.note != "" {
		tr.Content += "\n\n" + sl.note
	}
	return tr
}

// notRun is the result of a call left alone after an infrastructure
// failure stopped the run.
func notRun(tc llm.ToolCall) ToolResultInfo {
	return ToolResultInfo{ID: tc.ID, Name: tc.Name, Error: "not run: the run was stopped by an error in aidex", Category: "execution"}
}

func cancelledResult(tc llm.ToolCall) ToolResultInfo {
	return ToolResultInfo{ID: tc.ID, Name: tc.Name, Error: "cancelled by the user before it completed", Category: "execution"}
}

func policyDenial(v Verdict) string {
	msg := "denied by the permission policy"
	if v.Reason != "" {
		msg += ": " + v.Reason
	}
	// The rule once: permission's reasons mostly name it already.
	if r := ruleText(v); r != "" && (v.Rule == "" || !strings.Contains(v.Reason, v.Rule)) {
		msg += " [" + r + "]"
	}
	return msg
}

// ruleText names the rule and where it came from: `rule run_command(rm *) in /ws/.aidex/config.toml`.
func ruleText(v Verdict) string {
	switch {
	case v.Rule != "" && v.Source != "":
		return "rule " + v.Rule + " from " + v.Source
	case v.Rule != "":
		return v.Rule
	}
	return ""
}

// ApprovalWhy says in plain words why a call of kind k asks, for the
// approval prompt: the user's own rule that asks and where it is written,
// the permission mode that asks for such calls, or the sentence of the
// built-in protection that asks (a protected path, safe_mode, a command
// the shell analysis doubts).
func ApprovalWhy(v Verdict, k kind.Kind) string {
	mode := strings.TrimPrefix(v.Rule, "mode ")
	switch {
	case v.ModeOnly && mode != v.Rule:
		what := "Calls of this tool"
		switch k {
		case kind.Exec:
			what = "Commands that may change something"
		case kind.Write:
			what = "Changes to files"
		case kind.Network:
			what = "Network requests"
		}
		return fmt.Sprintf("%s ask in %s mode (an allow rule or another mode lets them run).", what, mode)
	case v.Rule != "" && v.Source != "" && v.Source != "built-in":
		where := "in " + v.Source
		switch v.Source {
		case "flag":
			where = "given with --ask"
		case "session":
			where = "set in this session"
		case "default":
			where = "a default rule"
		}
		return fmt.Sprintf("Your rule %s asks (%s).", v.Rule, where)
	}
	return strings.TrimSpace(v.Reason)
}

// denialInfo describes the policy's refusal of c.
func denialInfo(v Verdict, c *Call) *DenialInfo {
	d := &DenialInfo{Tool: c.Name, Command: c.Command, Paths: c.Paths, Decision: v.Decision, Rule: v.Rule, Source: v.Source}
	if d.Decision != Deny || v.Unasked {
		d.Decision = Ask
		d.Allow = v.Suggested
	}
	return d
}

// allowHint tells the user how to allow a call headless: the policy's
// suggested rule, the narrowest that allows it (never a bare tool name
// for a command or a path, which would allow every such call). With no
// rule ("") no allow rule can let the call run unasked (a path outside
// the workspace, a protected path, a command aidex cannot analyse).
func allowHint(rule string) string {
	if rule == "" {
		return "an approval in an interactive session (no --allow rule can allow it)"
	}
	return "--allow '" + rule + "' or another --permission-mode"
}

// canonicalJSON re-encodes a JSON value with sorted keys, so equal
// arguments compare equal whatever their spacing and key order.
func canonicalJSON(raw json.RawMessage) []byte {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return raw
	}
	out, err := json.Marshal(v)
	if err != nil {
		return raw
	}
	return out
}
