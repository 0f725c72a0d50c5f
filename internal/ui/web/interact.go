package web

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/zelvior/aidex/internal/agent"
)

// interactionTTL is how long an interaction (ask_user's questions) waits
// for its answer in the web UI; after it the token no longer answers and
// the model is told that no one answered.
const interactionTTL = 30 * time.Minute

// interactions holds ask_user's interactions waiting for an answer, by
// session and interaction id. Each has a token of its own, sent with its
// SSE interaction event: single use (an answer consumes it) and expiring
// (interactionTTL).
type interactions struct {
	mu      sync.Mutex
	pending map[string]*pendingInteraction
	now     func() time.Time
}

type pendingInteraction struct {
	session string
	info    agent.InteractionInfo
	token   string
	expires time.Time
	answer  chan agent.InteractionAnswer
	// done is set when the answer was sent (the token is used up); the
	// waiting Ask (which may not have started waiting yet) removes the
	// entry.
	done bool
}

// interactionView is an interaction as the page gets it: the SSE
// interaction event (the engine's event and the token), and the items of
// GET /api/interactions.
type interactionView struct {
	agent.Event
	Token     string    `json:"token"`
	ExpiresAt time.Time `json:"expires_at"`
}

func newInteractions() interactions {
	return interactions{pending: map[string]*pendingInteraction{}, now: time.Now}
}

// open registers an interaction with a new token (before the page can see
// it); a second open of the same one returns the first.
func (x *interactions) open(session string, info agent.InteractionInfo) (*pendingInteraction, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	k := approvalKey(session, info.ID)
	if p := x.pending[k]; p != nil {
		return p, nil
	}
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, fmt.Errorf("interaction token: %w", err)
	}
	p := &pendingInteraction{session: session, info: info, token: hex.EncodeToString(b[:]),
		expires: x.now().Add(interactionTTL), answer: make(chan agent.InteractionAnswer, 1)}
	x.pending[k] = p
	return p, nil
}

func (x *interactions) remove(session, id string) {
	x.mu.Lock()
	delete(x.pending, approvalKey(session, id))
	x.mu.Unlock()
}

// answer checks and delivers ans to the interaction id (in session when
// given) and consumes its token. Errors with their HTTP status: no such
// interaction waiting (404: never asked, already answered, run ended),
// waiting in several sessions (409), a wrong token (403), an expired one
// (410), an answer that does not fit the questions (400; the token stays
// valid so the page can correct it).
func (x *interactions) answer(session, id, token string, ans agent.InteractionAnswer) (agent.InteractionAnswer, int, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	var found []string
	for k, p := range x.pending {
		if !p.done && p.info.ID == id && (session == "" || p.session == session) {
			found = append(found, k)
		}
	}
	switch len(found) {
	case 0:
		return ans, http.StatusNotFound, fmt.Errorf("no interaction %q is waiting (already answered, or its run ended)", id)
	case 1:
	default:
		return ans, http.StatusConflict, fmt.Errorf("interaction %q is waiting in several sessions: add \"session_id\"", id)
	}
	p := x.pending[found[0]]
	if token == "" || subtle.ConstantTimeCompare([]byte(token), []byte(p.token)) != 1 {
		return ans, http.StatusForbidden, fmt.Errorf("wrong or missing token for interaction %q: send the \"token\" of its interaction event", id)
	}
	if !x.now().Before(p.expires) {
		p.done = true
		p.answer <- expired(p.info)
		return ans, http.StatusGone, fmt.Errorf("interaction %q expired (no answer within %s); the model was told that no one answered", id, interactionTTL)
	}
	checked, err := agent.CheckAnswer(p.info, ans)
	if err != nil {
		return ans, http.StatusBadRequest, err
	}
	p.done = true // the token is used up
	p.answer <- checked
	return checked, http.StatusOK, nil
}

// list returns the waiting interactions (for a second tab or a reload).
func (x *interactions) list() []interactionView {
	x.mu.Lock()
	defer x.mu.Unlock()
	out := make([]interactionView, 0, len(x.pending))
	for _, p := range x.pending {
		if !p.done {
			out = append(out, p.view())
		}
	}
	return out
}

// view is p's interaction event with its token.
func (p *pendingInteraction) view() interactionView {
	info := p.info
	return interactionView{Event: agent.Event{Type: agent.EventInteraction, SessionID: p.session, Interaction: &info},
		Token: p.token, ExpiresAt: p.expires}
}

// webAsker answers a session's interactions with the answers posted to
// /api/interaction/{id}. The page gets the questions and the token in the
// SSE interaction event (registered by the chat's emit).
type webAsker struct {
	x       *interactions
	session string
}

// Ask waits for the page's answer, ctx's end (the chat request: a closed
// tab ends the wait) or the interaction's expiry (declined, with the
// reason). Errors: ctx's error, a token that could not be made.
func (w *webAsker) Ask(ctx context.Context, info agent.InteractionInfo) (agent.InteractionAnswer, error) {
	p, err := w.x.open(w.session, info)
	if err != nil {
		return agent.InteractionAnswer{}, err
	}
	defer w.x.remove(w.session, info.ID)
	// A real timer (the clock of answer may be a test's): both measure
	// interactionTTL from about the same moment, the event's.
	timer := time.NewTimer(interactionTTL)
	defer timer.Stop()
	select {
	case ans := <-p.answer:
		return ans, nil
	case <-timer.C:
		return expired(info), nil
	case <-ctx.Done():
		return agent.InteractionAnswer{ID: info.ID, Declined: true}, ctx.Err()
	}
}

// expired is the answer of an interaction no one answered in time.
func expired(info agent.InteractionInfo) agent.InteractionAnswer {
	return agent.InteractionAnswer{ID: info.ID, Declined: true, Reason: fmt.Sprintf("no one answered in the web UI within %s", interactionTTL)}
}

// interactionEvent is the SSE form of an interaction event: a request
// carries its token (registering the interaction first); an answer is
// sent as the engine made it.
func (s *Server) interactionEvent(session string, e agent.Event) any {
	if e.Interaction == nil || e.Interaction.Answer != nil {
		return e
	}
	p, err := s.interactions.open(session, *e.Interaction)
	if err != nil {
		return e // Ask fails the same way and cancels the call
	}
	v := p.view()
	v.Event = e
	return v
}

// interactionPost is the body of POST /api/interaction/{id}: the answer
// ({"answers": {...}} or {"declined": true}, "id" optional), the token of
// the interaction event, and the session when the id is ambiguous.
type interactionPost struct {
	agent.InteractionAnswer
	Token     string `json:"token"`
	SessionID string `json:"session_id,omitempty"`
}

// handleInteraction answers an interaction: POST /api/interaction/{id}.
func (s *Server) handleInteraction(w http.ResponseWriter, r *http.Request) {
	var req interactionPost
	if !s.decodeBody(w, r, &req) {
		return
	}
	id := r.PathValue("id")
	if req.ID != "" && req.ID != id {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("the body's id %q is not the URL's %q", req.ID, id))
		return
	}
	ans, status, err := s.interactions.answer(req.SessionID, id, req.Token, req.InteractionAnswer)
	if err != nil {
		if errors.Is(err, agent.ErrBadAnswer) {
			status = http.StatusBadRequest
		}
		writeError(w, status, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "answer": ans})
}

// handleInteractionsList lists the waiting interactions with their tokens
// (for a second tab or a reloaded page): GET /api/interactions.
func (s *Server) handleInteractionsList(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"interactions": s.interactions.list()})
}

var _ agent.Asker = (*webAsker)(nil)
