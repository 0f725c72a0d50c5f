package app

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"slices"
	"time"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app/engine"
	"github.com/zelvior/aidex/internal/checkpoint"
	"github.com/zelvior/aidex/internal/config"
	"github.com/zelvior/aidex/internal/imagegen"
	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/mcp"
	"github.com/zelvior/aidex/internal/memstore"
	"github.com/zelvior/aidex/internal/permission"
	"github.com/zelvior/aidex/internal/ralph"
	"github.com/zelvior/aidex/internal/skills"
	"github.com/zelvior/aidex/internal/tools"
	"github.com/zelvior/aidex/internal/tools/builtin"
	"github.com/zelvior/aidex/internal/tools/skill"
)

// sessionStore is what the engine wiring needs of the session database:
// persistence of messages plus per-session read tracking and checkpoints.
type sessionStore interface {
	// Priced returns the store that also adds each response's cost.
	Priced(cost func(llm.Usage) float64) agent.Store
	Tracker(sessionID string) tools.ReadTracker
	Checkpoints(sessionID string) tools.Checkpointer
}

// engineOptions configure [Runtime.Engine].
//
// Store persists the session (nil: in memory only). Approver asks the user
// (nil: cannot ask; what the policy does not allow is denied). Asker
// answers the ask_user tool (nil: ask_user is not offered and the system
// prompt tells the model that no one can answer). MaxTurns
// overrides max_tool_turns when > 0. AgentWrites is "" (normal), "allow"
// (the file tools write without asking, in every mode but plan; deny and
// ask rules, protected paths and confinement still hold), "deny"
// (file-changing tools are not offered; the model is told to write
// unified diffs) or "dry-run" (changes are computed and shown, not
// written, in every mode: a dry run is judged as the read it is).
// AgentMode, StepNotes, DoneMarkers and BeforeRequest are as in
// [agent.Config]; with AgentMode the system prompt tells the model the
// first done marker.
// Web applies the web UI's confinement: always confined, and shell tools
// only with web_allow_shell_tools. ReadOnly offers only the tools of kind
// read (and EngineTools): the planning run's tools.
type engineOptions struct {
	Store         sessionStore
	SessionID     string
	Approver      agent.Approver
	Asker         agent.Asker
	MaxTurns      int
	AgentMode     bool
	BeforeRequest func(req *llm.Request)
	// KeepRaw asks the clients for the raw responses (llm.Request.KeepRaw),
	// for DoneInfo.Raw.
	KeepRaw      bool
	StepNotes    bool
	DoneMarkers  []string
	AgentWrites  string
	AppendSystem string
	Notes        []string
	EngineTools  []agent.EngineTool
	Web          bool
	ReadOnly     bool
	Client       ClientOptions
	// Subagent marks the engine of a subagent (the task tool): its Stop
	// point fires the SubagentStop hooks instead of Stop.
	Subagent bool
	// SubagentStop, when set, is told of every subagent's end (the
	// SubagentStop hook's point): called after the child's run, before
	// its answer goes back to the parent's model.
	SubagentStop func(ctx context.Context, r subagentReport)

	// subagents is the live session's tree (the cap counts across engine
	// rebuilds); scope is set for a subagent's own engine.
	subagents *subagentTree
	scope     *subagentScope
	// hookState is the live session's hook state (its CLAUDE_ENV_FILE
	// variables reach the engine's commands; nil: none); hookAgent says
	// which subagent a subagent's engine runs (SubagentStop's fields).
	hookState *hookState
	hookAgent *hookAgent
	// MCP is the session's MCP manager (nil: no MCP tools): its tools are
	// registered like built-in ones, deferred behind tool_search when their
	// definitions exceed mcp_tool_budget of the context window.
	MCP *mcp.Manager
	// Editor, when set, is the editor the file tools read and write
	// through (see [editorFiles]); nil: the disk.
	Editor editorFiles
	// RunUSD, when > 0, replaces budget.run_usd: what each run may spend,
	// in US dollars (Ralph passes what is left of its run's --max-cost).
	RunUSD float64
	// Verify turns on verify before finishing (headless runs with
	// [harness] verify or --require-verified; see harness.go).
	Verify bool
	// Headless marks a run no one watches (aidex -p, stream-json input):
	// the [harness] mechanisms for headless runs apply (harness.go).
	Headless bool
}

// Engine builds the engine for one session: the model client, the tool
// registry with the session's tool environment, the permission policy and
// the system prompt. It also offers the task tool, which runs subagents
// as child engines (see subagents.go), except at the depth limit. Close
// the returned func when the session ends (it stops background
// processes).
func (rt *Runtime) Engine(ctx context.Context, o engineOptions) (*agent.Engine, func(), error) {
	client, err := rt.Client(o.Client)
	if err != nil {
		return nil, nil, err
	}
	ws, err := rt.NewWorkspace(o.Web)
	if err != nil {
		return nil, nil, err
	}
	if err := rt.engineRoom().migrateMemory(); err != nil {
		return nil, nil, err
	}
	reg, closeTools, err := rt.engineRoom().registry()
	if err != nil {
		return nil, nil, err
	}
	mt, err := rt.engineRoom().mcpFor(&o, reg)
	if err != nil {
		closeTools()
		return nil, nil, err
	}
	var extra []permission.Rule
	if o.AgentWrites == "allow" {
		extra = agentWriteRules(reg)
	}
	policy, err := rt.engineRoom().policy(ws, o.Approver != nil, reg, extra...)
	if err != nil {
		closeTools()
		return nil, nil, err
	}
	env, err := rt.toolRoom().toolEnv(ws)
	if err != nil {
		closeTools()
		return nil, nil, err
	}
	env.Editor = editorOf(o)
	if o.hookState != nil {
		env.ExtraEnv = o.hookState.Environ
	}
	hook := rt.engineRoom().wireCheckpoints(env, o)
	ts, err := rt.engineRoom().toolSetFor(reg, env, o, policy, mt, hook)
	if err != nil {
		closeTools()
		return nil, nil, err
	}
	system, err := rt.engineRoom().systemPrompt(ctx, o)
	if err != nil {
		closeTools()
		return nil, nil, err
	}
	e := &agent.Engine{
		Client: client,
		Tools:  ts,
		Policy: &engine.Policy{P: policy, ProjectFile: config.ProjectConfigFile(rt.Workspace),
			Paths: rt.Config.Paths, Workspace: rt.Workspace, DryRun: o.AgentWrites == "dry-run"},
		Approver: o.Approver,
		Hooks:    engine.EngineHooks(rt.engineRoom().hookAdapterFor(o)),
		Asker:    o.Asker,
		Config:   rt.engineRoom().engineConfig(system, o),
	}
	if o.Store != nil {
		e.Store = o.Store.Priced(e.Config.Model.Cost)
	}
	e.Config.Harness = rt.engineRoom().harness(o, policy, reg)
	rt.modelRoom().route(&e.Config, o, e.Tools)
	if t := rt.engineRoom().taskTool(o, hook); t != nil {
		e.Config.EngineTools = append(e.Config.EngineTools, *t)
	}
	return e, closeTools, nil
}

// mcpFor registers the MCP tools of o.MCP in reg (nil when o has no MCP
// manager); when they are deferred, o gets the tool_search engine tool.
func (rt engineRoom) mcpFor(o *engineOptions, reg *tools.Registry) (*engine.MCPTools, error) {
	if o.MCP == nil {
		return nil, nil
	}
	mt, err := engine.NewMCPTools(o.MCP, reg, rt.ModelInfo().ContextWindow, rt.Config.MCPToolBudget)
	if err != nil {
		return nil, err
	}
	if mt.Deferred() {
		o.EngineTools = append(o.EngineTools, mt.SearchTool())
	}
	return mt, nil
}

// toolSetFor is the engine's tool set over reg and env: dry runs, the
// checkpoint hook, the MCP tools, image input, the unsandboxed rerun
// offer, and the rules of the skills the model loads.
func (rt engineRoom) toolSetFor(reg *tools.Registry, env *tools.Env, o engineOptions, policy *permission.Policy, mt *engine.MCPTools, hook *engine.TurnHook) (*toolSet, error) {
	ts, err := newToolSet(reg, env, rt.Profile(), rt.hiddenTools(reg, o))
	if err != nil {
		return nil, err
	}
	ts.dryRun, ts.hook, ts.mcp = o.AgentWrites == "dry-run", hook, mt
	ts.webShellOff = o.Web && !rt.Config.WebAllowShellTools
	ts.vision, ts.imageNote = rt.modelRoom().imageInput()
	ts.offerUnconfined = o.Approver != nil && rt.Config.PermissionMode != string(permission.ModeYolo)
	if list, _ := rt.ProjectContent().Skills(); len(list) > 0 {
		ts.onSkill = rt.skillRules(list, policy)
	}
	return ts, nil
}

// wireCheckpoints gives env the session's read tracking (and its saved
// outputs, [engineRoom.outputStore]) and returns the
// hook that snapshots the workspace before a turn changes files. Without
// git (or a store that keeps no snapshots) the file tools keep per-file
// checkpoints in the store instead, so undo still covers them.
//
// A subagent's engine records its reads and checkpoints in the session
// that started the tree, sharing its hook: undo and rewind of that
// session's turn cover what its subagents changed.
func (rt engineRoom) wireCheckpoints(env *tools.Env, o engineOptions) *engine.TurnHook {
	env.Outputs = rt.outputStore(o)
	if o.Store == nil {
		return nil
	}
	id := o.SessionID
	if o.scope != nil && o.scope.rootSession != "" {
		id = o.scope.rootSession
	}
	env.Reads = o.Store.Tracker(id)
	ss, ok := o.Store.(engine.SnapshotStore)
	if !ok || !engine.GitAvailable() {
		env.Checkpoints = o.Store.Checkpoints(id)
		return nil
	}
	env.Checkpoints = engine.NoFileCheckpoints{}
	if o.scope != nil && o.scope.hook != nil {
		return o.scope.hook
	}
	ws := rt.Workspace
	return &engine.TurnHook{Store: ss, SessionID: id,
		Open: func(ctx context.Context) (*checkpoint.Repo, error) { return rt.openRepo(ctx, ws) }}
}

func (rt engineRoom) engineConfig(system string, o engineOptions) agent.Config {
	c := rt.Config
	maxTurns := c.MaxToolTurns
	if o.MaxTurns > 0 {
		maxTurns = o.MaxTurns
	}
	effort, budget := rt.reasoning()
	return agent.Config{
		Model:  rt.ModelInfo(),
		System: system,
		Request: llm.Request{
			MaxTokens: c.MaxTokens, Temperature: c.Temperature, ReasoningEffort: effort, Verbosity: c.Verbosity,
			ThinkingBudget: budget, Stream: c.Stream, CacheControl: true, KeepRaw: o.KeepRaw,
		},
		MaxTurns:      maxTurns,
		CompactAt:     c.CompactionThreshold,
		TextToolCalls: true,
		CommandBlocks: rt.textToolModel(),
		StepNotes:     o.StepNotes,
		DoneMarkers:   o.DoneMarkers,
		AgentMode:     o.AgentMode,
		BeforeRequest: o.BeforeRequest,
		EngineTools:   mergeEngineTools(ralph.TaskTools(ralph.NewStore(rt.Workspace, nil)), o.EngineTools),
		Budget:        rt.engineBudget(o),
	}
}

// mergeEngineTools returns base and extra, an extra tool replacing a base
// tool of the same name (providers refuse two tools of one name). Every
// session offers Ralph's read-only list_tasks and show_task (ayder-cli's
// task tools, issue 23); Ralph's runs bring their own.
func mergeEngineTools(base, extra []agent.EngineTool) []agent.EngineTool {
	out := make([]agent.EngineTool, 0, len(base)+len(extra))
	for _, b := range base {
		if !slices.ContainsFunc(extra, func(x agent.EngineTool) bool { return x.Spec.Name == b.Spec.Name }) {
			out = append(out, b)
		}
	}
	return append(out, extra...)
}

// migrateMemory moves the memory tool's files of a trusted workspace from
// <workspace>/.aidex/memory/<family>/ (aidex before issue 23) into the
// state directory, once (memstore.Migrate). An untrusted workspace's old
// tree is left alone: a cloned repository could ship one to plant
// memories.
func (rt engineRoom) migrateMemory() error {
	dir := memstore.Dir(rt.Config.Paths.StateDir, rt.Workspace)
	if !rt.Config.ProjectTrusted || dir == "" || rt.Workspace == "" {
		return nil
	}
	if _, err := memstore.Migrate(rt.Workspace, dir); err != nil {
		return fmt.Errorf("%w (move the folders of %s into %s by hand, or remove them)", err, memstore.LegacyDir(rt.Workspace), dir)
	}
	return nil
}

// textToolNote tells a model configured for text tool calls how to write
// them (the formats textcall parses).
// memoryNote says when to use the memory tool (Nexus Code's guidance).
const memoryNote = "Memory: save to the memory tool what a later session would need and cannot read from the code " +
	"(the user's preferences, decisions and their reasons, facts you had to discover); look there first when a task builds on earlier work. Never store secrets."

const textToolNote = "If you cannot call a tool natively, write the call in your answer as " +
	`<tool_call>{"name": "TOOL", "arguments": {...}}</tool_call>, or run a shell command as a line ` +
	`%%CMD%% command="PROGRAM" arguments="ARGS", then any lines for its standard input, then a line %%END%%. ` +
	"Calls inside fenced code blocks or quoted lines are not run."

// textToolModel reports whether the model is configured to call tools in
// text: config text_tool_calls, or a catalog model known to lack native
// tool calls. Only such models have their %%CMD%% blocks parsed.
func (rt engineRoom) textToolModel() bool {
	if rt.Config.TextToolCalls {
		return true
	}
	if m, ok := rt.Catalog.Model(rt.Provider.Name, rt.Model); ok {
		if native, known := m.SupportsTools(); known && !native {
			return true
		}
	}
	return false
}

// NewWorkspace builds the confinement for this runtime: the workspace plus
// allowed_dirs (and --add-dir); confine = false lifts it, except in the web
// UI.
func (rt *Runtime) NewWorkspace(web bool) (*permission.Workspace, error) {
	return permission.NewWorkspace(rt.Workspace, permission.WorkspaceOptions{
		ExtraDirs:   rt.Config.AllowedDirs,
		Unconfined:  !rt.Config.Confine && !web,
		Home:        rt.Config.Paths.Home,
		ConfigFiles: []string{rt.Config.Paths.ConfigFile, rt.Config.Paths.TrustFile},
	})
}

// policy builds the permission policy from the mode, the rules, safe_mode
// and the built-in allow rules of reg's bookkeeping tools. canAsk is false
// for front ends that cannot ask (asks become denies). Errors: an unknown
// mode, a malformed rule (naming its source file). extra are rules added
// after the configured ones (--agent-writes allow).
func (rt engineRoom) policy(ws *permission.Workspace, canAsk bool, reg *tools.Registry, extra ...permission.Rule) (*permission.Policy, error) {
	return rt.policyWith(ws, canAsk, reg, extra)
}

// policyWith is Policy with extra rules added (a custom command's
// allowed-tools for one run, --agent-writes allow).
func (rt engineRoom) policyWith(ws *permission.Workspace, canAsk bool, reg *tools.Registry, extra []permission.Rule) (*permission.Policy, error) {
	mode, err := permission.ParseMode(rt.Config.PermissionMode)
	if err != nil {
		return nil, err
	}
	var rules []permission.Rule
	add := func(action permission.Decision, list []config.Rule) error {
		for _, r := range list {
			pr, err := permission.ParseRule(r.Text)
			if err != nil {
				return fmt.Errorf("%s: %w", r.Source, err)
			}
			pr.Action, pr.Source = action, r.Source
			rules = append(rules, pr)
		}
		return nil
	}
	// aidex's own bookkeeping (tools.Spec.Bookkeeping) needs no approval:
	// background processes the session started, and its memory and notes
	// under .aidex/ (the policy still confines and protects paths; deny
	// rules still win).
	for _, name := range reg.Names() {
		if d, _ := reg.Lookup(name); d.Bookkeeping {
			rules = append(rules, permission.Rule{Tool: name, Action: permission.Allow, Source: permission.SourceBuiltin})
		}
	}
	p := rt.Config.Permissions
	if err := add(permission.Allow, p.Allow); err != nil {
		return nil, err
	}
	if err := add(permission.Ask, p.Ask); err != nil {
		return nil, err
	}
	if err := add(permission.Deny, p.Deny); err != nil {
		return nil, err
	}
	rules = append(rules, extra...)
	// [sandbox] auto_allow counts only while commands really run in the
	// sandbox.
	sandboxed, _ := rt.toolRoom().sandboxOn()
	return permission.NewPolicy(permission.PolicyConfig{Mode: mode, Rules: rules, SafeMode: rt.Config.SafeMode, Workspace: ws, CanAsk: canAsk,
		SandboxAutoAllow: sandboxed && rt.Config.Sandbox.AutoAllow, Shell: rt.toolRoom().policyShell()})
}

// Profile returns the tool profile from config, adapted to the model's
// edit format (withEditFormat) and to [harness] output_handles.
func (rt *Runtime) Profile() tools.Profile {
	t := rt.Config.Tools
	return rt.engineRoom().withOutputHandles(rt.engineRoom().withEditFormat(tools.Profile{Name: t.Profile, Enabled: t.Enabled, Disabled: t.Disabled}))
}

// registry returns a registry with every tool; the returned func stops
// what the tools started (background processes). Call it once per session.
func (rt engineRoom) registry() (*tools.Registry, func(), error) {
	reg := tools.NewRegistry()
	defs, closeTools := builtin.Defs(rt.toolOptions())
	if list, _ := rt.ProjectContent().Skills(); len(list) > 0 {
		defs = append(defs, skill.Def(list))
	}
	if err := reg.Register(defs...); err != nil {
		closeTools()
		return nil, nil, fmt.Errorf("tools: %w", err)
	}
	return reg, closeTools, nil
}

// toolOptions configure the built-in tools: background processes, memory,
// web fetch, model lists and image generation. generate_image is left out
// when the image provider cannot be set up (e.g. image_provider = "openai"
// without a key).
func (rt engineRoom) toolOptions() builtin.Options {
	current := rt.Provider.Name
	if current == "" {
		current = rt.Config.Provider
	}
	o := builtin.Options{
		MaxBackgroundProcesses: rt.Config.MaxBackgroundProcesses,
		MemoryFamily:           memstore.Family(current, rt.Model),
		MemoryGlobalDir:        memstore.GlobalDir(rt.Config.Paths.ConfigDir),
		MemoryDir:              memstore.Dir(rt.Config.Paths.StateDir, rt.Workspace),
		MemoryUntrusted:        !rt.Config.ProjectTrusted,
		WebFetchAllowPrivate:   rt.Config.WebFetchAllowPrivate,
		Catalog:                rt.Catalog,
		Lister:                 rt.Lister(),
		CurrentProvider:        current,
	}
	if g, err := imagegen.New(imagegen.FromConfig(rt.Config, rt.Getenv)); err == nil {
		o.Image = g
	}
	return o
}

// hiddenTools lists tools not offered in this session: file-changing tools
// with --agent-writes deny, shell tools in the web UI unless allowed, and
// a subagent's tools outside its tools list or in its disallowedTools.
func (rt engineRoom) hiddenTools(reg *tools.Registry, o engineOptions) map[string]bool {
	hidden := map[string]bool{}
	for _, name := range reg.Names() {
		d, _ := reg.Lookup(name)
		switch {
		case o.AgentWrites == "deny" && d.Kind == kind.Write:
			hidden[name] = true
		case o.Web && !rt.Config.WebAllowShellTools && d.Shell:
			hidden[name] = true
		case o.ReadOnly && d.Kind != kind.Read:
			hidden[name] = true
		case o.scope != nil && o.scope.allow != nil && !slices.Contains(o.scope.allow, name):
			hidden[name] = true
		case o.scope != nil && slices.Contains(o.scope.deny, name):
			hidden[name] = true // the subagent's disallowedTools
		case name == "memory" && !rt.Config.Memory:
			hidden[name] = true // memory = false: the project opts out
		}
	}
	return hidden
}

// systemPrompt builds the system prompt: the built-in instructions (or
// system_prompt_file), the environment, the project's instruction files and
// any notes.
func (rt engineRoom) systemPrompt(ctx context.Context, o engineOptions) (string, error) {
	in := agent.PromptInput{
		Workspace:    rt.Workspace,
		OS:           runtime.GOOS + "/" + runtime.GOARCH,
		Shell:        rt.toolRoom().shellLine(),
		Date:         time.Now(),
		Git:          rt.gitSummary(ctx),
		Profile:      rt.Profile().Name,
		Instructions: agent.LoadInstructions(rt.Workspace, rt.Config.Paths.ConfigDir),
		Notes:        o.Notes,
		Append:       o.AppendSystem,
	}
	if o.Asker == nil {
		in.Notes = append(in.Notes, agent.NoAskerNote)
	}
	if rt.textToolModel() {
		in.Notes = append(in.Notes, textToolNote)
	}
	if note := rt.editFormatNote(); note != "" {
		in.Notes = append(in.Notes, note)
	}
	in.Notes = append(in.Notes, agentNotes(o)...)
	if isLocal(rt.Provider) {
		// Smaller local models find their way with the project's shape
		// in view (ayder-cli's project structure).
		if tree := projectTreeNote(rt.Workspace, projectTreeBytes); tree != "" {
			in.Notes = append(in.Notes, tree)
		}
	}
	if prof := rt.Profile(); rt.Config.Memory && !slices.Contains(prof.Disabled, "memory") &&
		(prof.Name != tools.ProfileReadonly || slices.Contains(prof.Enabled, "memory")) {
		in.Notes = append(in.Notes, memoryNote)
	}
	// Pinned memories: the user's global ones always; a project's only once
	// the folder is trusted (a cloned repository could ship pinned entries).
	projectMem := ""
	if rt.Config.ProjectTrusted {
		projectMem = rt.Workspace
	}
	if pinned, err := memstore.PinnedNotes(projectMem, memstore.GlobalDir(rt.Config.Paths.ConfigDir)); err == nil {
		in.Notes = append(in.Notes, pinned...)
	}
	if list, _ := rt.ProjectContent().Skills(); len(list) > 0 && !slices.Contains(rt.Config.Tools.Disabled, skill.Name) {
		in.Notes = append(in.Notes, skills.Prompt(list, skillPromptTokens))
	}
	if f := rt.Config.SystemPromptFile; f != "" {
		data, err := os.ReadFile(f)
		if err != nil {
			return "", fmt.Errorf("system_prompt_file: %w", err)
		}
		in.Override = string(data)
	}
	return agent.BuildSystemPrompt(in), nil
}

// agentNotes are the agent-mode additions to the system prompt, once per
// run: how to finish early, and the write policy of deny and dry-run.
func agentNotes(o engineOptions) []string {
	var notes []string
	if o.AgentMode && len(o.DoneMarkers) > 0 {
		notes = append(notes, fmt.Sprintf("You are running unattended in agent mode: there is no user to answer questions; work through the task on your own. "+
			"When the task is complete, write %s on a line of its own at the end of your answer; the run then stops. Until then, every answer is followed by a new turn.", o.DoneMarkers[0]))
	}
	switch o.AgentWrites {
	case "deny":
		notes = append(notes, "File changes are disabled in this run: do not try to write files. Output every change you propose as a unified diff (--- a/path, +++ b/path) in your answer.")
	case "dry-run":
		notes = append(notes, "This is a dry run: file writes are shown as diffs, not made. Use the file tools as usual; each shows the diff it would apply, and nothing is written.")
	}
	return notes
}

// agentWritesSource is the source named by the allow rules of
// --agent-writes allow.
const agentWritesSource = "--agent-writes allow"

// agentWriteRules are the allow rules of --agent-writes allow: one for
// every file tool (tools that write only through the commit: Def.DryRun),
// so they write without asking in ask mode too. The policy still denies
// in plan mode and applies deny and ask rules, protected paths and
// confinement before allow rules.
func agentWriteRules(reg *tools.Registry) []permission.Rule {
	var rules []permission.Rule
	for _, name := range reg.Names() {
		if d, _ := reg.Lookup(name); d.DryRun && d.Kind == kind.Write {
			rules = append(rules, permission.Rule{Tool: name, Action: permission.Allow, Source: agentWritesSource})
		}
	}
	return rules
}

// reasoning is the run's reasoning effort and thinking budget: the model's
// [providers.NAME.models.MODEL] effort and budget where its table sets
// them, else reasoning_effort and thinking_budget; when none is set, the
// default of the provider and model ([defaultEffort]: thinking on where
// the model supports it). An effort of "off" turns reasoning off.
func (rt engineRoom) reasoning() (effort string, budget int) {
	c := rt.Config
	effort, budget = c.ReasoningEffort, c.ThinkingBudget
	r, own := c.ReasoningOf(rt.Provider.Name, rt.Model)
	if own {
		if r.Effort != "" {
			effort = r.Effort
		}
		if r.Budget != nil {
			budget = *r.Budget
		}
	}
	switch {
	case effort == reasoningOff:
		return "", 0
	case effort == "" && budget == 0 && !own:
		effort = defaultEffort(rt.Provider.Name, rt.Model)
	}
	return effort, budget
}
