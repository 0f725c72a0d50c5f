package turn

import (
	"context"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/llm"
)

// Turn is one user turn made ready to run: the prompt (Input, queued
// context first) on Conversation, with events to Emit. Engine is the
// session's engine for this turn (a custom command's changes applied,
// see [Command.Apply], and this run's extra engine tools). Models and
// Architect choose the strategy: Models (when set) answers with the
// active models, else Architect (when set) answers in two phases, else
// Engine alone.
type Turn struct {
	Conversation *agent.Conversation
	Input        []llm.Part
	Emit         func(agent.Event)
	Engine       *agent.Engine
	Architect    *Architect
	Models       *Models
}

// Run runs t with its strategy (see [Turn]) and returns the run's done
// information. Errors: the runs'.
func Run(ctx context.Context, t Turn) (*agent.DoneInfo, error) {
	switch {
	case t.Models != nil:
		return t.Models.Run(ctx, t.Conversation, t.Input, t.Emit)
	case t.Architect != nil:
		return t.Architect.Run(ctx, t.Conversation, t.Input, t.Emit)
	}
	return t.Engine.Run(ctx, t.Conversation, t.Input, t.Emit)
}

// Command is what a custom command changes for the run that sends it:
// Policy is the session's policy with the command's allowed-tools added
// (nil: the session's, see [AddedRules]); OnModel moves the engine to the
// command's model (nil: the session's model), keeping its tools, policy,
// hooks and budget. A command with a model of its own runs on it alone
// (no active models).
type Command struct {
	Policy  agent.Policy
	OnModel func(*agent.Engine) (*agent.Engine, error)
}

// Apply returns eng changed for the command's run: a clone with the
// command's policy, on the command's model. Everything else — hooks, the
// asker, approvals, the system prompt, the budget — stays eng's; eng
// itself is unchanged. Errors: OnModel's.
func (c *Command) Apply(eng *agent.Engine) (*agent.Engine, error) {
	e := eng.Clone()
	if c.Policy != nil {
		e.Policy = c.Policy
	}
	if c.OnModel == nil {
		return e, nil
	}
	return c.OnModel(e)
}

// AddedRules is a policy with allow rules added for one run: a call Base
// (the session's policy) allows is allowed; otherwise Extra (the policy
// with the added rules; it holds every configured rule too, so deny
// rules, protected paths and confinement still win over the added
// allows) decides. Approvals are remembered by Base.
type AddedRules struct {
	Base  agent.Policy
	Extra agent.Policy
}

// Check implements agent.Policy.
func (a *AddedRules) Check(c *agent.Call) agent.Verdict {
	if v := a.Base.Check(c); v.Decision == agent.Allow {
		return v
	}
	return a.Extra.Check(c)
}

// Remember implements agent.Policy: approvals go to the session's policy.
func (a *AddedRules) Remember(d agent.Answer, rule string) error { return a.Base.Remember(d, rule) }
