package app

import (
	"context"
	"fmt"
	"time"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/hooks"
)

// The triggers of the Setup hooks (StartOptions.Setup), Claude Code's:
// --init and --init-only run them with "init", --maintenance with
// "maintenance".
const (
	SetupInit        = "init"
	SetupMaintenance = "maintenance"
)

// setupHooks is the service's part that runs the Setup hooks and keeps
// what they leave for the sessions.
type setupHooks struct{ s *Service }

// run runs the Setup hooks whose matcher matches trigger: what they
// export through CLAUDE_ENV_FILE reaches every session's commands, their
// additional context goes to the model with each session's first
// prompt, their messages (a failing hook's; exit 2 does not block
// Setup) are reported as warnings. The input's session_id is a fresh id
// of the run ("setup_<unix nanoseconds>"): no conversation exists yet.
func (sh setupHooks) run(ctx context.Context, trigger string, report func(Report)) {
	s := sh.s
	h := s.Runtime().engineRoom().hookAdapterFor(engineOptions{hookState: s.hookState})
	if h == nil {
		return
	}
	sess := &agent.Conversation{ID: fmt.Sprintf("setup_%d", time.Now().UnixNano()), Workspace: s.Runtime().Workspace}
	out := h.Fire(ctx, sess, hooks.Input{Event: hooks.Setup, Trigger: trigger})
	s.hookState.AddEnv(out.Env)
	s.mu.Lock()
	for _, c := range out.Context {
		s.setupContext = append(s.setupContext, "Setup hook additional context:\n"+c)
	}
	s.mu.Unlock()
	if report != nil {
		for _, m := range out.Messages {
			report(Report{Text: m, Warning: true})
		}
	}
}

// pending returns the Setup hooks' context for a new session.
func (sh setupHooks) pending() []string {
	s := sh.s
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.setupContext...)
}
