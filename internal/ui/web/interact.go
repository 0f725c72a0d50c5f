package web

import (
	"fmt"
	"net/http"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app"
)

// answersAPI serves what a run waits on the user for: approvals, ask_user
// interactions and a parallel turn's choice (/multi, /choices).
type answersAPI struct {
	*Server
	// choices are the parallel turns' questions waiting for the page.
	choices choices
}

// interactionTTL is how long an interaction (ask_user's questions) waits
// for its answer in the web UI; after it the token no longer answers and
// the model is told that no one answered.
const interactionTTL = app.InteractionTTL

// interactionView is an interaction as the page gets it: the SSE
// interaction event (the engine's event and the token), and the items of
// GET /api/interactions.
type interactionView = app.InteractionView

// interactionPost is the body of POST /api/interaction/{id}: the answer
// ({"answers": {...}} or {"declined": true}, "id" optional), the token of
// the interaction event, and the session when the id is ambiguous.
type interactionPost struct {
	agent.InteractionAnswer
	Token     string `json:"token"`
	SessionID string `json:"session_id,omitempty"`
}

// handleInteraction answers an interaction: POST /api/interaction/{id}.
func (s *answersAPI) handleInteraction(w http.ResponseWriter, r *http.Request) {
	var req interactionPost
	if !s.decodeBody(w, r, &req) {
		return
	}
	id := r.PathValue("id")
	if req.ID != "" && req.ID != id {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("the body's id %q is not the URL's %q", req.ID, id))
		return
	}
	ans, err := s.host.AnswerInteraction(req.SessionID, id, req.Token, req.InteractionAnswer)
	if err != nil {
		writeError(w, hostStatus(err), err.Error())
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "answer": ans})
}

// handleInteractionsList lists the waiting interactions with their tokens
// (for a second tab or a reloaded page): GET /api/interactions.
func (s *answersAPI) handleInteractionsList(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"interactions": s.host.Interactions()})
}
