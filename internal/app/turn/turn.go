// Package turn is the room of internal/app that holds the turn
// strategies, the one pipeline every front end's prompt goes through
// (issue 34): app's live session (app.Session.Run) makes the turn ready
// — the prompt with its queued context and hook additions, the session's
// engine, the engines of the strategy — and [Run] runs it:
//
//   - plain: the session's engine runs the prompt (agent.Engine.Run);
//   - custom command: a command's allowed-tools and model change the
//     engine for this run only ([Command]);
//   - architect: an architect model plans with read-only tools, an editor
//     model makes the edits ([Architect]);
//   - multi-model: the active models answer in round-robin, sequential or
//     parallel mode ([Models]; Ralph's task runs use it too);
//   - fallback: within any of these, a model that fails over to the
//     engine's fallback models (agent.Config.Fallbacks, set by app when it
//     builds the engine) is the engine's own step, not a strategy here.
//
// It imports nothing of app: what it needs comes in as agent engines,
// agent.Policy values and functions.
package turn

import (
	"fmt"

	"github.com/zelvior/aidex/internal/agent"
)

// The phases of an architect turn (agent.Event.Phase).
const (
	PhaseArchitect = "architect"
	PhaseEditor    = "editor"
)

// InPhase returns emit that marks the events of a phase on model with
// phase, follows the run's session event with the phase's notice, and
// holds back the run's done event (the architect turn sends one for both
// phases) and, when dropSession, its session event. A subagent's events
// pass as they are, marked.
func InPhase(emit func(agent.Event), phase, model string, dropSession bool) func(agent.Event) {
	return func(ev agent.Event) {
		if ev.Phase == "" {
			ev.Phase = phase
		}
		own := ev.ParentToolCallID == ""
		switch {
		case own && ev.Type == agent.EventDone:
			return
		case own && ev.Type == agent.EventSession:
			if !dropSession {
				emit(ev)
			}
			emit(PhaseNotice(ev.SessionID, phase, model))
			return
		}
		emit(ev)
	}
}

// PhaseNotice is the notice event that begins a phase on model.
func PhaseNotice(sessionID, phase, model string) agent.Event {
	does := "plans the change with read-only tools"
	if phase == PhaseEditor {
		does = "makes the edits"
	}
	return agent.Event{Type: agent.EventNotice, SessionID: sessionID, Phase: phase, Model: model,
		Text:   fmt.Sprintf("── %s · %s %s ──", phase, model, does),
		Notice: &agent.NoticeInfo{Kind: agent.NoticePhase, Phase: phase, To: model}}
}

// EndPhase emits the turn's done event (when there is one) and returns it.
func EndPhase(emit func(agent.Event), sessionID string, d *agent.DoneInfo, err error) (*agent.DoneInfo, error) {
	if d != nil {
		emit(agent.Event{Type: agent.EventDone, SessionID: sessionID, Done: d})
	}
	return d, err
}
