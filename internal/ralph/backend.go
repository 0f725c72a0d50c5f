package ralph

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/setup"
	"github.com/zelvior/aidex/internal/tools"
	"github.com/zelvior/aidex/internal/tools/exec"
)

// Backend is what the runner and the planner need from the rest of aidex:
// sessions, engines and a way to run the verification command.
// [SetupBackend] is the real one.
type Backend interface {
	// NewSession creates the persisted session one task (or one plan)
	// runs in.
	NewSession(ctx context.Context) (*agent.Session, error)
	// Engine builds the engine for a session; close the returned func
	// when the session's work ends (it stops background processes).
	Engine(ctx context.Context, r EngineRequest) (*agent.Engine, func(), error)
	// Verify runs a shell command line in the workspace with a timeout.
	Verify(ctx context.Context, command string, timeout time.Duration) VerifyResult
}

// EngineRequest describes the engine for one session: the engine-owned
// tools to add (complete_task, list_tasks, ...), notes for the system
// prompt, MaxTurns (model responses per run, 0: max_tool_turns) and Plan
// (plan permission mode: read-only tools).
type EngineRequest struct {
	SessionID  string
	ExtraTools []agent.ExtraTool
	Notes      []string
	MaxTurns   int
	Plan       bool
}

// VerifyResult is the outcome of the verification command: OK when it
// exited 0; ExitCode (-1 when it did not run or was killed); Output, its
// combined stdout and stderr, capped at 30000 characters (head and tail
// kept); Error, why it failed; Duration, how long it ran.
type VerifyResult struct {
	OK       bool          `json:"ok"`
	ExitCode int           `json:"exit_code"`
	Output   string        `json:"output"`
	Error    string        `json:"error,omitempty"`
	Duration time.Duration `json:"duration_ns"`
}

// Sessions is what SetupBackend needs of the session store
// (*session.Store): message persistence plus Create.
type Sessions interface {
	setup.SessionStore
	Create(ctx context.Context, workspace, provider, model string) (*agent.Session, error)
}

// SetupBackend is the Backend on aidex's runtime: engines from
// setup.Runtime.Engine with no approver (headless rules: what the policy
// does not allow is denied, nothing waits), sessions in the session store.
//
// Ralph runs are always confined to the workspace: the runtime's confine =
// false is ignored. Web applies the web UI's gating of shell tools
// (web_allow_shell_tools), as in web chat.
type SetupBackend struct {
	Runtime  *setup.Runtime
	Sessions Sessions
	Web      bool
	Client   setup.ClientOptions
}

var _ Backend = (*SetupBackend)(nil)

// runtime returns a copy of the runtime with confinement forced on and,
// for planning, the plan permission mode.
func (b *SetupBackend) runtime(plan bool) *setup.Runtime {
	rt := *b.Runtime
	cfg := *rt.Config
	cfg.Confine = true
	if plan {
		cfg.PermissionMode = "plan"
	}
	rt.Config = &cfg
	return &rt
}

// NewSession creates a session for the runtime's workspace, provider and
// model.
func (b *SetupBackend) NewSession(ctx context.Context) (*agent.Session, error) {
	if b.Sessions == nil {
		return nil, errors.New("ralph: no session store")
	}
	rt := b.Runtime
	return b.Sessions.Create(ctx, rt.Workspace, rt.Provider.Name, rt.Model)
}

// Engine builds the session's engine (confined, no approver).
func (b *SetupBackend) Engine(ctx context.Context, r EngineRequest) (*agent.Engine, func(), error) {
	o := setup.EngineOptions{SessionID: r.SessionID, MaxTurns: r.MaxTurns, Notes: r.Notes,
		ExtraTools: r.ExtraTools, Web: b.Web, Client: b.Client}
	if b.Sessions != nil {
		o.Store = b.Sessions
	}
	return b.runtime(r.Plan).Engine(ctx, o)
}

// Verify runs command with run_command's machinery (the user's POSIX
// shell, credentials removed from the environment, the process group
// killed on timeout, output capped) in the confined workspace. timeout is
// clamped to 1 s..10 min (0: 10 min).
func (b *SetupBackend) Verify(ctx context.Context, command string, timeout time.Duration) VerifyResult {
	start := time.Now()
	fail := func(err error) VerifyResult {
		return VerifyResult{ExitCode: -1, Error: err.Error(), Duration: time.Since(start)}
	}
	ws, err := b.runtime(false).NewWorkspace(false)
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
	res := p.Run(ctx, tools.NewEnv(ws))
	out := VerifyResult{OK: res.OK, ExitCode: -1, Output: res.Output, Error: res.Error, Duration: time.Since(start)}
	if res.Meta != nil && res.Meta.ExitCode != nil {
		out.ExitCode = *res.Meta.ExitCode
	}
	return out
}
