package web

import (
	"context"
	"net/http"
	"testing"

	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// "+ New chat" left empty is not what `aidex -c` (another aidex in the
// workspace) continues, nor listed; the new chat's id stays valid here,
// and once it has a message it is the latest.
func TestNewChatLeftEmptyIsNotContinued(t *testing.T) {
	model := llmtest.NewScript(t, llmtest.Turn{Text: "first answer"}, llmtest.Turn{Text: "second answer"})
	e := newEnv(t, model, "")
	e.chatOK("the real conversation")
	var hist SessionView
	e.call(http.MethodGet, "/api/history", nil, &hist)
	var cleared map[string]any
	if st := e.call(http.MethodPost, "/api/v1/history/clear", nil, &cleared); st != http.StatusOK {
		t.Fatalf("+ New chat: %d", st)
	}

	other, err := app.Start(context.Background(), app.StartOptions{Options: app.Options{Workspace: e.ws, Getenv: func(k string) string { return e.vars[k] }}})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	cont, err := other.Pick(context.Background(), "", true)
	if err != nil || cont.ID != hist.ID || len(cont.Messages) != 2 {
		t.Fatalf("aidex -c picked %+v (%v), want %s with its 2 messages", cont, err, hist.ID)
	}
	var list struct {
		Sessions []struct{ ID string } `json:"sessions"`
	}
	e.call(http.MethodGet, "/api/v1/sessions", nil, &list)
	if len(list.Sessions) != 1 || list.Sessions[0].ID != hist.ID {
		t.Errorf("sessions listed: %+v, want only %s", list.Sessions, hist.ID)
	}

	e.chatOK("now the new chat has a message")
	cont, err = other.Pick(context.Background(), "", true)
	if err != nil || cont.ID != cleared["session_id"] {
		t.Fatalf("after a message in the new chat, aidex -c picked %v (%v), want %v", cont, err, cleared["session_id"])
	}
}
