package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/zelvior/aidex/internal/agent"
	turns "github.com/zelvior/aidex/internal/app/turn"
	"github.com/zelvior/aidex/internal/mcp"
	"github.com/zelvior/aidex/internal/ralph"
	"github.com/zelvior/aidex/internal/tools"
	"github.com/zelvior/aidex/internal/tools/exec"
)

// ralphSessions is what [ralphBackend] needs of the session store
// (*session.Store): message persistence plus Create.
type ralphSessions interface {
	sessionStore
	Create(ctx context.Context, workspace, provider, model string) (*agent.Conversation, error)
}

// ralphBackend is the one ralph.Backend of every front end: engines built
// by [Runtime.Engine] with no approver (what the policy does not allow is
// denied, nothing waits), sessions in the session store.
//
// Runtime is called at each use, so a model or mode switch in the front end
// applies from the next task. Ralph runs are always confined to the
// workspace: the runtime's confine = false is ignored. Web applies the web
// UI's gating of shell tools (web_allow_shell_tools), as in web chat.
type ralphBackend struct {
	Runtime  func() *Runtime
	Sessions ralphSessions
	Web      bool
	Client   ClientOptions
	// LockDir holds the sessions' run locks (see [Session.RunWith]): an
	// engine holds its session's lock until it is closed, so `aidex -c`
	// cannot continue a task's session while Ralph runs it ("": no lock).
	LockDir string
	// MCP returns the MCP manager whose tools a task's engine offers
	// (nil, or a nil answer: no MCP tools); planning never offers them.
	MCP func(ctx context.Context) *mcp.Manager
	// RuntimeFor loads the runtime of an active model ("PROVIDER/MODEL"):
	// with multi_mode other than single and multi_models set, a task's
	// runs go through every active model in that mode (planning stays
	// with the runtime's model). nil: the runtime's model alone.
	RuntimeFor func(ctx context.Context, spec string) (*Runtime, error)
	// KeepAll keeps every answer of a parallel turn, as multi_keep = "all"
	// (--keep all) does; otherwise the first successful one in list order
	// is kept.
	KeepAll bool

	// rts caches RuntimeFor's answers (nil: no cache); the backends of
	// Ralph's workers share their coordinator's.
	rts *runtimeCache
}

// runtimeCache keeps the runtimes of active models while the service's
// runtime (current) stays the same: every task of a run shares them
// instead of loading them again; a reload starts a new cache.
type runtimeCache struct {
	current func() *Runtime
	mu      sync.Mutex
	of      *Runtime
	m       map[string]*Runtime
}

// runtimeFor is RuntimeFor, cached in b.rts when b has one.
func (b *ralphBackend) runtimeFor(ctx context.Context, spec string) (*Runtime, error) {
	c := b.rts
	if c == nil {
		return b.RuntimeFor(ctx, spec)
	}
	cur := c.current()
	c.mu.Lock()
	if c.of != cur {
		c.of, c.m = cur, map[string]*Runtime{}
	}
	rt := c.m[spec]
	c.mu.Unlock()
	if rt != nil {
		return rt, nil
	}
	rt, err := b.RuntimeFor(ctx, spec)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.of == cur {
		c.m[spec] = rt
	}
	c.mu.Unlock()
	return rt, nil
}

// staticRuntime returns a ralphBackend.Runtime that always answers rt.
func staticRuntime(rt *Runtime) func() *Runtime {
	return func() *Runtime { return rt }
}

// runtime returns a copy of the current runtime with confinement forced on
// and, for planning, the plan permission mode.
func (b *ralphBackend) runtime(plan bool) *Runtime {
	rt := *b.Runtime()
	cfg := *rt.Config
	cfg.Confine = true
	if plan {
		cfg.PermissionMode = "plan"
	}
	rt.Config = &cfg
	return &rt
}

// NewSession creates a session for the runtime's workspace, provider and
// model. Errors: no session store, or the store's.
func (b *ralphBackend) NewSession(ctx context.Context) (*agent.Conversation, error) {
	if b.Sessions == nil {
		return nil, errors.New("ralph: no session store")
	}
	rt := b.Runtime()
	return b.Sessions.Create(ctx, rt.Workspace, rt.Provider.Name, rt.Model)
}

// Engine builds the session's engine (confined, no approver; for
// planning, the plan permission mode and only read-only tools offered).
func (b *ralphBackend) Engine(ctx context.Context, r ralph.EngineRequest) (ralph.Runner, func(), error) {
	o := engineOptions{SessionID: r.SessionID, MaxTurns: r.MaxTurns, Notes: r.Notes,
		EngineTools: r.EngineTools, Web: b.Web, Client: b.Client, ReadOnly: r.Plan, RunUSD: r.MaxCostUSD}
	if b.Sessions != nil {
		o.Store = b.Sessions
	}
	if b.MCP != nil && !r.Plan {
		o.MCP = b.MCP(ctx)
	}
	unlock, err := lockSession(b.LockDir, r.SessionID)
	if err != nil {
		return nil, nil, err
	}
	rt := b.runtime(r.Plan)
	eng, closeEng, err := rt.Engine(ctx, o)
	if err != nil {
		unlock()
		return nil, nil, err
	}
	end := func() { closeEng(); unlock() }
	cfg, err := multiFromConfig(rt)
	if err != nil || r.Plan || b.RuntimeFor == nil || !cfg.Active() {
		return eng, end, err
	}
	engs, err := modelEngines(ctx, eng, cfg.Models, b.runtimeFor, func(rt *Runtime, base *agent.Engine) (*agent.OpenModel, error) {
		var store sessionStore
		if base.Store != nil {
			store = o.Store
		}
		return onModel(rt, b.Client, store, base.Tools)
	})
	if err != nil {
		end()
		return nil, nil, err
	}
	keepAll := b.KeepAll || rt.Config.MultiKeep == "all"
	return &turns.Models{Engines: engs, IDs: cfg.IDs(), Mode: string(cfg.Mode), KeepAll: keepAll, Rot: turns.NewRotor()}, end, nil
}

// Verify runs command with run_command's machinery (the user's POSIX
// shell, credentials removed from the environment, the process group
// killed on timeout, output capped) in the confined workspace, in the
// sandbox of the model's own commands: the scripts, Makefiles and tests
// it runs may be the model's. [sandbox] verify_unsandboxed = true runs it
// outside. A failure the sandbox caused says so in Error, in one line, as
// a command's does. timeout is clamped to 1 s..10 min (0: 10 min).
func (b *ralphBackend) Verify(ctx context.Context, command string, timeout time.Duration) ralph.VerifyResult {
	start := time.Now()
	fail := func(err error) ralph.VerifyResult {
		return ralph.VerifyResult{ExitCode: -1, Error: err.Error(), Duration: time.Since(start)}
	}
	rt := b.runtime(false)
	ws, err := rt.NewWorkspace(false)
	if err != nil {
		return fail(err)
	}
	reg := tools.NewRegistry()
	if err := reg.Register(exec.Tools(exec.Options{})...); err != nil {
		return fail(err)
	}
	secs := int(timeout / time.Second)
	if timeout <= 0 || secs > int(exec.MaxCommandTimeout/time.Second) {
		secs = int(exec.MaxCommandTimeout / time.Second)
	}
	args, _ := json.Marshal(map[string]any{"command": command, "timeout": max(secs, 1)})
	p, err := reg.Prepare("run_command", args)
	if err != nil {
		return fail(fmt.Errorf("verify command: %w", err))
	}
	env, err := rt.toolRoom().toolEnv(ws)
	if err != nil {
		return fail(err)
	}
	if rt.Config.Sandbox.VerifyUnsandboxed {
		env.Confiner = nil // the user's explicit way out
	}
	res := p.Run(ctx, env)
	out := ralph.VerifyResult{OK: res.OK, ExitCode: -1, Output: res.Output, Error: res.Error, Duration: time.Since(start)}
	if res.Meta != nil && res.Meta.ExitCode != nil {
		out.ExitCode = *res.Meta.ExitCode
	}
	if res.Meta != nil && res.Meta.Sandbox != "" {
		out.Error += " (verify_command runs in the sandbox; verify_unsandboxed = true in [sandbox] runs it outside)"
	}
	return out
}

// RalphBackend returns the Ralph backend over the service: engines for
// its current runtime (a switch applies from the next task) with the
// service's MCP tools, sessions in its store; web applies the web UI's
// gating of shell tools.
func (s *Service) RalphBackend(web bool) *ralphBackend {
	return &ralphBackend{Runtime: s.Runtime, Sessions: s.store, Web: web, LockDir: s.lockDir, MCP: s.MCP, RuntimeFor: s.runtimeFor,
		rts: &runtimeCache{current: s.Runtime}}
}

// Ralph returns a Ralph service for the workspace over
// [Service.RalphBackend].
func (s *Service) Ralph(web bool) *ralph.Service {
	return ralph.NewService(ralph.Options{Workspace: s.Runtime().Workspace, Backend: s.RalphBackend(web)})
}
