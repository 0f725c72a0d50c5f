package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app/engine"
	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/permission"
	"github.com/zelvior/aidex/internal/tools"
	"github.com/zelvior/aidex/internal/tools/skill"
)

// toolSet adapts the tool registry and a session's tool environment to
// the engine's Tools interface.
type toolSet struct {
	reg     *tools.Registry
	env     *tools.Env
	profile tools.Profile
	specs   []llm.Tool
	// hidden are tools not offered (e.g. write tools with --agent-writes deny).
	hidden map[string]bool
	// webShellOff: a web UI session without web_allow_shell_tools; a
	// call of a (hidden) shell tool gets webShellRefusal's result.
	webShellOff bool
	// dryRun computes file changes without writing them (--agent-writes dry-run).
	dryRun bool
	// offerUnconfined offers to run a command the OS sandbox stopped again
	// without it (a session that can ask, in every mode but yolo); else
	// the result names --sandbox off.
	offerUnconfined bool
	// hook snapshots the workspace before the first call of a turn that
	// may change files (nil: no snapshots).
	hook *engine.TurnHook
	// onSkill is told the name of each skill the skill tool loaded (nil:
	// no skills).
	onSkill func(name string)
	// mcp offers the MCP tools (nil: none); they are not in specs.
	mcp *engine.MCPTools
	// vision is whether the model sees images; else imageNote says so in
	// the results of tools that return images (modelRoom.imageInput).
	vision    bool
	imageNote string
	// memory, when set, prepares the memory tools instead of reg: an
	// active model's own family folder (multitools.go).
	memory *tools.Registry
}

func newToolSet(reg *tools.Registry, env *tools.Env, profile tools.Profile, hidden map[string]bool) (*toolSet, error) {
	schemas, err := reg.Schemas(profile)
	if err != nil {
		return nil, fmt.Errorf("tools: %w", err)
	}
	ts := &toolSet{reg: reg, env: env, profile: profile, hidden: hidden}
	for _, s := range schemas {
		if !hidden[s.Name] && !strings.HasPrefix(s.Name, tools.ExternalPrefix) {
			ts.specs = append(ts.specs, llm.Tool{Name: s.Name, Description: s.Description, Parameters: s.Parameters})
		}
	}
	return ts, nil
}

// Specs returns the tools offered to the model: the built-in ones, then the
// MCP tools offered now (all, or those tool_search found).
func (t *toolSet) Specs() []llm.Tool {
	if t.mcp == nil {
		return t.specs
	}
	var out []llm.Tool
	for _, s := range t.mcp.Offered() {
		if !t.hidden[s.Name] {
			out = append(out, s)
		}
	}
	return append(slices.Clone(t.specs), out...)
}

// Prepare validates a call; tools outside the profile are refused, but
// for the seed tool names the registry serves by an offered tool
// (tools.Registry.PrepareOffered): those resolve before the policy sees
// the call, so rules name the tool that runs.
func (t *toolSet) Prepare(name string, args json.RawMessage) (*agent.Call, *agent.ToolResultInfo) {
	if t.mcp != nil {
		t.mcp.Sync()
	}
	p, err := t.registryFor(name).PrepareOffered(t.offered, name, args)
	if err != nil {
		r := toResult(tools.ErrorResult(err))
		return nil, &r
	}
	if !p.Offered(t.offered) && t.webShellOff && p.Def.Shell {
		r := agent.ToolResultInfo{Error: webShellRefusal(p.Def.Name), Category: "permission"}
		return nil, &r
	}
	if !p.Offered(t.offered) {
		r := agent.ToolResultInfo{Error: fmt.Sprintf("tool %s is not available in this session; use one of: %s", p.Def.Name, t.names()), Category: "permission"}
		return nil, &r
	}
	// A "$HOME/x" or "~/x" path is refused before anyone is asked to
	// approve it (the tools refuse it too).
	for _, pa := range p.Paths {
		if bad := t.env.CheckShellSyntax(pa.Param, pa.Value); bad != nil {
			r := toResult(*bad)
			return nil, &r
		}
	}
	req := permissionRequest(p)
	c := &agent.Call{Name: p.Def.Name, Args: p.Args, Kind: p.Def.Kind, ReadOnly: p.Def.Kind == kind.Read,
		Impl: p, Paths: req.Paths, Command: req.Command}
	if p.Def.DryRun {
		c.Previewer = func(ctx context.Context) string { return t.preview(ctx, p) }
	}
	return c, nil
}

// offered reports whether the session offers the tool (canonical name).
func (t *toolSet) offered(name string) bool {
	return t.reg.Allowed(t.profile, name) && !t.hidden[name]
}

// Canonical implements agent.Canonicalizer: the offered tool name stands
// for (an alias, a seed tool name), "" when none.
func (t *toolSet) Canonical(name string) string {
	return t.reg.Canonical(t.offered, name)
}

// preview returns the unified diff a file-changing call would make, by
// running it as a dry run (the same code path as the real change, so the
// diff shown for approval is the diff that will be applied).
func (t *toolSet) preview(ctx context.Context, p *tools.Prepared) string {
	env := *t.env
	env.DryRun = true
	if r := p.Run(ctx, &env); r.OK && r.Meta != nil {
		return r.Meta.Diff
	}
	return ""
}

// permissionRequest describes a prepared call to the permission policy:
// its tool, kind, the paths it judges (Prepared.PolicyPaths) and its
// subject (the command line of a shell tool, the URL of a network tool).
// It is the one place a permission.Request is built from a call.
func permissionRequest(p *tools.Prepared) permission.Request {
	return permission.Request{Tool: p.Def.Name, Kind: p.Def.Kind, Paths: p.PolicyPaths(), Command: p.Subject()}
}

func (t *toolSet) names() string {
	out := ""
	for i, s := range t.specs {
		if i > 0 {
			out += ", "
		}
		out += s.Name
	}
	return out
}

// Run executes a prepared call (a dry run of a file change with
// --agent-writes dry-run). A CategoryInternal result (no workspace or
// checkpoint store, a panic in the tool) is returned as an error: the
// engine aborts the turn.
func (t *toolSet) Run(ctx context.Context, c *agent.Call) (agent.ToolResultInfo, error) {
	p, ok := c.Impl.(*tools.Prepared)
	if !ok {
		return agent.ToolResultInfo{}, errNotPrepared
	}
	var skipped string
	if t.hook != nil && t.mayChange(p) {
		var err error
		if skipped, err = t.hook.Before(ctx); err != nil {
			return agent.ToolResultInfo{}, err
		}
	}
	env := t.env
	if c.Unconfined {
		unconfined := *t.env
		unconfined.Confiner = nil
		env = &unconfined
	}
	res, note := t.runPrepared(ctx, p, env)
	note = skipped + note
	if res.Category == tools.CategoryInternal {
		return agent.ToolResultInfo{}, errors.New(res.Error)
	}
	if res.OK && t.onSkill != nil && p.Def.Name == skill.Name {
		var a struct {
			Name string `json:"name"`
			File string `json:"file"`
		}
		if json.Unmarshal(p.Args, &a) == nil && a.File == "" {
			t.onSkill(a.Name)
		}
	}
	r := toResult(res)
	withImages(&r, res.Images, t.vision, t.imageNote)
	if r.OK && note != "" {
		r.Output = note + r.Output
	}
	if !c.Unconfined && res.Meta != nil && res.Meta.Sandbox != "" {
		if t.offerUnconfined {
			r.RetryUnconfined = "the sandbox stopped this command (" + res.Meta.Sandbox + "); run it again without the sandbox? " +
				"It can then write outside the workspace and reach the network"
		} else {
			r.Error += "; this run does not ask to run commands without the sandbox: use --sandbox off (or /sandbox off in a session) for that"
		}
	}
	return r, nil
}

// mayChange reports whether p may change the workspace's files: a
// command, or a writing tool that is not a dry run; not aidex's own
// bookkeeping (background processes it started, memory and notes under
// .aidex/, which checkpoints leave out).
func (t *toolSet) mayChange(p *tools.Prepared) bool {
	if p.Def.Bookkeeping {
		return false
	}
	switch p.Def.Kind {
	case kind.Exec:
		return true
	case kind.Write:
		return !t.dryRun
	}
	return false
}

// runPrepared runs p, as a dry run when the session's writes are dry runs
// (note then prefixes the diff shown as output).
func (t *toolSet) runPrepared(ctx context.Context, p *tools.Prepared, base *tools.Env) (res tools.Result, note string) {
	if !t.dryRun || p.Def.Kind != kind.Write {
		return p.Run(ctx, base), ""
	}
	if !p.Def.DryRun {
		return tools.Failf(tools.CategoryPermission, "%s was not run: this is a dry run (--agent-writes dry-run), nothing may be changed; describe the change instead", p.Def.Name), ""
	}
	env := *base
	env.DryRun = true
	res = p.Run(ctx, &env)
	if res.OK && res.Meta != nil {
		res.Output = res.Meta.Diff
		return res, "[dry run: nothing was written]\n"
	}
	return res, ""
}

// toResult converts a tool result for the engine, with invisible Unicode
// in the output made visible before the model or a front end sees it.
func toResult(r tools.Result) agent.ToolResultInfo {
	out := agent.ToolResultInfo{OK: r.OK, Output: agent.RevealInvisible(r.Output), Error: r.Error, Category: string(r.Category)}
	if r.Meta != nil {
		out.Meta, _ = json.Marshal(r.Meta)
	}
	return out
}

var _ agent.Tools = (*toolSet)(nil)
