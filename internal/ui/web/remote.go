package web

import (
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"

	"github.com/zelvior/aidex/internal/session"
)

// The remote-control endpoints a script drives a session with: create
// (POST /api/v1/sessions), prompt (POST .../messages, the turn's events as
// SSE in the response), follow (GET .../events), approve (POST
// /api/v1/approvals/{id}), answer (POST /api/v1/interaction/{id}) and
// cancel (POST .../cancel).

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
	s.host.Adopt(sess)
	s.mu.Lock()
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
	stopped, id := s.stopSession(r.PathValue("id"))
	writeJSON(w, http.StatusOK, map[string]any{"stopped": stopped, "session_id": id})
}

// handleSessionEvents follows a session: GET
// /api/v1/sessions/{id}/events streams, as SSE, every event of the runs
// of that session from now on (whoever started them), until the client
// disconnects. Each event carries its sequence number as the SSE id; a
// client that reconnects with ?after=SEQ (or the Last-Event-ID header)
// first gets the events after SEQ the server still keeps (the last
// 1,024 of the session), and a "missed" event when some are no longer
// kept (reload the session). While someone follows a session, an
// approval or question of its run waits for an answer (see chat). 404:
// no such session; 400: a bad after.
func (s *Server) handleSessionEvents(w http.ResponseWriter, r *http.Request) {
	if !s.ownSession(w, r) {
		return
	}
	after, given, ok := afterSeq(r)
	if !ok {
		writeError(w, http.StatusBadRequest, "after must be the sequence number (SSE id) of an event: ?after=SEQ")
		return
	}
	hs, err := s.liveFor(r.Context(), r.PathValue("id"))
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	if !given {
		after = hs.LastSeq()
	}
	sub := hs.Subscribe(after)
	defer sub.Close()
	sw := newSSE(w)
	sw.event("subscribed", map[string]string{"session_id": hs.ID()})
	if sub.Missed {
		sw.event("missed", map[string]string{"session_id": hs.ID()})
	}
	for _, ev := range sub.Replay {
		sw.eventID(ev.Seq, ev.Name, ev.Data)
	}
	for {
		select {
		case ev, ok := <-sub.Events():
			if !ok {
				return
			}
			sw.eventID(ev.Seq, ev.Name, ev.Data)
		case <-r.Context().Done():
			return
		}
	}
}

// afterSeq reads the replay start of GET .../events: ?after=SEQ, else
// the Last-Event-ID header; given is false without either (from now
// on). ok is false for a value that is not a number.
func afterSeq(r *http.Request) (after uint64, given, ok bool) {
	v := r.URL.Query().Get("after")
	if v == "" {
		v = r.Header.Get("Last-Event-ID")
	}
	if v == "" {
		return 0, false, true
	}
	n, err := strconv.ParseUint(v, 10, 64)
	return n, true, err == nil
}
