package web

import (
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/session"
)

// CheckpointsResponse is the body of GET /api/sessions/{id}/checkpoints:
// the session's checkpoints, oldest first. A checkpoint's "messages" is
// the conversation's length before its prompt, so the user message at
// that index is the prompt it rewinds to before.
type CheckpointsResponse struct {
	SessionID   string           `json:"session_id"`
	Checkpoints []app.Checkpoint `json:"checkpoints"`
}

// RewindRequest is the body of POST /api/sessions/{id}/rewind: the
// checkpoint's id and what to restore, "code", "conversation" or "both"
// ("" is both).
type RewindRequest struct {
	Checkpoint string `json:"checkpoint"`
	Scope      string `json:"scope,omitempty"`
}

// RewindResponse is what a rewind did: the files written back
// (restored) and removed (deleted, new since the checkpoint), the
// conversation's length after it (messages), the prompt it was cut back
// to before ("" when unknown), and undo, the checkpoint taken just before
// the rewind (rewinding to it undoes this one; "" when nothing was
// snapshotted).
type RewindResponse struct {
	SessionID  string   `json:"session_id"`
	Checkpoint string   `json:"checkpoint"`
	Scope      string   `json:"scope"`
	Restored   []string `json:"restored"`
	Deleted    []string `json:"deleted"`
	Messages   int      `json:"messages"`
	Prompt     string   `json:"prompt,omitempty"`
	Undo       string   `json:"undo,omitempty"`
}

// parseScope reads RewindRequest.Scope. Errors name the accepted values.
func parseScope(s string) (app.RewindScope, error) {
	switch strings.TrimSpace(s) {
	case "", "both":
		return app.RewindBoth, nil
	case "code":
		return app.RewindCode, nil
	case "conversation":
		return app.RewindConversation, nil
	}
	return 0, fmt.Errorf(`scope must be "code", "conversation" or "both", not %q`, s)
}

// workspaceSession resolves id (an unambiguous prefix works) to a session
// of this server's workspace. On failure it writes the error response
// (404 unknown, 400 ambiguous, 403 another workspace's session) and
// returns "".
func (s *Server) workspaceSession(w http.ResponseWriter, r *http.Request) string {
	sum, err := s.svc.Store().Info(r.Context(), r.PathValue("id"))
	if err != nil {
		writeError(w, storeStatus(err), err.Error())
		return ""
	}
	if rt := s.Runtime(); filepath.Clean(sum.Workspace) != filepath.Clean(rt.Workspace) {
		writeError(w, http.StatusForbidden, fmt.Sprintf("session %s belongs to workspace %s: start aidex web there to rewind it", sum.ID, sum.Workspace))
		return ""
	}
	return sum.ID
}

// storeStatus is the HTTP status of a session store error.
func storeStatus(err error) int {
	switch {
	case errors.Is(err, session.ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, session.ErrAmbiguous):
		return http.StatusBadRequest
	}
	return http.StatusInternalServerError
}

// handleCheckpoints lists a session's checkpoints: GET
// /api/sessions/{id}/checkpoints.
func (s *Server) handleCheckpoints(w http.ResponseWriter, r *http.Request) {
	id := s.workspaceSession(w, r)
	if id == "" {
		return
	}
	s.mu.Lock()
	var live *app.Session
	if ls := s.live[id]; ls != nil {
		live = ls.live
	}
	s.mu.Unlock()
	var cps []app.Checkpoint
	var err error
	if live != nil {
		cps, err = live.Checkpoints(r.Context())
	} else {
		cps, err = s.svc.Checkpoints(r.Context(), id)
	}
	if err != nil {
		writeError(w, storeStatus(err), "listing the checkpoints: "+err.Error())
		return
	}
	if cps == nil {
		cps = []app.Checkpoint{}
	}
	writeJSON(w, http.StatusOK, CheckpointsResponse{SessionID: id, Checkpoints: cps})
}

// handleRewind restores a checkpoint of a session: POST
// /api/sessions/{id}/rewind {"checkpoint": "ID", "scope": "both"}. It
// answers 409 while the session has a run going, 404 for an unknown
// checkpoint.
func (s *Server) handleRewind(w http.ResponseWriter, r *http.Request) {
	var req RewindRequest
	if !decodeBody(w, r, &req) {
		return
	}
	scope, err := parseScope(req.Scope)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if strings.TrimSpace(req.Checkpoint) == "" {
		writeError(w, http.StatusBadRequest, `checkpoint is empty: send {"checkpoint": "ID", "scope": "both"} (GET /api/sessions/{id}/checkpoints lists them)`)
		return
	}
	id := s.workspaceSession(w, r)
	if id == "" {
		return
	}
	ls, release, status, err := s.startRun(r.Context(), id)
	if err != nil {
		writeError(w, status, err.Error())
		return
	}
	defer release()
	prompt := ""
	if cps, err := ls.live.Checkpoints(r.Context()); err == nil {
		for _, cp := range cps {
			if cp.ID == req.Checkpoint {
				prompt = cp.Prompt
			}
		}
	}
	res, err := ls.live.Rewind(r.Context(), req.Checkpoint, scope)
	if err != nil {
		writeError(w, rewindStatus(err), "rewind to "+req.Checkpoint+": "+err.Error())
		return
	}
	s.mu.Lock()
	ls.sess = ls.live.Info() // the conversation as the rewind left it
	s.mu.Unlock()
	out := RewindResponse{SessionID: id, Checkpoint: req.Checkpoint, Scope: scopeName(scope), Restored: res.Restored,
		Deleted: res.Deleted, Messages: res.Messages, Prompt: prompt, Undo: res.Undo}
	if out.Restored == nil {
		out.Restored = []string{}
	}
	if out.Deleted == nil {
		out.Deleted = []string{}
	}
	writeJSON(w, http.StatusOK, out)
}

// rewindStatus is the HTTP status of a rewind's error.
func rewindStatus(err error) int {
	switch {
	case errors.Is(err, app.ErrUnknownCheckpoint):
		return http.StatusNotFound
	case errors.Is(err, agent.ErrBusy), errors.Is(err, app.ErrSessionInUse):
		return http.StatusConflict
	}
	return storeStatus(err)
}

// scopeName is the API's name of a scope.
func scopeName(scope app.RewindScope) string {
	switch scope {
	case app.RewindCode:
		return "code"
	case app.RewindConversation:
		return "conversation"
	}
	return "both"
}
