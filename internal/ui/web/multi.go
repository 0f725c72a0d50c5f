package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/app/multi"
)

// MultiState is the body of GET /api/v1/multi and of its POST's answer: a
// session's conversation mode and active models, and the modes there are.
type MultiState struct {
	SessionID string              `json:"session_id"`
	Mode      multi.Mode          `json:"mode"`
	Models    []multi.ActiveModel `json:"models"`
	Modes     []multi.Mode        `json:"modes"`
	Current   string              `json:"current"`
}

// MultiRequest is the body of POST /api/v1/multi: the session ("" for
// the page's current one), the active models (each "PROVIDER/MODEL
// [effort=E] [budget=N]"; omitted: unchanged; empty: none) and the mode
// ("": unchanged).
type MultiRequest struct {
	SessionID string    `json:"session_id,omitempty"`
	Models    *[]string `json:"models,omitempty"`
	Mode      string    `json:"mode,omitempty"`
}

// ChooseEvent is the SSE event "choose" of a parallel turn: the answers
// (in list order, the successful ones) of which the page keeps one or all
// with POST /api/v1/choices/{id}.
type ChooseEvent struct {
	ID        string            `json:"id"`
	SessionID string            `json:"session_id"`
	Answers   []multi.Candidate `json:"answers"`
}

// choice is a parallel turn's question waiting for the page.
type choice struct {
	ev    ChooseEvent
	reply chan []int
}

// choices are the questions waiting, by id.
type choices struct {
	mu      sync.Mutex
	next    int
	waiting map[string]*choice
}

func (c *choices) open(session string, answers []multi.Candidate) *choice {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.waiting == nil {
		c.waiting = map[string]*choice{}
	}
	c.next++
	ch := &choice{ev: ChooseEvent{ID: "ch_" + strconv.Itoa(c.next), SessionID: session, Answers: answers}, reply: make(chan []int, 1)}
	c.waiting[ch.ev.ID] = ch
	return ch
}

func (c *choices) remove(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.waiting, id)
}

// answer replies to question id with keep. Errors: no such question
// (404), an index out of range (400).
func (c *choices) answer(id string, keep []int) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := c.waiting[id]
	if ch == nil {
		return http.StatusNotFound, fmt.Errorf("no parallel answers wait for a choice with id %q (answered already, or the run ended)", id)
	}
	if err := multi.CheckKeep(keep, len(ch.ev.Answers)); err != nil {
		return http.StatusBadRequest, err
	}
	delete(c.waiting, id)
	ch.reply <- keep
	return 0, nil
}

// webChooser implements multi.Chooser for the web UI: the question goes to
// the run's stream (and the session's subscribers) as a "choose" event;
// the page answers with POST /api/v1/choices/{id}.
type webChooser struct {
	s  *Server
	hs *app.HostSession
}

// Choose waits for the page's answer or ctx's end (a closed tab, a stop).
// Errors: ctx's.
func (c *webChooser) Choose(ctx context.Context, answers []multi.Candidate) ([]int, error) {
	ch := c.s.answersAPI.choices.open(c.hs.ID(), answers)
	defer c.s.answersAPI.choices.remove(ch.ev.ID)
	c.hs.Publish("choose", ch.ev)
	select {
	case keep := <-ch.reply:
		return keep, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// handleChoice keeps parallel answers: POST /api/v1/choices/{id}
// {"keep": [0]} (0-based indexes into the event's answers) or
// {"all": true}.
func (s *answersAPI) handleChoice(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Keep []int `json:"keep"`
		All  bool  `json:"all"`
	}
	if !s.decodeBody(w, r, &req) {
		return
	}
	id := r.PathValue("id")
	if req.All {
		s.choices.mu.Lock()
		if ch := s.choices.waiting[id]; ch != nil {
			req.Keep = multi.KeepAll(len(ch.ev.Answers))
		}
		s.choices.mu.Unlock()
	}
	if len(req.Keep) == 0 && !req.All {
		writeError(w, http.StatusBadRequest, `say which answers to keep: {"keep": [INDEX]} or {"all": true}`)
		return
	}
	if status, err := s.choices.answer(id, req.Keep); err != nil {
		writeError(w, status, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "keep": req.Keep})
}

// handleMultiGet shows a session's conversation mode and active models:
// GET /api/v1/multi[?session_id=ID].
func (s *answersAPI) handleMultiGet(w http.ResponseWriter, r *http.Request) {
	ls, status, err := s.answersAPI.multiSession(r.Context(), r.URL.Query().Get("session_id"))
	if err != nil {
		writeError(w, status, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, s.answersAPI.multiState(ls))
}

// handleMultiPost sets a session's active models and mode: POST
// /api/v1/multi (MultiRequest). Errors: 400 for a bad model or mode, 409
// while the session runs.
func (s *answersAPI) handleMultiPost(w http.ResponseWriter, r *http.Request) {
	var req MultiRequest
	if !s.decodeBody(w, r, &req) {
		return
	}
	ls, status, err := s.answersAPI.multiSession(r.Context(), req.SessionID)
	if err != nil {
		writeError(w, status, err.Error())
		return
	}
	if err := applyMulti(r.Context(), ls.live, req); err != nil {
		status := http.StatusBadRequest
		if errors.Is(err, agent.ErrBusy) {
			status = http.StatusConflict
		}
		writeError(w, status, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, s.answersAPI.multiState(ls))
}

// applyMulti sets the models, then the mode, of req on live; a bad mode
// changes nothing.
func applyMulti(ctx context.Context, live *app.Session, req MultiRequest) error {
	var mode multi.Mode
	if req.Mode != "" {
		var err error
		if mode, err = multi.ParseMode(req.Mode); err != nil {
			return err
		}
	}
	if req.Models != nil {
		if err := live.SetModels(ctx, *req.Models); err != nil {
			return err
		}
	}
	if mode == "" {
		return nil
	}
	return live.SetMultiMode(mode)
}

// multiSession returns the live session id ("" = current) with its
// app.Session built. Errors: as liveFor's and prepare's, with a status.
func (s *answersAPI) multiSession(ctx context.Context, id string) (*liveSession, int, error) {
	hs, err := s.liveFor(ctx, id)
	if err != nil {
		return nil, http.StatusNotFound, err
	}
	if hs.Live() == nil {
		if _, err := hs.Prepare(ctx); err != nil {
			return nil, http.StatusBadRequest, err
		}
	}
	return view(hs), 0, nil
}

func (s *answersAPI) multiState(ls *liveSession) MultiState {
	m := ls.live.Multi()
	rt := s.Runtime()
	return MultiState{SessionID: ls.sess.ID, Mode: m.Mode, Models: m.Models, Modes: multi.Modes(),
		Current: rt.Provider.Name + "/" + rt.Model}
}
