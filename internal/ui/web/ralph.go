package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/ralph"
)

// ralphAPI serves the Ralph endpoints (/ralph/...): the workspace's task
// list, the loop the server runs and its event stream.
type ralphAPI struct {
	*Server
	// ralphHub fans the run's events out to the streams.
	ralphHub ralphHub
}

// The Ralph endpoints (the task loop of the workspace, see package ralph):
//
//	GET  /api/ralph          → RalphView (tasks, counts, run state)
//	GET  /api/ralph/events   → SSE of the run this server is doing (404 when none)
//	POST /api/ralph/add      {title, description?, acceptance_criteria?, priority?, task_type?, depends_on?, id?} → {task}
//	POST /api/ralph/clear    → {cleared}; 409 while a run is going
//	POST /api/ralph/reset    {id} → {task}
//	POST /api/ralph/stop     {now?} → {stopped, running}
//	POST /api/ralph/pause    → {paused}; 409 with no run
//	POST /api/ralph/resume   → {paused}; 409 with no run
//	POST /api/ralph/run      {max_iterations?, task_ids?} → SSE; 409 when a run is going
//
// A run started from the page belongs to the server, not to the tab: it is
// an unattended loop, so closing the tab (or its stream) does not stop it;
// POST /api/ralph/stop does (after the current task; {"now": true}
// cancels the current task, which goes back to pending), and so does
// shutting the server down. Any tab can follow it with
// GET /api/ralph/events. Ralph runs use the web confinement: confined to
// the workspace, shell tools only with web_allow_shell_tools, no
// approvals (what the permission policy does not allow is denied).

// Limits of the Ralph event streams.
const (
	// ralphQueueMax is how many events a slow stream may fall behind
	// before it is ended with an error (the run goes on).
	ralphQueueMax = 20000
	// ralphBacklogMax caps the events kept for the current task, replayed
	// to a stream that attaches mid-task.
	ralphBacklogMax = 5000
	// ralphCloseWait bounds how long Close waits for a cancelled run to
	// record its task.
	ralphCloseWait = 10 * time.Second
)

// RalphView is the body of GET /api/ralph: the task list, the run state
// (running, paused, stop_requested, current, pid, counts) and, for the
// page, Live (this server runs the loop, so GET /api/ralph/events streams
// it), PermissionMode, VerifyCommand and Notices (what the user should
// know before an unattended run).
type RalphView struct {
	ralph.Snapshot
	Live           bool     `json:"live"`
	PermissionMode string   `json:"permission_mode"`
	VerifyCommand  string   `json:"verify_command,omitempty"`
	Notices        []string `json:"notices,omitempty"`
}

// RalphAddRequest is the body of POST /api/ralph/add. Priority is P0-P3
// (default P2), TaskType story or task (default task), DependsOn ids of
// tasks already in the list; ID is generated (US-001, T-001) when empty.
type RalphAddRequest struct {
	ID                 string         `json:"id,omitempty"`
	Title              string         `json:"title"`
	Description        string         `json:"description,omitempty"`
	AcceptanceCriteria []string       `json:"acceptance_criteria,omitempty"`
	Priority           ralph.Priority `json:"priority,omitempty"`
	TaskType           string         `json:"task_type,omitempty"`
	DependsOn          []string       `json:"depends_on,omitempty"`
}

// RalphRunRequest is the body of POST /api/ralph/run: MaxIterations bounds
// the tasks run (0: no bound), TaskIDs limits the run to these tasks.
type RalphRunRequest struct {
	MaxIterations int      `json:"max_iterations,omitempty"`
	TaskIDs       []string `json:"task_ids,omitempty"`
}

// ralphHub fans the events of the server's Ralph run out to the streams
// following it. The runner never waits for a stream: each has its own
// queue.
type ralphHub struct {
	mu      sync.Mutex
	running bool
	cancel  context.CancelFunc
	done    chan struct{} // closed when the run (and its recording) ended
	subs    map[*ralphSub]struct{}
	backlog []ralph.Event // the current task's events, for late streams
}

// ralphSub is one stream's queue.
type ralphSub struct {
	mu     sync.Mutex
	queue  []ralph.Event
	closed bool
	lagged bool
	wake   chan struct{}
}

func newRalphSub() *ralphSub { return &ralphSub{wake: make(chan struct{}, 1)} }

func (q *ralphSub) push(ev ralph.Event) {
	q.mu.Lock()
	if !q.closed {
		if len(q.queue) >= ralphQueueMax {
			q.lagged, q.closed = true, true
		} else {
			q.queue = append(q.queue, ev)
		}
	}
	q.mu.Unlock()
	q.poke()
}

func (q *ralphSub) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.poke()
}

func (q *ralphSub) poke() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// take returns the queued events and whether the stream is over (closed
// and drained) and fell behind.
func (q *ralphSub) take() (evs []ralph.Event, over, lagged bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	evs, q.queue = q.queue, nil
	return evs, q.closed && len(evs) == 0, q.lagged
}

// emit is the run's event callback.
func (h *ralphHub) emit(ev ralph.Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if ev.Type == ralph.EventTaskStart {
		h.backlog = h.backlog[:0]
	}
	if len(h.backlog) < ralphBacklogMax {
		h.backlog = append(h.backlog, ev)
	}
	for q := range h.subs {
		q.push(ev)
	}
}

// subscribe adds a stream; with replay it first gets the current task's
// events. It returns nil when no run is going.
func (h *ralphHub) subscribe(replay bool) *ralphSub {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.running {
		return nil
	}
	q := newRalphSub()
	if replay {
		q.queue = slices.Clone(h.backlog)
	}
	h.subs[q] = struct{}{}
	return q
}

func (h *ralphHub) unsubscribe(q *ralphSub) {
	h.mu.Lock()
	delete(h.subs, q)
	h.mu.Unlock()
}

// end closes every stream after the run's last event.
func (h *ralphHub) end() {
	h.mu.Lock()
	for q := range h.subs {
		q.close()
	}
	h.subs, h.backlog = map[*ralphSub]struct{}{}, nil
	h.running, h.cancel = false, nil
	done := h.done
	h.mu.Unlock()
	close(done)
}

// handleRalphList answers GET /api/ralph.
func (s *ralphAPI) handleRalphList(w http.ResponseWriter, r *http.Request) {
	snap, err := s.ralph.Snapshot()
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	rt := s.Runtime()
	s.ralphHub.mu.Lock()
	live := s.ralphHub.running
	s.ralphHub.mu.Unlock()
	v := RalphView{Snapshot: snap, Live: live, PermissionMode: rt.Config.PermissionMode, VerifyCommand: rt.Config.VerifyCommand}
	switch rt.Config.PermissionMode {
	case "ask", "plan", "":
		v.Notices = append(v.Notices, fmt.Sprintf("Permission mode %q: no one approves during a Ralph run, so file changes and commands that need approval are denied. Set permission_mode = \"auto-edit\" (or allow rules) in the config file for unattended work.", rt.Config.PermissionMode))
	}
	if !snap.Running {
		for _, t := range snap.Tasks {
			if t.Status == ralph.StatusInProgress {
				v.Notices = append(v.Notices, t.ID+" is in_progress from a run that did not finish; it is left alone until you reset it.")
			}
		}
	}
	if snap.Running && !live {
		v.Notices = append(v.Notices, fmt.Sprintf("A Ralph run of another process (pid %d) is working in this workspace; its live output is shown there.", snap.PID))
	}
	writeJSON(w, http.StatusOK, v)
}

// handleRalphAdd answers POST /api/ralph/add.
func (s *ralphAPI) handleRalphAdd(w http.ResponseWriter, r *http.Request) {
	var req RalphAddRequest
	if !s.decodeBody(w, r, &req) {
		return
	}
	t, err := s.ralphAPI.checkRalphTask(req)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	added, err := s.ralph.Add(r.Context(), t)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"task": added[0]})
}

// checkRalphTask turns an add request into a task, refusing what the
// task list would refuse (so those answer 400, not 500).
func (s *ralphAPI) checkRalphTask(req RalphAddRequest) (ralph.Task, error) {
	t := ralph.Task{ID: strings.TrimSpace(req.ID), Title: strings.TrimSpace(req.Title), Description: strings.TrimSpace(req.Description),
		AcceptanceCriteria: req.AcceptanceCriteria, DependsOn: req.DependsOn}
	if t.Title == "" {
		return t, errors.New(`the task has no title: send {"title": "..."}`)
	}
	var err error
	if t.Priority, err = ralph.ParsePriority(string(req.Priority)); err != nil {
		return t, err
	}
	if t.Type, err = ralph.ParseTaskType(req.TaskType); err != nil {
		return t, err
	}
	snap, err := s.ralph.Snapshot()
	if err != nil {
		return t, err
	}
	have := map[string]bool{}
	for _, x := range snap.Tasks {
		have[strings.ToUpper(x.ID)] = true
	}
	if t.ID != "" && have[strings.ToUpper(t.ID)] {
		return t, fmt.Errorf("task id %s is already in use: pick another id or leave it out to get one", t.ID)
	}
	for _, d := range t.DependsOn {
		if d = strings.TrimSpace(d); d != "" && !have[strings.ToUpper(d)] {
			return t, fmt.Errorf("depends_on names %s, which is not in the task list: add it first", d)
		}
	}
	return t, nil
}

// handleRalphClear answers POST /api/ralph/clear.
func (s *ralphAPI) handleRalphClear(w http.ResponseWriter, r *http.Request) {
	var req struct{}
	if !s.decodeBody(w, r, &req) {
		return
	}
	n, err := s.ralph.Clear(r.Context())
	if err != nil {
		writeError(w, ralphStatus(err), err.Error())
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"cleared": n})
}

// handleRalphReset answers POST /api/ralph/reset {"id": ID}.
func (s *ralphAPI) handleRalphReset(w http.ResponseWriter, r *http.Request) {
	var req struct {
		ID string `json:"id"`
	}
	if !s.decodeBody(w, r, &req) {
		return
	}
	if strings.TrimSpace(req.ID) == "" {
		writeError(w, http.StatusBadRequest, `no task named: send {"id": "T-001"}`)
		return
	}
	snap, err := s.ralph.Snapshot()
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	i := slices.IndexFunc(snap.Tasks, func(t ralph.Task) bool { return strings.EqualFold(t.ID, strings.TrimSpace(req.ID)) })
	switch {
	case i < 0:
		writeError(w, http.StatusNotFound, fmt.Sprintf("no task %s in the list", req.ID))
		return
	case snap.Running && snap.Tasks[i].Status == ralph.StatusInProgress:
		writeError(w, http.StatusConflict, fmt.Sprintf("task %s is being worked on by the running loop: stop the run first", snap.Tasks[i].ID))
		return
	}
	t, err := s.ralph.Reset(r.Context(), snap.Tasks[i].ID)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"task": t})
}

// handleRalphStop answers POST /api/ralph/stop {"now": false}: the loop
// ends after the current task; with now, this server's run is cancelled
// at once (the current task goes back to pending). With no run going it
// answers {"stopped": false}.
func (s *ralphAPI) handleRalphStop(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Now bool `json:"now"`
	}
	if !s.decodeBody(w, r, &req) {
		return
	}
	err := s.ralph.Stop()
	if err != nil && !errors.Is(err, ralph.ErrNotRunning) {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	stopped := err == nil
	cancelled := false
	if req.Now {
		s.ralphHub.mu.Lock()
		if s.ralphHub.cancel != nil {
			s.ralphHub.cancel()
			cancelled, stopped = true, true
		}
		s.ralphHub.mu.Unlock()
	}
	writeJSON(w, http.StatusOK, map[string]any{"stopped": stopped, "cancelled": cancelled})
}

// handleRalphPause answers POST /api/ralph/pause and /resume.
func (s *ralphAPI) handleRalphPause(pause bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var req struct{}
		if !s.decodeBody(w, r, &req) {
			return
		}
		var err error
		if pause {
			err = s.ralph.Pause()
		} else {
			err = s.ralph.Resume()
		}
		if err != nil {
			writeError(w, ralphStatus(err), err.Error())
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"paused": pause})
	}
}

// ralphStatus is the HTTP status of a run-control error.
func ralphStatus(err error) int {
	if errors.Is(err, ralph.ErrRunning) || errors.Is(err, ralph.ErrNotRunning) {
		return http.StatusConflict
	}
	return http.StatusInternalServerError
}

// handleRalphRun answers POST /api/ralph/run: it starts the loop on the
// server's context (409 when a run is going, before the stream opens) and
// streams its events as SSE until the run ends or the client goes away
// (the run goes on).
func (s *ralphAPI) handleRalphRun(w http.ResponseWriter, r *http.Request) {
	var req RalphRunRequest
	if !s.decodeBody(w, r, &req) {
		return
	}
	if req.MaxIterations < 0 {
		writeError(w, http.StatusBadRequest, "max_iterations must be 0 (no limit) or more")
		return
	}
	q, err := s.ralphAPI.startRalph(ralph.RunOptions{MaxIterations: req.MaxIterations, TaskIDs: req.TaskIDs, Verify: s.Runtime().Config.VerifyCommand})
	if err != nil {
		writeError(w, ralphStatus(err), err.Error())
		return
	}
	s.ralphAPI.streamRalph(w, r, q)
}

// handleRalphEvents answers GET /api/ralph/events: the running loop's
// events from the start of its current task on.
func (s *ralphAPI) handleRalphEvents(w http.ResponseWriter, r *http.Request) {
	q := s.ralphHub.subscribe(true)
	if q == nil {
		writeError(w, http.StatusNotFound, "no Ralph run of this server is going: start one with POST /api/v1/ralph/run")
		return
	}
	s.ralphAPI.streamRalph(w, r, q)
}

// startRalph starts the loop and returns the first stream's queue
// (subscribed before the run can emit anything).
func (s *ralphAPI) startRalph(o ralph.RunOptions) (*ralphSub, error) {
	h := &s.ralphHub
	h.mu.Lock()
	if h.running {
		h.mu.Unlock()
		return nil, ralph.ErrRunning
	}
	ctx, cancel := context.WithCancel(s.bg)
	q := newRalphSub()
	h.running, h.cancel, h.done = true, cancel, make(chan struct{})
	h.subs, h.backlog = map[*ralphSub]struct{}{q: {}}, nil
	h.mu.Unlock()
	wait, err := s.ralph.Start(ctx, o, h.emit)
	if err != nil {
		cancel()
		h.end()
		return nil, err
	}
	go func() {
		defer cancel()
		if _, err := wait(); err != nil {
			// The loop failed outside a task (the task list could not be
			// read or written): tell the streams, then end them.
			h.emit(ralph.Event{Type: ralph.EventType(agent.EventError), Agent: &agent.Event{Type: agent.EventError,
				Error: &agent.ErrorInfo{Message: "the Ralph run stopped: " + err.Error(), Kind: "ralph", Fatal: true}}})
		}
		h.end()
	}()
	return q, nil
}

// streamRalph writes q's events as SSE (event name: the event's type,
// data: the ralph.Event as JSON) until the run ends or the client leaves.
func (s *ralphAPI) streamRalph(w http.ResponseWriter, r *http.Request, q *ralphSub) {
	defer s.ralphHub.unsubscribe(q)
	sw := newSSE(w)
	for {
		evs, over, lagged := q.take()
		for _, ev := range evs {
			sw.event(string(ev.Type), ev)
		}
		if over {
			if lagged {
				sw.event(string(agent.EventError), ralph.Event{Type: ralph.EventType(agent.EventError), Agent: &agent.Event{Type: agent.EventError,
					Error: &agent.ErrorInfo{Message: "this event stream fell behind and was ended; the run goes on: reload the Ralph panel to follow it", Kind: "stream"}}})
			}
			return
		}
		if len(evs) > 0 {
			// Take again before waiting: the close may have come with
			// these events, its wake-up already spent on them.
			continue
		}
		select {
		case <-r.Context().Done():
			return
		case <-q.wake:
		}
	}
}

// closeRalph cancels the server's run and waits (bounded) until it has
// recorded its current task.
func (s *ralphAPI) closeRalph() {
	h := &s.ralphHub
	h.mu.Lock()
	cancel, done := h.cancel, h.done
	running := h.running
	h.mu.Unlock()
	if !running {
		return
	}
	if cancel != nil {
		cancel()
	}
	select {
	case <-done:
	case <-time.After(ralphCloseWait):
	}
}
