package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app/engine"
	"github.com/zelvior/aidex/internal/hooks"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/session"
	"github.com/zelvior/aidex/internal/subagent"
)

// TaskTool is the name of the engine tool that starts a subagent.
const TaskTool = "task"

// maxSubagentDepth is how deep subagents nest: a session's subagents may
// start subagents of their own, and those none.
const maxSubagentDepth = 2

// subagentReport describes a subagent's finished run: the parent session
// and the task call that started it, the child's session, its type and
// the task's description, its final answer, why it stopped, its model
// responses (Turns), tokens, cost in USD and tool calls; Err is the run's
// failure (nil when it answered). It is what the SubagentStop hook gets.
type subagentReport struct {
	ParentSessionID string
	ToolCallID      string
	SessionID       string
	Type            string
	Description     string
	Answer          string
	StopReason      agent.StopReason
	Turns           int
	Usage           llm.Usage
	CostUSD         float64
	ToolCalls       int
	Err             error
}

// Label is the subagent's name as front ends show it: "TYPE: DESCRIPTION".
func (r subagentReport) Label() string { return subagentLabel(r.Type, r.Description) }

// labelMax caps a label's description, in runes.
const labelMax = 60

// subagentLabel is "TYPE: DESCRIPTION", the description on one line and
// cut to labelMax runes.
func subagentLabel(typ, desc string) string {
	desc = strings.Join(strings.Fields(desc), " ")
	if r := []rune(desc); len(r) > labelMax {
		desc = string(r[:labelMax-1]) + "…"
	}
	if desc != "" {
		return typ + ": " + desc
	}
	return typ
}

// subagentTree is shared by a session's engine and every subagent under
// it: the runs started so far against the cap, and the slots of the
// parallel limit.
type subagentTree struct {
	slots chan struct{}
	mu    sync.Mutex
	runs  int
	max   int
}

func newSubagentTree(maxParallel, maxRuns int) *subagentTree {
	if maxParallel < 1 {
		maxParallel = 4
	}
	if maxRuns < 1 {
		maxRuns = 50
	}
	return &subagentTree{slots: make(chan struct{}, maxParallel), max: maxRuns}
}

// start counts one more run. Errors: the cap is reached.
func (t *subagentTree) start() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.runs >= t.max {
		return fmt.Errorf("subagent limit reached: this session has started %d subagents, the most it may ([subagents] max_runs); do the rest of the work yourself", t.runs)
	}
	t.runs++
	return nil
}

// acquire takes a slot of the parallel limit; release it when done.
func (t *subagentTree) acquire(ctx context.Context) (func(), error) {
	select {
	case t.slots <- struct{}{}:
		return func() { <-t.slots }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// subagentScope is what an engine knows of its place among subagents:
// its depth (0: a session's own engine), the tree, the tools it may
// offer (nil: all the runtime's) and those it may not (its own and its
// parents' disallowedTools), and the session that started the tree
// with its checkpoint hook (a subagent's changes are checkpointed in it).
type subagentScope struct {
	depth       int
	tree        *subagentTree
	allow       []string
	deny        []string
	rootSession string
	hook        *engine.TurnHook
}

// subagentDirs are where this runtime reads agent files.
func (rt ProjectContent) subagentDirs() subagent.Dirs {
	return subagent.Dirs{Workspace: rt.Workspace, Trusted: rt.Config.ProjectTrusted,
		Home: rt.Config.Paths.Home, ConfigDir: rt.Config.Paths.ConfigDir, Plugins: rt.Plugins().pluginAgentDirs()}
}

// Subagents returns the subagent types this runtime offers: the built-ins
// and the agent files of the user's folders and (when trusted) the
// project's, with warnings for files that could not be used.
func (rt ProjectContent) Subagents() subagent.Set {
	return rt.approvedAgents(subagent.Load(rt.subagentDirs()))
}

// taskTool returns the task tool for an engine built with o, or nil when
// the engine may not start subagents (the depth limit, or a subagent
// whose tool list leaves task out).
func (rt engineRoom) taskTool(o engineOptions, hook *engine.TurnHook) *agent.EngineTool {
	scope := o.scope
	if scope == nil {
		tree := o.subagents
		if tree == nil {
			tree = newSubagentTree(rt.Config.Subagents.MaxParallel, rt.Config.Subagents.MaxRuns)
		}
		scope = &subagentScope{tree: tree, rootSession: o.SessionID, hook: hook}
	}
	if scope.depth >= maxSubagentDepth || (scope.allow != nil && !slices.Contains(scope.allow, TaskTool)) || slices.Contains(scope.deny, TaskTool) {
		return nil
	}
	t := &taskRunner{rt: rt.runtimeView, o: o, scope: scope, defs: rt.ProjectContent().Subagents()}
	return &agent.EngineTool{Spec: t.spec(), Call: t.call, Concurrent: true}
}

// taskRunner answers one engine's task calls.
type taskRunner struct {
	rt    *Runtime
	o     engineOptions
	scope *subagentScope
	defs  subagent.Set
}

func (t *taskRunner) spec() llm.Tool {
	var b strings.Builder
	b.WriteString("Launch a subagent to handle a complex, multi-step task on its own, in a fresh context: it does not see this conversation, so put everything it needs in the prompt. ")
	b.WriteString("Its final message comes back to you as the result (the user does not see it: summarise what matters). ")
	b.WriteString("Call task several times in one response to run subagents in parallel. Available subagent types:\n")
	names := make([]string, 0, len(t.defs.Defs))
	for _, d := range t.defs.Defs {
		fmt.Fprintf(&b, "- %s: %s\n", d.Name, d.Description)
		names = append(names, d.Name)
	}
	enum, _ := json.Marshal(names)
	params := fmt.Sprintf(`{"type":"object","properties":{`+
		`"description":{"type":"string","description":"A short (3-5 word) description of the task"},`+
		`"prompt":{"type":"string","description":"The task for the subagent to perform, with all the context it needs"},`+
		`"subagent_type":{"type":"string","enum":%s,"description":"The type of subagent to use (default general)"}},`+
		`"required":["description","prompt"]}`, enum)
	return llm.Tool{Name: TaskTool, Description: b.String(), Parameters: json.RawMessage(params)}
}

// taskArgs are the task tool's arguments (Claude Code's Task shape).
type taskArgs struct {
	Description  string `json:"description"`
	Prompt       string `json:"prompt"`
	SubagentType string `json:"subagent_type"`
}

// call runs one task call: checks, a slot of the parallel limit, the
// child's run.
func (t *taskRunner) call(ctx context.Context, ec agent.EngineCall, raw json.RawMessage) agent.ToolResultInfo {
	var a taskArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return agent.ToolResultInfo{Error: "task arguments must be a JSON object {description, prompt, subagent_type}: " + err.Error(), Category: "validation"}
	}
	if strings.TrimSpace(a.Prompt) == "" {
		return agent.ToolResultInfo{Error: "prompt is empty: give the subagent its task", Category: "validation"}
	}
	if a.SubagentType == "" {
		a.SubagentType = subagent.General
	}
	def, ok := t.defs.Get(a.SubagentType)
	if !ok {
		return agent.ToolResultInfo{Error: fmt.Sprintf("unknown subagent_type %q: use one of %s", a.SubagentType, strings.Join(t.defs.Names(), ", ")), Category: "validation"}
	}
	if err := t.scope.tree.start(); err != nil {
		return agent.ToolResultInfo{Error: err.Error(), Category: "execution"}
	}
	release, err := t.scope.tree.acquire(ctx)
	if err != nil {
		return agent.ToolResultInfo{Error: "cancelled by the user before it completed", Category: "execution"}
	}
	defer release()
	rep := t.run(ctx, ec, a, def)
	if t.o.SubagentStop != nil {
		t.o.SubagentStop(context.WithoutCancel(ctx), rep)
	}
	return taskResult(rep, ctx.Err() != nil)
}

// run builds the child engine and runs the task in a new child session.
func (t *taskRunner) run(ctx context.Context, ec agent.EngineCall, a taskArgs, def subagent.Definition) subagentReport {
	rep := subagentReport{ParentSessionID: ec.Conversation.ID, ToolCallID: ec.ID, Type: def.Name, Description: a.Description}
	label := rep.Label()
	crt, err := t.rt.engineRoom().forSubagent(def)
	if err != nil {
		rep.Err = err
		return rep
	}
	sess, err := t.childSession(ctx, crt, ec, label)
	if err != nil {
		rep.Err = err
		return rep
	}
	rep.SessionID = sess.ID
	co := t.childOptions(sess.ID, ec.ID, label, def)
	co.hookAgent = &hookAgent{Parent: ec.Conversation, Type: def.Name}
	eng, closeEng, err := crt.Engine(ctx, co)
	if err != nil {
		rep.Err = fmt.Errorf("start subagent %s: %w", def.Name, err)
		return rep
	}
	defer closeEng()
	if def.Prompt != "" {
		eng.Config.System = def.Prompt + "\n\n" + subagentNote(crt.Workspace)
	}
	parts := append([]llm.Part{{Type: llm.PartText, Text: a.Prompt}}, t.subagentStart(ctx, ec, sess, def)...)
	var calls atomic.Int64
	done, err := eng.Run(ctx, sess, parts, engine.ChildEmit(ec, label, &calls))
	rep.Err, rep.ToolCalls = err, int(calls.Load())
	if done != nil {
		rep.Answer, rep.StopReason, rep.Turns, rep.Usage, rep.CostUSD = done.Result, done.StopReason, done.Turns, done.Usage, done.CostUSD
	}
	return rep
}

// subagentStart runs the SubagentStart hooks of a subagent of type def
// starting in session sess: the parent's session and transcript,
// agent_id the child's session, agent_type its type (the matcher). Their
// additionalContext is returned as parts of the child's first message;
// their messages go to the user.
func (t *taskRunner) subagentStart(ctx context.Context, ec agent.EngineCall, sess *agent.Conversation, def subagent.Definition) []llm.Part {
	h := t.rt.engineRoom().hookAdapterFor(t.o)
	if h == nil {
		return nil
	}
	out := h.Fire(ctx, ec.Conversation, hooks.Input{Event: hooks.SubagentStart, AgentID: sess.ID, AgentType: def.Name})
	for _, m := range out.Messages {
		ec.Emit(agent.Event{Type: agent.EventError, SessionID: ec.Conversation.ID, Error: &agent.ErrorInfo{Message: m, Kind: "hook"}})
	}
	var parts []llm.Part
	for _, c := range out.Context {
		parts = append(parts, llm.Part{Type: llm.PartText, Text: "SubagentStart hook additional context:\n" + c})
	}
	return parts
}

// subagentNote tells a subagent what it is.
func subagentNote(workspace string) string {
	return "You are a subagent: another agent gave you the task in the user message. Work on your own, then end with one final message: " +
		"it is returned to that agent as your answer, so make it complete and concise. Working directory: " + workspace
}

// childOptions are the child engine's options: the parent's, with the
// subagent's tools intersected with the parent's and its approvals
// labelled.
func (t *taskRunner) childOptions(sessionID, callID, label string, def subagent.Definition) engineOptions {
	o := t.o
	child := engineOptions{Store: o.Store, SessionID: sessionID, MaxTurns: o.MaxTurns, AgentWrites: o.AgentWrites, Subagent: true,
		Web: o.Web, ReadOnly: o.ReadOnly || def.ReadOnly, Client: o.Client, SubagentStop: o.SubagentStop, Editor: o.Editor, MCP: o.MCP,
		hookState: o.hookState,
		scope: &subagentScope{depth: t.scope.depth + 1, tree: t.scope.tree, allow: intersectTools(t.scope.allow, def.Tools),
			deny: append(slices.Clone(t.scope.deny), def.Disallowed...), rootSession: t.scope.rootSession, hook: t.scope.hook}}
	if def.Prompt == "" {
		child.AppendSystem = subagentNote(t.rt.Workspace)
	}
	if o.Approver != nil {
		child.Approver = engine.LabelledApprover{Approver: o.Approver, Label: label, CallID: callID}
	}
	return child
}

// intersectTools is the tool list of a child: what both its parent and
// its own definition allow (nil: no limit).
func intersectTools(parent, own []string) []string {
	switch {
	case parent == nil:
		return own
	case own == nil:
		return parent
	}
	out := []string{}
	for _, n := range own {
		if slices.Contains(parent, n) {
			out = append(out, n)
		}
	}
	return out
}

// childStore is the store that links a child session to its parent.
type childStore interface {
	CreateChild(ctx context.Context, c session.Child, workspace, provider, model string) (*agent.Conversation, error)
}

// childSession creates the child's session: stored, linked to the parent,
// when the parent is stored; else in memory.
func (t *taskRunner) childSession(ctx context.Context, crt *Runtime, ec agent.EngineCall, label string) (*agent.Conversation, error) {
	cs, ok := t.o.Store.(childStore)
	if !ok {
		return &agent.Conversation{ID: ec.Conversation.ID + "-" + ec.ID, Workspace: crt.Workspace}, nil
	}
	s, err := cs.CreateChild(ctx, session.Child{ParentID: ec.Conversation.ID, ToolCallID: ec.ID, Label: label}, crt.Workspace, crt.Provider.Name, crt.Model)
	if err != nil {
		return nil, fmt.Errorf("store the subagent's session: %w", err)
	}
	return s, nil
}

// forSubagent returns the runtime a subagent runs on: this one, or a copy
// with the definition's model: an alias (sonnet, opus, haiku) picks the
// newest-listed model of the current provider whose id contains it (the
// parent's model when none does); "PROVIDER/MODEL" switches the provider;
// another value is a model id of the current provider. Errors: an unknown
// provider, a provider without its key.
func (rt engineRoom) forSubagent(def subagent.Definition) (*Runtime, error) {
	if def.Model == "" {
		return rt.runtimeView, nil
	}
	p, model := rt.Provider, def.Model
	if word, ok := subagent.ModelAlias(def.Model); ok {
		model = rt.Model
		for _, m := range p.Models {
			if strings.Contains(strings.ToLower(m.ID), word) {
				model = m.ID
				break
			}
		}
	} else if prefix, rest, ok := strings.Cut(def.Model, "/"); ok && rest != "" {
		if cp, known := rt.Catalog.Provider(prefix); known {
			p, model = cp, rest
		}
	}
	if p.RequiresKey && p.APIKey(rt.Getenv) == "" {
		return nil, fmt.Errorf("subagent %s (%s): model %s: provider %s %w: set %s or change the agent's model", def.Name, def.Source, def.Model, p.Name, ErrMissingKey, p.KeyHint())
	}
	cp := *rt.runtimeView
	cp.Provider, cp.Model = p, model
	return &cp, nil
}

// SubagentMeta is the metadata of a task call's result (ToolResultInfo.Meta):
// the child's label, session, usage, cost in USD and tool calls.
type SubagentMeta struct {
	Subagent  string    `json:"subagent"`
	SessionID string    `json:"session_id,omitempty"`
	Usage     llm.Usage `json:"usage"`
	CostUSD   float64   `json:"cost_usd"`
	ToolCalls int       `json:"tool_calls"`
	Turns     int       `json:"turns"`
}

// taskResult is the task call's result: the child's answer and a usage
// line, or its failure.
func taskResult(rep subagentReport, cancelled bool) agent.ToolResultInfo {
	meta, _ := json.Marshal(SubagentMeta{Subagent: rep.Label(), SessionID: rep.SessionID, Usage: rep.Usage, CostUSD: rep.CostUSD,
		ToolCalls: rep.ToolCalls, Turns: rep.Turns})
	line := usageLine(rep)
	switch {
	case cancelled || errors.Is(rep.Err, context.Canceled):
		return agent.ToolResultInfo{Error: "cancelled by the user before it completed", Category: "execution", Meta: meta}
	case rep.Err != nil:
		return agent.ToolResultInfo{Error: "subagent failed: " + rep.Err.Error(), Output: line, Category: "execution", Meta: meta}
	}
	answer := strings.TrimSpace(rep.Answer)
	if answer == "" {
		answer = "(the subagent ended without an answer: " + string(rep.StopReason) + ")"
	}
	return agent.ToolResultInfo{OK: true, Output: answer + "\n\n" + line, Meta: meta}
}

// usageLine is a subagent's one-line account: "[subagent explore: find
// tests · 2 turns · 1200 in / 80 out tokens · $0.0031 · 3 tool calls]".
func usageLine(rep subagentReport) string {
	return fmt.Sprintf("[subagent %s · %d turns · %d in / %d out tokens · $%.4f · %d tool calls]",
		rep.Label(), rep.Turns, rep.Usage.InputTokens, rep.Usage.OutputTokens, rep.CostUSD, rep.ToolCalls)
}
