package plain

import (
	"strings"
	"testing"
	"time"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/sharedtest"
)

var waiting = agent.Event{Type: agent.EventWaiting, Waiting: &agent.WaitingInfo{Provider: "ollama", Model: "qwen3:8b", InputTokens: 2100}}

func TestWaitingLineAtOnce(t *testing.T) {
	var out strings.Builder
	p := &Printer{Out: &out, Color: true, WaitNotice: -1}
	p.Event(waiting)
	p.Event(agent.Event{Type: agent.EventText, Text: "Hi"})
	want := dim + "waiting for ollama/qwen3:8b — reading ~2,100 tokens…" + reset + "\nHi"
	if out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
}

// TestWaitingLineAfterAWait: the line comes once the model has been silent
// for WaitNotice, and only once.
func TestWaitingLineAfterAWait(t *testing.T) {
	out := &sharedtest.Buffer{}
	p := &Printer{Out: out, WaitNotice: time.Millisecond}
	p.Event(waiting)
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(out.String(), "waiting for") && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	p.Event(agent.Event{Type: agent.EventText, Text: "Hi"})
	p.Event(agent.Event{Type: agent.EventDone, Done: &agent.DoneInfo{}})
	if got, want := out.String(), "waiting for ollama/qwen3:8b — reading ~2,100 tokens…\nHi\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestNoWaitingLineForAQuickAnswer: an answer that starts before
// WaitNotice leaves no waiting line.
func TestNoWaitingLineForAQuickAnswer(t *testing.T) {
	out := &sharedtest.Buffer{}
	p := &Printer{Out: out, WaitNotice: time.Hour}
	p.Event(waiting)
	p.Event(agent.Event{Type: agent.EventText, Text: "Hi"})
	p.Event(agent.Event{Type: agent.EventDone, Done: &agent.DoneInfo{}})
	if p.wait != nil || out.String() != "Hi\n" {
		t.Errorf("got %q (timer pending: %v), want the answer alone", out.String(), p.wait != nil)
	}
}
