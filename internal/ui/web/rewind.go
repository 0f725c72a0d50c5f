package web

import (
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/app/rewind"
	"github.com/zelvior/aidex/internal/session"
)

// CheckpointsResponse is the body of GET /api/sessions/{id}/checkpoints:
// the session's checkpoints, oldest first.
type CheckpointsResponse struct {
	SessionID   string           `json:"session_id"`
	Checkpoints []CheckpointView `json:"checkpoints"`
}

// CheckpointView is one checkpoint: rewind.Checkpoint and at_message, the
// index of the user message that is its prompt in the conversation as it
// is now (its "messages"), or -1 when the conversation no longer holds
// that prompt there (cut or compacted since, or the checkpoint is one a
// rewind took of the files): a conversation rewind to it would cut
// nothing.
type CheckpointView struct {
	rewind.Checkpoint
	AtMessage int `json:"at_message"`
}

// RewindRequest is the body of POST /api/sessions/{id}/rewind: the
// checkpoint's id and what to restore, "code", "conversation" or "both"
// ("" is both).
type RewindRequest struct {
	Checkpoint string `json:"checkpoint"`
	Scope      string `json:"scope,omitempty"`
}

// RewindResponse is what a rewind did: the files written back
// (restored), removed (deleted, new since the checkpoint) and left alone
// though they differ (kept: ignored or over the size cap), the
// conversation's length after it (messages), the prompt it was cut back
// to before ("" when the conversation was not cut), and undo, the
// checkpoint taken of the files just before the rewind (rewinding to it
// puts them back; "" when the scope had no code).
type RewindResponse struct {
	SessionID  string   `json:"session_id"`
	Checkpoint string   `json:"checkpoint"`
	Scope      string   `json:"scope"`
	Restored   []string `json:"restored"`
	Deleted    []string `json:"deleted"`
	Kept       []string `json:"kept"`
	Messages   int      `json:"messages"`
	Prompt     string   `json:"prompt,omitempty"`
	Undo       string   `json:"undo,omitempty"`
}

// parseScope reads RewindRequest.Scope (rewind.ParseScope). Errors
// name the accepted values.
func parseScope(s string) (rewind.Scope, error) {
	scope, err := rewind.ParseScope(s)
	if err != nil {
		return 0, fmt.Errorf(`scope must be "code", "conversation" or "both", not %q`, s)
	}
	return scope, nil
}

// workspaceSession resolves id (an unambiguous prefix works) to a session
// of this server's workspace. On failure it writes the error response
// (404 unknown, 400 ambiguous, 403 another workspace's session) and
// returns "".
func (s historyAPI) workspaceSession(w http.ResponseWriter, r *http.Request) string {
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
func (s historyAPI) handleCheckpoints(w http.ResponseWriter, r *http.Request) {
	id := s.historyAPI.workspaceSession(w, r)
	if id == "" {
		return
	}
	var live *app.Session
	if hs := s.host.Get(id); hs != nil {
		live = hs.Live()
	}
	var cps []rewind.Checkpoint
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
	v, err := s.historyAPI.sessionView(r.Context(), id)
	if err != nil {
		writeError(w, storeStatus(err), err.Error())
		return
	}
	out := CheckpointsResponse{SessionID: id, Checkpoints: make([]CheckpointView, len(cps))}
	for i, cp := range cps {
		out.Checkpoints[i] = CheckpointView{Checkpoint: cp, AtMessage: cp.AtMessage(v.Messages)}
	}
	writeJSON(w, http.StatusOK, out)
}

// handleRewind restores a checkpoint of a session: POST
// /api/sessions/{id}/rewind {"checkpoint": "ID", "scope": "both"}. It
// answers 409 while the session has a run going, 404 for an unknown
// checkpoint.
func (s historyAPI) handleRewind(w http.ResponseWriter, r *http.Request) {
	var req RewindRequest
	if !s.decodeBody(w, r, &req) {
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
	id := s.historyAPI.workspaceSession(w, r)
	if id == "" {
		return
	}
	ls, run, status, err := s.startRun(r.Context(), id, app.RunOptions{})
	if err != nil {
		writeError(w, status, err.Error())
		return
	}
	defer run.End()
	before := ls.live.Info().Messages
	res, err := ls.live.Rewind(r.Context(), req.Checkpoint, scope)
	if err != nil {
		writeError(w, rewindStatus(err), "rewind to "+req.Checkpoint+": "+err.Error())
		return
	}
	ls.hs.SetStored(ls.live.Info()) // the conversation as the rewind left it
	out := RewindResponse{SessionID: id, Checkpoint: req.Checkpoint, Scope: scope.String(), Restored: nonNil(res.Restored),
		Deleted: nonNil(res.Deleted), Kept: nonNil(res.Kept), Messages: res.Messages, Undo: res.Undo}
	_, out.Prompt = rewind.CutPrompt(before, res, scope)
	writeJSON(w, http.StatusOK, out)
}

// rewindStatus is the HTTP status of a rewind's error.
func rewindStatus(err error) int {
	switch {
	case errors.Is(err, rewind.ErrUnknownCheckpoint):
		return http.StatusNotFound
	case errors.Is(err, agent.ErrBusy), errors.Is(err, app.ErrSessionInUse):
		return http.StatusConflict
	}
	return storeStatus(err)
}

// nonNil is s, or an empty list for nil (JSON [] rather than null).
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
