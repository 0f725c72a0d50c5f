package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app/engine"
	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/permission"
	"github.com/zelvior/aidex/internal/tools"
)

// CallOptions configure a direct tool call ([Runtime.CallTool]).
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
// with the error's text; a refusal's outcome names in Suggested the allow
// rule that would let the call run. Nil: such a call is refused.
type CallOptions struct {
	Web        bool
	UserAction bool
	Approve    func(ctx context.Context, a CallApproval) (bool, error)
}

// CallApproval is what [CallOptions.Approve] is asked about: the tool, its
// arguments (JSON), the command line or URL it judges (Subject, "" when
// none), the paths the policy judged, and the rule and reason that made the
// policy ask.
type CallApproval struct {
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
	OutcomeOK          Outcome = iota // the tool ran and succeeded
	OutcomeFailed                     // the tool ran and failed (Result.Error says why)
	OutcomeInvalid                    // the arguments were invalid; nothing ran
	OutcomeUnknownTool                // no tool has that name or alias
	OutcomeRefused                    // the policy, the confinement or the front end refused it
)

// ToolOutcome is the end of a direct tool call: the tool's result (the same
// JSON the model sees, before invisible characters are revealed), how it
// ended, and the policy's verdict (zero when the call never reached the
// policy). Suggested is the narrowest allow rule that would let a call
// refused because no one could approve it run ("" otherwise, or when no
// rule can safely allow it).
type ToolOutcome struct {
	Result    tools.Result
	Outcome   Outcome
	Verdict   permission.Verdict
	Suggested string
}

// CallTool runs one tool directly, as the model would, through the same
// pipeline as the engine: the registry prepares the call (aliases,
// validation), [permissionRequest] describes it, the policy decides, and
// the tool runs in a tool environment confined like a session's (without
// read tracking: the caller is a person who sees the file). args is a JSON
// object (nil or "null": no arguments).
//
// Errors: the permission rules or mode cannot be applied (wrapping
// ErrConfig), the workspace or the tools cannot be set up, or the tool
// failed for a reason of aidex's own (wrapping ErrInternal; the outcome's
// Result then says what it returned); everything about the call itself is
// in the ToolOutcome.
func (rt *Runtime) CallTool(ctx context.Context, name string, args json.RawMessage, o CallOptions) (ToolOutcome, error) {
	ts, err := rt.NewToolClient()
	if err != nil {
		return ToolOutcome{}, err
	}
	defer ts.Close()
	return ts.CallTool(ctx, name, args, o)
}

// ToolClient is a client's series of direct tool calls (an MCP client's
// connection to `aidex mcp serve`): its calls share one tool registry, so
// that what a call starts (a background process) is still there for the
// next call (list, output, kill), until Close stops it. Safe for
// concurrent calls.
type ToolClient struct {
	rt    *Runtime
	reg   *tools.Registry
	close func()
	once  sync.Once
	// hook, when set, snapshots the workspace before the first call that
	// may change files; files, when set, keeps each file's earlier
	// version instead (no git): a user command's calls ([Session.UserChange]).
	hook  *engine.TurnHook
	files tools.Checkpointer
}

// NewToolClient starts a series of direct calls on rt's tools. Close it
// when the client goes away. Errors: the tools cannot be set up.
func (rt *Runtime) NewToolClient() (*ToolClient, error) {
	reg, closeTools, err := rt.engineRoom().registry()
	if err != nil {
		return nil, err
	}
	return &ToolClient{rt: rt, reg: reg, close: closeTools}, nil
}

// Close stops what the session's calls started (background processes).
func (s *ToolClient) Close() { s.once.Do(s.close) }

// CallTool is [Runtime.CallTool] within the session.
func (s *ToolClient) CallTool(ctx context.Context, name string, args json.RawMessage, o CallOptions) (ToolOutcome, error) {
	rt, reg := s.rt, s.reg
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	if _, ok := reg.Lookup(name); !ok {
		return ToolOutcome{Result: tools.Failf(tools.CategoryValidation, "unknown tool %q: `aidex tools` lists them", name), Outcome: OutcomeUnknownTool}, nil
	}
	ws, err := rt.NewWorkspace(o.Web)
	if err != nil {
		return ToolOutcome{}, err
	}
	policy, err := rt.engineRoom().policy(ws, o.UserAction || o.Approve != nil, reg)
	if err != nil {
		return ToolOutcome{}, configError{err}
	}
	env, err := rt.toolRoom().toolEnv(ws)
	if err != nil {
		return ToolOutcome{}, err
	}
	env.SkipReadCheck = true
	if s.files != nil {
		env.Checkpoints = s.files
	}
	ts, err := newToolSet(reg, env, tools.Profile{Name: tools.ProfileFull}, rt.engineRoom().hiddenTools(reg, engineOptions{Web: o.Web}))
	if err != nil {
		return ToolOutcome{}, err
	}
	ts.hook = s.hook
	pa := &engine.Policy{P: policy}
	return ts.call(ctx, pa, name, args, o)
}

// webShellRefusal is the refusal of shell tool name (run_command, run_python,
// the background-process tools) in the web UI, where shell tools are off
// unless web_allow_shell_tools is set: the tool result the model gets and
// the API's error both say why and how to turn them on. The web page
// recognises it by "off in the web UI".
func webShellRefusal(name string) string {
	return fmt.Sprintf("%s is off in the web UI: shell tools are off by default there (a browser-reachable server is its own trust boundary); "+
		"the user can turn them on by setting web_allow_shell_tools = true in the config file by hand and starting aidex web again", name)
}

// call is the direct call's pass through the pipeline.
func (t *toolSet) call(ctx context.Context, pa *engine.Policy, name string, args json.RawMessage, o CallOptions) (ToolOutcome, error) {
	if d, ok := t.reg.Lookup(name); ok && t.hidden[d.Name] {
		return refused(tools.Failf(tools.CategoryPermission, "%s", webShellRefusal(d.Name)), permission.Verdict{}), nil
	}
	c, bad := t.Prepare(name, args)
	if bad != nil {
		return ToolOutcome{Result: tools.Result{Error: bad.Error, Category: tools.Category(bad.Category)}, Outcome: OutcomeInvalid}, nil
	}
	req := engine.CallRequest(c)
	v := pa.P.Check(req)
	if v.Decision == permission.Deny {
		return refused(tools.Failf(refusalCategory(v), "%s", refusalMessage(v)), v), nil
	}
	if v.Decision == permission.Ask && o.Approve != nil && !o.UserAction {
		if out, stop := approveCall(ctx, pa.P, c, args, req, v, o); stop {
			return out, nil
		}
	}
	if c.Kind == kind.Write && o.UserAction {
		if p := protectedPath(pa.P.Workspace(), req.Paths, v.Resolved); p != "" {
			return refused(tools.Failf(tools.CategorySecurity, "%s is a protected path (.git, .aidex, editor or aidex config): it is not changed without an approval in a session; edit it by hand outside aidex", p), v), nil
		}
	}
	note, err := t.beforeChange(ctx, c)
	if err != nil {
		return ToolOutcome{}, err
	}
	res := t.runResult(ctx, c)
	if res.OK {
		res.Output = note + res.Output
	}
	out := ToolOutcome{Result: res, Outcome: OutcomeOK, Verdict: v}
	if res.Category == tools.CategoryInternal {
		return out, fmt.Errorf("%w: %s", ErrInternal, res.Error)
	}
	switch {
	case res.OK:
	case res.Category == tools.CategoryValidation:
		out.Outcome = OutcomeInvalid
	case res.Category == tools.CategorySecurity || res.Category == tools.CategoryPermission:
		out.Outcome = OutcomeRefused
	default:
		out.Outcome = OutcomeFailed
	}
	return out, nil
}

// approveCall asks o.Approve about a call the policy would ask about
// (the policy asks only when o.Approve is set); stop is true, with the
// refusal and the allow rule that would let the call run, unless it
// approved.
func approveCall(ctx context.Context, p *permission.Policy, c *agent.Call, args json.RawMessage, req permission.Request, v permission.Verdict, o CallOptions) (ToolOutcome, bool) {
	ok, err := o.Approve(ctx, CallApproval{Tool: c.Name, Arguments: args, Subject: c.Command, Paths: c.Paths, Rule: v.Rule, Reason: v.Reason})
	if ok && err == nil {
		return ToolOutcome{}, false
	}
	msg := refusalMessage(v) + ": the user declined the call"
	if err != nil {
		msg = fmt.Sprintf("%s: %v", refusalMessage(v), err)
	}
	out := refused(tools.Failf(tools.CategoryPermission, "%s", msg), v)
	out.Suggested = p.SuggestRule(req)
	return out, true
}

func refused(r tools.Result, v permission.Verdict) ToolOutcome {
	return ToolOutcome{Result: r, Outcome: OutcomeRefused, Verdict: v}
}

// refusalCategory is security for the workspace boundary (confinement,
// protected and invalid paths), permission for everything else.
func refusalCategory(v permission.Verdict) tools.Category {
	if v.Rule == permission.RuleConfinement || v.Rule == permission.RuleInvalidPath || strings.Contains(v.Rule, "protected") {
		return tools.CategorySecurity
	}
	return tools.CategoryPermission
}

// refusalMessage is the verdict's reason with the rule and its source,
// named once: not again when the reason names the rule already.
func refusalMessage(v permission.Verdict) string {
	msg := v.Reason
	if v.Rule != "" && !strings.Contains(v.Reason, v.Rule) {
		msg += " [" + v.Rule
		if v.Source != "" {
			msg += " from " + v.Source
		}
		msg += "]"
	}
	return msg
}

// protectedPath returns the first path (as given) whose change needs an
// approval however the policy is set up (.git, .aidex, editor and aidex
// config), checked both as written and resolved so a symlinked .aidex is
// caught too; "" when none.
func protectedPath(ws *permission.Workspace, paths, resolved []string) string {
	for i, abs := range resolved {
		if i >= len(paths) {
			break
		}
		lexical := paths[i]
		if !filepath.IsAbs(lexical) {
			lexical = filepath.Join(ws.Root(), lexical)
		}
		if ws.IsProtectedWrite(abs) || ws.IsProtectedWrite(lexical) {
			return paths[i]
		}
	}
	return ""
}

// errNotPrepared is an infrastructure failure: the engine handed the tool
// set a call it did not prepare.
var errNotPrepared = errors.New("internal error: the call was not prepared by this tool set")

// runResult runs a prepared call and returns the tool's own result.
func (t *toolSet) runResult(ctx context.Context, c *agent.Call) tools.Result {
	p, ok := c.Impl.(*tools.Prepared)
	if !ok {
		return tools.Failf(tools.CategoryExecution, "%v", errNotPrepared)
	}
	return p.Run(ctx, t.env)
}

// beforeChange takes the checkpoint of t's hook (a user command's) before
// a call that may change files; note is for the call's output ("" unless
// the workspace was too large to snapshot). Errors: the store's, git's
// (the call must not run: its change could not be undone).
func (t *toolSet) beforeChange(ctx context.Context, c *agent.Call) (note string, err error) {
	p, ok := c.Impl.(*tools.Prepared)
	if t.hook == nil || !ok || !t.mayChange(p) {
		return "", nil
	}
	return t.hook.Before(ctx)
}

// ErrInternal is wrapped by [Runtime.CallTool]'s error when the tool
// could not run for a reason of aidex's own (no workspace or checkpoint
// store, a panic in the tool): a bug to report, not bad input.
var ErrInternal = errors.New("aidex failed")

// ErrConfig is wrapped by [Runtime.CallTool]'s error when the
// configuration cannot be applied (a malformed permission rule, an
// unknown mode): bad input the user fixes in the config or the flags.
var ErrConfig = errors.New("bad configuration")

// configError keeps the configuration's message and matches ErrConfig.
type configError struct{ err error }

func (e configError) Error() string        { return e.err.Error() }
func (e configError) Unwrap() error        { return e.err }
func (e configError) Is(target error) bool { return target == ErrConfig }

// ErrInvalidCall is wrapped by [Runtime.ExplainCall]'s error when the
// tool is unknown or its arguments are invalid.
var ErrInvalidCall = errors.New("invalid tool call")

// explanation is the policy's decision on a call as `aidex permissions
// check` prints it: Text (the decision, the rule behind it and each simple
// command's verdict), the permission Mode, and the Decision ("allow", "ask"
// or "deny").
type explanation struct {
	Text     string
	Mode     string
	Decision string
}

// ExplainCall explains what the policy decides for a tool call and which
// rule decided, resolving the tool name as a session of the configured
// tool profile does (tools.Registry.PrepareOffered). With args nil, name is a shell command line judged as
// run_command would be. The policy can ask (an interactive session's
// view); headless runs deny where this says ask. Errors: ErrInvalidCall
// for a call the registry refuses, else a configuration problem.
func (rt *Runtime) ExplainCall(name string, args json.RawMessage) (explanation, error) {
	reg, closeTools, err := rt.engineRoom().registry()
	if err != nil {
		return explanation{}, err
	}
	defer closeTools()
	ws, err := rt.NewWorkspace(false)
	if err != nil {
		return explanation{}, err
	}
	policy, err := rt.engineRoom().policy(ws, true, reg)
	if err != nil {
		return explanation{}, err
	}
	if args == nil {
		args, _ = json.Marshal(map[string]string{"command": name})
		name = "run_command"
	}
	req, cover, err := explainRequest(reg, rt.Profile(), name, args)
	if err != nil {
		return explanation{}, err
	}
	v := engine.CheckCovered(policy, req, cover)
	return explanation{Text: permission.Explain(v), Mode: string(policy.Mode()), Decision: v.Decision.String()}, nil
}

// explainRequest is the permission request of a call to explain, and the
// tool that covers it (a seed tool name the profile serves by another
// tool is judged as a session of that profile would). An MCP tool
// (mcp__SERVER__TOOL) is judged without starting its server: as the kind every
// MCP tool has by default (other: ask unless a rule or yolo allows it).
func explainRequest(reg *tools.Registry, prof tools.Profile, name string, args json.RawMessage) (permission.Request, string, error) {
	if _, ok := reg.Lookup(name); !ok && strings.HasPrefix(strings.ToLower(strings.TrimSpace(name)), tools.ExternalPrefix) {
		return permission.Request{Tool: strings.TrimSpace(name), Kind: kind.Other}, "", nil
	}
	p, err := reg.PrepareOffered(func(n string) bool { return reg.Allowed(prof, n) }, name, args)
	if err != nil {
		return permission.Request{}, "", invalidCall{err}
	}
	return permissionRequest(p), p.Cover, nil
}

// invalidCall keeps the registry's message and matches ErrInvalidCall.
type invalidCall struct{ err error }

func (e invalidCall) Error() string        { return e.err.Error() }
func (e invalidCall) Unwrap() error        { return e.err }
func (e invalidCall) Is(target error) bool { return target == ErrInvalidCall }

// ToolInfo is one tool as a front end lists it: its schema (name,
// description, JSON Schema of the parameters), kind, and whether the front
// end offers it (Available false: outside the tool profile, or a shell
// tool in the web UI without web_allow_shell_tools).
type ToolInfo struct {
	tools.ToolSchema
	Kind      kind.Kind `json:"kind"`
	Available bool      `json:"available"`
}

// ToolList lists every registered tool (the full profile) in registry
// order, marking which this runtime offers; web applies the web UI's
// gating of shell tools. Errors: a tool definition that does not build.
func (rt *Runtime) ToolList(web bool) ([]ToolInfo, error) {
	prof := rt.Profile()
	var hidden map[string]bool
	return rt.toolRoom().toolInfos(tools.Profile{Name: tools.ProfileFull}, func(reg *tools.Registry, d tools.Def) bool {
		if hidden == nil {
			hidden = rt.engineRoom().hiddenTools(reg, engineOptions{Web: web})
		}
		return reg.Allowed(prof, d.Name) && !hidden[d.Name]
	})
}

// ProfileTools lists the tools of a profile ("standard", "full",
// "readonly"; "" for the configured tools.profile with its enabled and
// disabled lists), in registry order, and the profile's name. Errors: an
// unknown profile (wrapping ErrInvalidCall).
func (rt *Runtime) ProfileTools(profile string) (string, []ToolInfo, error) {
	prof := rt.Profile()
	if profile != "" {
		prof = tools.Profile{Name: profile}
	}
	list, err := rt.toolRoom().toolInfos(prof, func(*tools.Registry, tools.Def) bool { return true })
	if err != nil {
		return "", nil, invalidCall{err}
	}
	return prof.Name, list, nil
}

// toolInfos lists the tools of prof in registry order; available says
// whether a front end offers one. Errors: the registry's (an unknown
// profile, a tool definition that does not build).
func (rt toolRoom) toolInfos(prof tools.Profile, available func(*tools.Registry, tools.Def) bool) ([]ToolInfo, error) {
	reg, closeTools, err := rt.engineRoom().registry()
	if err != nil {
		return nil, err
	}
	defer closeTools()
	schemas, err := reg.Schemas(prof)
	if err != nil {
		return nil, err
	}
	out := make([]ToolInfo, 0, len(schemas))
	for _, sc := range schemas {
		d, _ := reg.Lookup(sc.Name)
		out = append(out, ToolInfo{ToolSchema: sc, Kind: d.Kind, Available: available(reg, d)})
	}
	return out, nil
}
