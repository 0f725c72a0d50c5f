package web

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/zelvior/aidex/internal/agent"
)

// actionResume is the body of iptic-memex's POST /api/action/resume:
// StateToken names the waiting question (aidex's interaction token),
// Response answers it: a string, a boolean (yes/no) or a list of strings
// (labels of a multi-select, paths). SessionID narrows the search.
type actionResume struct {
	StateToken string          `json:"state_token"`
	Response   json.RawMessage `json:"response"`
	SessionID  string          `json:"session_id,omitempty"`
}

// handleActionResume is iptic-memex's POST /api/action/resume, a
// deprecated alias of POST /api/v1/interaction/{id}: the question whose
// token is state_token gets response as the answer to its (only)
// question. 404: no waiting question has that token; 400: a question of
// several parts (answer it at /api/v1/interaction/{id}) or an answer of
// another shape.
func (s *Server) handleActionResume(w http.ResponseWriter, r *http.Request) {
	var req actionResume
	if !s.decodeBody(w, r, &req) {
		return
	}
	var found *agent.InteractionInfo
	session := ""
	for _, v := range s.host.Interactions() {
		if req.StateToken != "" && v.Token == req.StateToken && v.Interaction != nil && (req.SessionID == "" || req.SessionID == v.SessionID) {
			found, session = v.Interaction, v.SessionID
		}
	}
	if found == nil {
		writeError(w, http.StatusNotFound, "no question waits with that state_token: GET /api/v1/interactions lists them with their tokens")
		return
	}
	if len(found.Questions) != 1 {
		writeError(w, http.StatusBadRequest, "this question has several parts: answer them at POST /api/v1/interaction/"+found.ID+" with {token, answers}")
		return
	}
	reply, ok := replyOf(req.Response)
	if !ok {
		writeError(w, http.StatusBadRequest, "response must be a string, a boolean or a list of strings")
		return
	}
	q := found.Questions[0].Question
	ans, err := s.host.AnswerInteraction(session, found.ID, req.StateToken, agent.InteractionAnswer{ID: found.ID, Answers: map[string]agent.Reply{q: reply}})
	if err != nil {
		writeError(w, hostStatus(err), err.Error())
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "answer": ans})
}

// replyOf reads iptic-memex's response value as an answer: a string, a
// boolean ("yes", "no") or a list of strings.
func replyOf(raw json.RawMessage) (agent.Reply, bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return agent.TextReply(s), true
	}
	var b bool
	if json.Unmarshal(raw, &b) == nil {
		return agent.TextReply(map[bool]string{true: "yes", false: "no"}[b]), true
	}
	var list []string
	if json.Unmarshal(raw, &list) == nil && list != nil {
		return agent.Reply{Values: list, List: true}, true
	}
	return agent.Reply{}, false
}

// handleActionStart is iptic-memex's POST /api/action/start, which aidex
// does not run: its user actions are slash commands of the chat. The
// answer says so and how (400).
func (s *Server) handleActionStart(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Action string `json:"action"`
	}
	if !s.decodeBody(w, r, &req) {
		return
	}
	name := strings.TrimSpace(req.Action)
	writeError(w, http.StatusBadRequest, "aidex runs user actions as slash commands of the chat: POST /api/v1/chat {\"message\": \"/model X\"} "+
		"(the web chat's commands: /help lists them); "+name+" is not an action here. Answers go to /api/action/resume or /api/v1/interaction/{id}, "+
		"a run stops at /api/action/cancel or /api/v1/chat/stop")
}
