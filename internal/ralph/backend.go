package ralph

import (
	"context"
	"time"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/llm"
)

// Backend is what the runner and the planner need from the rest of aidex:
// sessions, engines and a way to run the verification command.
// app.Service.RalphBackend gives the real one.
type Backend interface {
	// NewSession creates the persisted session one task (or one plan)
	// runs in.
	NewSession(ctx context.Context) (*agent.Conversation, error)
	// Engine builds the engine for a session (one model's, or app's
	// runner over the active models in their conversation mode); close the
	// returned func when the session's work ends (it stops background
	// processes).
	Engine(ctx context.Context, r EngineRequest) (Runner, func(), error)
	// Verify runs a shell command line in the workspace with a timeout.
	Verify(ctx context.Context, command string, timeout time.Duration) VerifyResult
}

// Runner runs one prompt in a session to its end, as
// [agent.Engine.Run] does (events to emit; the DoneInfo is also the last
// event). MaxTurns is its cap of model responses per run (0: the
// default, 25).
type Runner interface {
	Run(ctx context.Context, s *agent.Conversation, input []llm.Part, emit func(agent.Event)) (*agent.DoneInfo, error)
	MaxTurns() int
}

// EngineRequest describes the engine for one session: the engine-owned
// tools to add (complete_task, list_tasks, ...), notes for the system
// prompt, MaxTurns (model responses per run, 0: max_tool_turns) and Plan
// (plan permission mode, and only read-only tools, kind read, offered).
// MaxCostUSD is what each of the engine's runs may spend, in US dollars
// (0: the configured budget.run_usd): what is left of the Ralph run's
// --max-cost.
type EngineRequest struct {
	SessionID   string
	EngineTools []agent.EngineTool
	Notes       []string
	MaxTurns    int
	Plan        bool
	MaxCostUSD  float64
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
