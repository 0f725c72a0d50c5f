package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/permission"
	"github.com/zelvior/aidex/internal/slashcmd"
	"github.com/zelvior/aidex/internal/tools"
)

// CustomCommands returns the custom slash commands of the workspace and
// the user's folders (see internal/slashcmd for the folders and their
// precedence), sorted by name, and the files that could not be read
// (each error names its file). Built-in commands of the front ends keep
// precedence over custom ones of the same name.
func (rt ProjectContent) CustomCommands() ([]slashcmd.Command, []error) {
	return rt.ProjectContent().approvedCommands(rt.ProjectContent().allCustomCommands())
}

// commandSource lists slash commands of another source than the command
// folders (an MCP server's prompts): commands with Prompt set, scope
// slashcmd.ScopeOther. A source that cannot list them returns an error
// (shown where commands are listed; the others still count).
type commandSource func(ctx context.Context) ([]slashcmd.Command, error)

// AddCommandSource adds src to the sources of [Service.CustomCommands].
// Commands of the folders win over a source's of the same name; earlier
// sources over later ones.
func (s *Service) AddCommandSource(src commandSource) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sources = append(s.sources, src)
}

// CustomCommands returns the custom commands of the current runtime's
// folders ([ProjectContent.CustomCommands]) and of the added sources, sorted by
// name, with the problems of both.
func (s *Service) CustomCommands(ctx context.Context) ([]slashcmd.Command, []error) {
	cmds, errs := s.Runtime().ProjectContent().CustomCommands()
	s.mu.Lock()
	sources := slices.Clone(s.sources)
	s.mu.Unlock()
	for _, src := range sources {
		more, err := src(ctx)
		if err != nil {
			errs = append(errs, err)
		}
		for _, c := range more {
			if _, taken := slashcmd.Find(cmds, c.Name); !taken {
				cmds = append(cmds, c)
			}
		}
	}
	sort.Slice(cmds, func(i, j int) bool { return cmds[i].Name < cmds[j].Name })
	return cmds, errs
}

// Expansion is a custom slash command made ready to send: Text is the
// prompt (arguments, command outputs and @file includes filled in).
// Rules are the permission rules (aidex's form) its allowed-tools add for
// the run that sends it; Model is the model of that run ("" for the
// session's). Notice, when not "", is a line for the user (an untrusted
// project's command whose allowed-tools are ignored).
type Expansion struct {
	Command slashcmd.Command
	Text    string
	Rules   []string
	Model   string
	Notice  string
}

// ErrRefused is wrapped by [Session.Expand]'s error when the policy (or
// the user) refused a !`command` or an @path of the command.
var ErrRefused = errors.New("refused")

// turn is what an expansion changes for the next run of a live session.
type turn struct {
	rules  []permission.Rule
	rt     *Runtime // nil: the session's runtime
	source string
}

// Expand expands line ("/name args") when name is a custom command, and
// returns nil, nil when it is none. A command whose file failed to load
// is an error naming the file and why (never text sent to the model). The command's !`command` lines run
// now, as run_command calls through the session's tool pipeline and
// policy (with the command's allowed-tools added); its @path includes are
// read as read_file calls (confined to the workspace). The next run of
// the session (Run, RunWith) then uses the command's allowed-tools and
// model, for that run only.
//
// allowed-tools count only for commands from the user's own folders or a
// trusted project; an untrusted project's command runs with no added
// rules and Expansion.Notice says so. When the policy asks about a
// !`command`, the session's Approver is asked (none: it is refused);
// emit (nil: none) gets the approval events, as a run's would. Errors: agent.ErrBusy while a run is
// going; a bad rule in allowed-tools or an unknown model (naming the
// file); a !`command` the policy refused (naming the rule) or that could
// not start; an @path refused; unclosed quotes in the arguments.
func (ls *Session) Expand(ctx context.Context, line string, emit func(agent.Event)) (*Expansion, error) {
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, "/") {
		return nil, nil
	}
	name, args, _ := strings.Cut(line, " ")
	if i := strings.IndexAny(name, "\n\t"); i >= 0 {
		name, args = name[:i], line[i:]
	}
	rt := ls.svc.Runtime()
	cmds, errs := ls.svc.CustomCommands(ctx)
	c, ok := slashcmd.Find(cmds, name)
	if !ok {
		if p, failed := slashcmd.FailedToLoad(errs, name); failed {
			return nil, fmt.Errorf("%s is not sent to the model: %w", name, p)
		}
		if strings.HasPrefix(name, "/mcp__") {
			return mcpPrompt(ctx, ls.svc, name, args)
		}
		return nil, nil
	}
	if err := ls.idle(); err != nil {
		return nil, err
	}
	x := &Expansion{Command: c, Model: c.Model}
	t := &turn{source: c.Path}
	if err := x.allow(rt, t); err != nil {
		return nil, err
	}
	if c.Model != "" {
		mrt, err := ls.svc.runtimeFor(ctx, c.Model)
		if err != nil {
			return nil, fmt.Errorf("/%s (%s): model %q: %w", c.Name, c.Path, c.Model, err)
		}
		t.rt = mrt
	}
	eng, err := ls.engine(ctx)
	if err != nil {
		return nil, err
	}
	pol, err := turnPrep{ls}.policy(eng, t)
	if err != nil {
		return nil, err
	}
	ts, _ := eng.Tools.(*toolSet)
	if ts == nil {
		return nil, errNotPrepared
	}
	p := pipeline{ts: ts, pol: pol, approver: ls.opts.Approver, emit: emit, sessionID: ls.ID()}
	x.Text, err = slashcmd.Expand(ctx, c, args, slashcmd.Resolver{Include: p.include, Run: p.run})
	if err != nil && x.Notice != "" {
		return nil, fmt.Errorf("%w\n%s", err, x.Notice)
	}
	if err != nil {
		return nil, err
	}
	ls.mu.Lock()
	ls.next = t
	ls.mu.Unlock()
	return x, nil
}

// allow sets x.Rules and t.rules from the command's allowed-tools when
// they count (the user's folders, a trusted project), else x.Notice.
func (x *Expansion) allow(rt *Runtime, t *turn) error {
	c := x.Command
	if len(c.AllowedTools) == 0 || c.Scope == slashcmd.ScopeOther {
		return nil
	}
	if c.Scope == slashcmd.ScopeProject && !rt.Config.ProjectTrusted {
		x.Notice = fmt.Sprintf("/%s comes from this untrusted project (%s): its allowed-tools (%s) are ignored and it runs with your usual permissions; trust the folder to honour them",
			c.Name, c.Path, strings.Join(c.AllowedTools, ", "))
		return nil
	}
	var dropped []string
	x.Rules, dropped = slashcmd.Rules(c.AllowedTools, rt.ProjectContent().claudeOptions())
	if len(dropped) > 0 {
		x.Notice = fmt.Sprintf("/%s (%s): allowed-tools %s add nothing: aidex cannot say the same", c.Name, c.Path, strings.Join(dropped, "; "))
	}
	for _, s := range x.Rules {
		r, err := permission.ParseRule(s)
		if err != nil {
			return fmt.Errorf("/%s: allowed-tools in %s: %w", c.Name, c.Path, err)
		}
		r.Action, r.Source = permission.Allow, c.Path
		t.rules = append(t.rules, r)
	}
	return nil
}

// runtimeFor loads a runtime like the current one with model spec
// ("MODEL" of the current provider or "PROVIDER/MODEL"), without making
// it current. Errors: as SwitchModel's.
func (s *Service) runtimeFor(ctx context.Context, spec string) (*Runtime, error) {
	rt := s.Runtime()
	provider, model := rt.Provider.Name, strings.TrimSpace(spec)
	p, m, slash := strings.Cut(model, "/")
	if _, known := rt.Catalog.Provider(p); slash && known && m != "" {
		provider, model, slash = p, m, false
	}
	if err := rt.modelRoom().checkModel(ctx, spec, provider, model, slash); err != nil {
		return nil, err
	}
	s.mu.Lock()
	o := s.opts
	o.Flags = maps.Clone(s.opts.Flags)
	s.mu.Unlock()
	o.Flags["provider"], o.Flags["model"] = provider, model
	return Load(ctx, o)
}

// pipeline runs the tool calls of an expansion through the session's
// tool set and a policy, asking approver (nil: cannot ask) when the
// policy asks.
type pipeline struct {
	ts        *toolSet
	pol       agent.Policy
	approver  agent.Approver
	emit      func(agent.Event)
	sessionID string
}

// run runs command as run_command and returns its output (stdout and
// stderr). Errors: the policy refused it (naming the rule and its
// source), the user denied it, it failed to start or exited non-zero.
func (p pipeline) run(ctx context.Context, command string) (string, error) {
	args, _ := json.Marshal(map[string]string{"command": command})
	res, err := p.call(ctx, "run_command", args)
	if err != nil {
		return "", err
	}
	if !res.OK {
		return "", fmt.Errorf("%s%s", res.Error, outputTail(res.Output))
	}
	return res.Output, nil
}

func outputTail(out string) string {
	if out = strings.TrimSpace(out); out == "" {
		return ""
	}
	if len(out) > 400 {
		out = "…" + out[len(out)-400:]
	}
	return "\n" + out
}

// include reads path as read_file does (confined to the workspace,
// through the policy). ok is false when there is no such file.
func (p pipeline) include(ctx context.Context, path string) (string, bool, error) {
	args, _ := json.Marshal(map[string]any{"path": path})
	res, err := p.call(ctx, "read_file", args)
	if err != nil {
		return "", false, err
	}
	switch {
	case res.OK:
		return res.Output, true, nil
	case res.Category == string(tools.CategoryNotFound) || res.Category == string(tools.CategoryValidation):
		return "", false, nil
	}
	if res.Category == string(tools.CategorySecurity) || res.Category == string(tools.CategoryPermission) {
		return "", false, fmt.Errorf("%w: %s", ErrRefused, res.Error)
	}
	return "", false, errors.New(res.Error)
}

// call prepares, judges and runs one call. A refusal is an error.
func (p pipeline) call(ctx context.Context, name string, args json.RawMessage) (agent.ToolResultInfo, error) {
	c, bad := p.ts.Prepare(name, args)
	if bad != nil {
		return *bad, nil
	}
	v := p.pol.Check(c)
	switch {
	case v.Decision == agent.Ask && p.approver != nil:
		if err := p.ask(ctx, c, v); err != nil {
			return agent.ToolResultInfo{}, err
		}
	case v.Decision != agent.Allow:
		reason := v.Reason
		if !strings.Contains(reason, v.Rule) {
			reason += fmt.Sprintf(" (rule: %s, from %s)", v.Rule, v.Source)
		}
		return agent.ToolResultInfo{}, fmt.Errorf("%s was %w: %s", describeCall(c), ErrRefused, reason)
	}
	if c.Kind == kind.Read {
		c.ReadOnly = true
	}
	return p.ts.Run(ctx, c)
}

// ask asks the approver about c (the approval events go to emit).
// Errors: the user denied it (wrapping ErrRefused), the ask was
// cancelled, the answer's rule could not be saved.
func (p pipeline) ask(ctx context.Context, c *agent.Call, v agent.Verdict) error {
	info := agent.ApprovalInfo{ID: "ap_slash_" + c.Name, Tool: c.Name, Arguments: c.Args, Command: agent.ShowControls(c.Command),
		Rule: v.Rule, Why: agent.ApprovalWhy(v, c.Kind), Reason: v.Reason, Suggested: v.Suggested}
	p.event(info)
	ans, reason, err := p.approver.Approve(ctx, info)
	if err != nil {
		return err
	}
	info.Answer, info.Reason = ans, reason
	p.event(info)
	switch ans {
	case agent.AnswerDeny:
		return fmt.Errorf("%w: you denied %s%s", ErrRefused, describeCall(c), suffix(reason))
	case agent.AnswerSession, agent.AnswerAlways:
		if v.Suggested != "" {
			return p.pol.Remember(ans, v.Suggested)
		}
	}
	return nil
}

func (p pipeline) event(info agent.ApprovalInfo) {
	if p.emit != nil {
		p.emit(agent.Event{Type: agent.EventApproval, SessionID: p.sessionID, Approval: &info})
	}
}

func describeCall(c *agent.Call) string {
	if c.Command != "" {
		return c.Name + " " + c.Command
	}
	return c.Name + " " + strings.Join(c.Paths, " ")
}

func suffix(reason string) string {
	if reason == "" {
		return ""
	}
	return ": " + reason
}

// mcpPrompt expands /mcp__SERVER__PROMPT args that no server lists (yet):
// the server is asked for it (Service.MCPPrompt). Errors: no MCP server
// configured, no such prompt, an empty prompt.
func mcpPrompt(ctx context.Context, s *Service, name, args string) (*Expansion, error) {
	text, err := s.MCPPrompt(ctx, strings.TrimPrefix(name, "/"), strings.TrimSpace(args))
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(text) == "" {
		return nil, fmt.Errorf("the MCP prompt %s is empty", name)
	}
	return &Expansion{Text: text}, nil
}
