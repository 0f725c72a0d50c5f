package app

import (
	"fmt"
	"os/exec"
	"path/filepath"

	"github.com/zelvior/aidex/internal/app/engine"
	"github.com/zelvior/aidex/internal/config"
	"github.com/zelvior/aidex/internal/hooks"
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
func (rt engineRoom) hookAdapterFor(o engineOptions) *hookAdapter {
	if rt.hooks == nil || !rt.anyHook() {
		return nil
	}
	st := o.hookState
	if st == nil {
		st = &hookState{}
	}
	return &hookAdapter{Runner: rt.hooks, Workspace: rt.Workspace, Mode: claudeMode(rt.Config.PermissionMode),
		Model: rt.Provider.Name + "/" + rt.Model, Transcripts: filepath.Join(rt.Config.Paths.DataDir, "transcripts"),
		Subagent: o.Subagent, Agent: o.hookAgent, State: st,
		Sandboxed: func() bool { on, _ := rt.toolRoom().sandboxOn(); return on }}
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

// The hooks adapter and its state live in app/engine; these names keep
// app's code short.
type (
	hookAdapter = engine.Hooks
	hookState   = engine.HookState
	hookAgent   = engine.HookAgent
)

// PromptBlockedError is the error of a run whose prompt a
// UserPromptSubmit hook blocked (exit 2 or decision "block"); Reason is
// the hook's stderr or reason, for the user. The prompt was not sent.
type PromptBlockedError = engine.PromptBlockedError
