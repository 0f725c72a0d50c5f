package web

import (
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"sync"

	"github.com/zelvior/aidex/internal/session"
)

// The remote-control endpoints a script drives a session with: create
// (POST /api/v1/sessions), prompt (POST .../messages, the turn's events as
// SSE in the response), follow (GET .../events), approve (POST
// /api/v1/approvals/{id}), answer (POST /api/v1/interaction/{id}) and
// cancel (POST .../cancel).

// maxSubscriberBacklog is how many events a slow follower of GET
// .../events may fall behind before it is disconnected (it reconnects and
// reads the session to catch up); the run never waits for a follower.
const maxSubscriberBacklog = 1024

// followerEvent is one event for a follower: the SSE name and its payload.
type followerEvent struct {
	name string
	v    any
}

// subscribers are the followers of one session's events.
type subscribers struct {
	mu   sync.Mutex
	list map[chan followerEvent]struct{}
}

func (s *subscribers) add() chan followerEvent {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.list == nil {
		s.list = map[chan followerEvent]struct{}{}
	}
	ch := make(chan followerEvent, maxSubscriberBacklog)
	s.list[ch] = struct{}{}
	return ch
}

func (s *subscribers) remove(ch chan followerEvent) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.list[ch]; ok {
		delete(s.list, ch)
		close(ch)
	}
}

// publish sends an event to every follower; a follower whose backlog is
// full is dropped (its stream ends).
func (s *subscribers) publish(name string, v any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for ch := range s.list {
		select {
		case ch <- followerEvent{name: name, v: v}:
		default:
			delete(s.list, ch)
			close(ch)
		}
	}
}

// handleSessionCreate creates a new session in the server's workspace:
// POST /api/v1/sessions → 201 {"session_id": ID, "workspace": DIR}. The
// page's current session does not change.
func (s *Server) handleSessionCreate(w http.ResponseWriter, r *http.Request) {
	var req struct{}
	if !s.decodeBody(w, r, &req) {
		return
	}
	sess, err := s.svc.Pick(r.Context(), "", false)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "create a session: "+err.Error())
		return
	}
	s.mu.Lock()
	s.live[sess.ID] = &liveSession{sess: sess}
	if s.current == "" {
		s.current = sess.ID
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusCreated, map[string]any{"session_id": sess.ID, "workspace": sess.Workspace})
}

// MessageRequest is the body of POST /api/v1/sessions/{id}/messages: the
// user's message and files attached to it (as in ChatRequest).
type MessageRequest struct {
	Message     string       `json:"message"`
	Attachments []Attachment `json:"attachments,omitempty"`
}

// handleSessionMessage runs one turn of the session named in the path and
// streams its events as SSE (as POST /api/v1/chat).
func (s *Server) handleSessionMessage(w http.ResponseWriter, r *http.Request) {
	var req MessageRequest
	if !s.decodeBody(w, r, &req) {
		return
	}
	if !s.ownSession(w, r) {
		return
	}
	s.chat(w, r, ChatRequest{Message: req.Message, SessionID: r.PathValue("id"), Attachments: req.Attachments})
}

// ownSession checks the path's session: it must exist (404; 400 for an
// ambiguous prefix) and belong to this server's workspace (403: its files
// are outside this server's confinement). It writes the error response
// and returns false on failure.
func (s *Server) ownSession(w http.ResponseWriter, r *http.Request) bool {
	sum, err := s.svc.Store().Info(r.Context(), r.PathValue("id"))
	if err != nil {
		status := http.StatusInternalServerError
		if errors.Is(err, session.ErrNotFound) {
			status = http.StatusNotFound
		} else if errors.Is(err, session.ErrAmbiguous) {
			status = http.StatusBadRequest
		}
		writeError(w, status, err.Error())
		return false
	}
	if rt := s.Runtime(); filepath.Clean(sum.Workspace) != filepath.Clean(rt.Workspace) {
		writeError(w, http.StatusForbidden, fmt.Sprintf("session %s belongs to workspace %s: start aidex web there to drive it", sum.ID, sum.Workspace))
		return false
	}
	return true
}

// handleSessionCancel cancels the session's running turn: POST
// /api/v1/sessions/{id}/cancel → {"stopped": bool, "session_id": ID}
// (stopped false: nothing was running).
func (s *Server) handleSessionCancel(w http.ResponseWriter, r *http.Request) {
	var req struct{}
	if !s.decodeBody(w, r, &req) {
		return
	}
	id := r.PathValue("id")
	s.mu.Lock()
	ls := s.live[id]
	stopped := ls != nil && ls.running && ls.cancel != nil
	if stopped {
		ls.cancel()
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"stopped": stopped, "session_id": id})
}

// handleSessionEvents follows a session: GET
// /api/v1/sessions/{id}/events streams, as SSE, every event of the runs
// of that session from now on (whoever started them), until the client
// disconnects. 404: no such session.
func (s *Server) handleSessionEvents(w http.ResponseWriter, r *http.Request) {
	if !s.ownSession(w, r) {
		return
	}
	ls, err := s.liveFor(r.Context(), r.PathValue("id"))
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	ch := ls.subs.add()
	defer ls.subs.remove(ch)
	sw := newSSE(w)
	sw.event("subscribed", map[string]string{"session_id": ls.sess.ID})
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				return
			}
			sw.event(ev.name, ev.v)
		case <-r.Context().Done():
			return
		}
	}
}
