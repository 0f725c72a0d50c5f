// Package turn is the room of internal/app that holds the turn
// strategies (plain, custom command, architect, multi-model, fallback;
// issue 34). It imports nothing of app. Today it holds the event plumbing
// of an architect turn's two phases (InPhase, PhaseNotice, EndPhase); the
// strategies themselves move here piece by piece.
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
