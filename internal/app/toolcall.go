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
	"github.com/zelvior/aidex/internal/app/toolcall"
	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/permission"
	"github.com/zelvior/aidex/internal/tools"
)

// CallTool runs one tool directly, as the model would, through the same
// pipeline as the engine: the registry prepares the call (aliases,
// validation), [permissionRequest] describes it, the policy decides, and
// the tool runs in a tool environment confined like a session's (without
// read tracking: the caller is a person who sees the file). args is a JSON
// object (nil or "null": no arguments).
//
// Errors: the permission rules or mode cannot be applied (wrapping
// toolcall.ErrConfig), the workspace or the tools cannot be set up, or the tool
// failed for a reason of aidex's own (wrapping toolcall.ErrInternal; the outcome's
// Result then says what it returned); everything about the call itself is
// in the toolcall.Result.
func (rt *Runtime) CallTool(ctx context.Context, name string, args json.RawMessage, o toolcall.Options) (toolcall.Result, error) {
	ts, err := rt.NewToolClient()
	if err != nil {
		return toolcall.Result{}, err
	}
	defer ts.Close()
	return ts.CallTool(ctx, name, args, o)
}

// toolClient is the toolcall.Client of app: a series of direct calls on
// one tool registry.
type toolClient struct {
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
func (rt *Runtime) NewToolClient() (toolcall.Client, error) {
	return rt.newToolClient()
}

// newToolClient is NewToolClient's client, whose checkpointing a user
// command's calls set ([Session.UserChange]).
func (rt *Runtime) newToolClient() (*toolClient, error) {
	reg, closeTools, err := rt.engineRoom().registry()
	if err != nil {
		return nil, err
	}
	return &toolClient{rt: rt, reg: reg, close: closeTools}, nil
}

// Close stops what the session's calls started (background processes).
func (s *toolClient) Close() { s.once.Do(s.close) }

// CallTool is [Runtime.CallTool] within the series.
func (s *toolClient) CallTool(ctx context.Context, name string, args json.RawMessage, o toolcall.Options) (toolcall.Result, error) {
	rt, reg := s.rt, s.reg
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	if _, ok := reg.Lookup(name); !ok {
		return toolcall.Result{Result: tools.Failf(tools.CategoryValidation, "unknown tool %q: `aidex tools` lists them", name), Outcome: toolcall.UnknownTool}, nil
	}
	ws, err := rt.NewWorkspace(o.Web)
	if err != nil {
		return toolcall.Result{}, err
	}
	policy, err := rt.engineRoom().policy(ws, o.UserAction || o.Approve != nil, reg)
	if err != nil {
		return toolcall.Result{}, configError{err}
	}
	env, err := rt.toolRoom().toolEnv(ws)
	if err != nil {
		return toolcall.Result{}, err
	}
	env.SkipReadCheck = true
	if s.files != nil {
		env.Checkpoints = s.files
	}
	ts, err := newToolSet(reg, env, tools.Profile{Name: tools.ProfileFull}, rt.engineRoom().hiddenTools(reg, engineOptions{Web: o.Web}))
	if err != nil {
		return toolcall.Result{}, err
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
func (t *toolSet) call(ctx context.Context, pa *engine.Policy, name string, args json.RawMessage, o toolcall.Options) (toolcall.Result, error) {
	if d, ok := t.reg.Lookup(name); ok && t.hidden[d.Name] {
		return refused(tools.Failf(tools.CategoryPermission, "%s", webShellRefusal(d.Name)), permission.Verdict{}), nil
	}
	c, bad := t.Prepare(name, args)
	if bad != nil {
		return toolcall.Result{Result: tools.Result{Error: bad.Error, Category: tools.Category(bad.Category)}, Outcome: toolcall.Invalid}, nil
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
		return toolcall.Result{}, err
	}
	res := t.runResult(ctx, c)
	if res.OK {
		res.Output = note + res.Output
	}
	out := toolcall.Result{Result: res, Outcome: toolcall.OK, Verdict: v}
	if res.Category == tools.CategoryInternal {
		return out, fmt.Errorf("%w: %s", toolcall.ErrInternal, res.Error)
	}
	switch {
	case res.OK:
	case res.Category == tools.CategoryValidation:
		out.Outcome = toolcall.Invalid
	case res.Category == tools.CategorySecurity || res.Category == tools.CategoryPermission:
		out.Outcome = toolcall.Refused
	default:
		out.Outcome = toolcall.Failed
	}
	return out, nil
}

// approveCall asks o.Approve about a call the policy would ask about
// (the policy asks only when o.Approve is set); stop is true, with the
// refusal and the allow rule that would let the call run, unless it
// approved.
func approveCall(ctx context.Context, p *permission.Policy, c *agent.Call, args json.RawMessage, req permission.Request, v permission.Verdict, o toolcall.Options) (toolcall.Result, bool) {
	ok, err := o.Approve(ctx, toolcall.Approval{Tool: c.Name, Arguments: args, Subject: c.Command, Paths: c.Paths, Rule: v.Rule, Reason: v.Reason})
	if ok && err == nil {
		return toolcall.Result{}, false
	}
	msg := refusalMessage(v) + ": the user declined the call"
	if err != nil {
		msg = fmt.Sprintf("%s: %v", refusalMessage(v), err)
	}
	out := refused(tools.Failf(tools.CategoryPermission, "%s", msg), v)
	out.Suggested = p.SuggestRule(req)
	return out, true
}

func refused(r tools.Result, v permission.Verdict) toolcall.Result {
	return toolcall.Result{Result: r, Outcome: toolcall.Refused, Verdict: v}
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

// configError keeps the configuration's message and matches toolcall.ErrConfig.
type configError struct{ err error }

func (e configError) Error() string        { return e.err.Error() }
func (e configError) Unwrap() error        { return e.err }
func (e configError) Is(target error) bool { return target == toolcall.ErrConfig }

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
// view); headless runs deny where this says ask. Errors: toolcall.ErrInvalidCall
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

// invalidCall keeps the registry's message and matches toolcall.ErrInvalidCall.
type invalidCall struct{ err error }

func (e invalidCall) Error() string        { return e.err.Error() }
func (e invalidCall) Unwrap() error        { return e.err }
func (e invalidCall) Is(target error) bool { return target == toolcall.ErrInvalidCall }

// ToolList lists every registered tool (the full profile) in registry
// order, marking which this runtime offers; web applies the web UI's
// gating of shell tools. Errors: a tool definition that does not build.
func (rt *Runtime) ToolList(web bool) ([]toolcall.Info, error) {
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
// unknown profile (wrapping toolcall.ErrInvalidCall).
func (rt *Runtime) ProfileTools(profile string) (string, []toolcall.Info, error) {
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
func (rt toolRoom) toolInfos(prof tools.Profile, available func(*tools.Registry, tools.Def) bool) ([]toolcall.Info, error) {
	reg, closeTools, err := rt.engineRoom().registry()
	if err != nil {
		return nil, err
	}
	defer closeTools()
	schemas, err := reg.Schemas(prof)
	if err != nil {
		return nil, err
	}
	out := make([]toolcall.Info, 0, len(schemas))
	for _, sc := range schemas {
		d, _ := reg.Lookup(sc.Name)
		out = append(out, toolcall.Info{ToolSchema: sc, Kind: d.Kind, Available: available(reg, d)})
	}
	return out, nil
}
