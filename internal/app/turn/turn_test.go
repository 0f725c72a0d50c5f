package turn

import (
	"testing"

	"github.com/zelvior/aidex/internal/agent"
)

// TestInPhaseMarksAndHoldsBack checks the architect phase's stream: its
// events carry the phase, its session event is followed by the phase's
// notice, and its done event is held back for the turn's one done.
func TestInPhaseMarksAndHoldsBack(t *testing.T) {
	var got []agent.Event
	emit := InPhase(func(e agent.Event) { got = append(got, e) }, PhaseArchitect, "m", false)
	emit(agent.Event{Type: agent.EventSession, SessionID: "s"})
	emit(agent.Event{Type: agent.EventText, Text: "plan"})
	emit(agent.Event{Type: agent.EventDone})
	if len(got) != 3 {
		t.Fatalf("got %d events, want session, notice, text: %+v", len(got), got)
	}
	if got[1].Type != agent.EventNotice || got[1].Phase != PhaseArchitect || got[2].Phase != PhaseArchitect {
		t.Fatalf("events %+v: want the notice and the text marked with the phase", got)
	}
	var done []agent.Event
	d, _ := EndPhase(func(e agent.Event) { done = append(done, e) }, "s", &agent.DoneInfo{StopReason: agent.StopDone}, nil)
	if d == nil || len(done) != 1 || done[0].Type != agent.EventDone {
		t.Fatalf("EndPhase sent %+v", done)
	}
}
