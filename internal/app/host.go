package app

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/zelvior/aidex/internal/agent"
)

// Host owns the live sessions of a process for the front ends that serve
// several clients (the web UI, ACP): it starts and cancels their runs,
// keeps a bounded log of each session's events for subscribers that
// reconnect (replay), holds the approvals and ask_user questions that wait
// for an answer (any front end holding the session may answer them, and
// they outlive the connection that saw them first), and closes the live
// sessions (their background processes, queued context) when it closes.
//
// A front end adapts its protocol to a Host and keeps no session state of
// its own; see docs/architecture.md. A Host is safe for concurrent use.
type Host struct {
	svc  *Service
	opts HostOptions

	ctx    context.Context // the host's lifetime: Close cancels it
	cancel context.CancelFunc

	mu       sync.Mutex
	sessions map[string]*HostSession // live sessions, by stored session id
	runs     int                     // runs in progress
	running  sync.WaitGroup          // one count per run, for Close
}

// defaultReplay is how many events a Host keeps per session for
// subscribers that reconnect (HostOptions.Replay).
const defaultReplay = 1024

// HostOptions configure a Host.
//
// MaxRuns returns the cap on runs in progress over all sessions, read at
// each start (nil or ≤ 0: no cap); beyond it HostSession.Start returns
// ErrTooManyRuns. Replay is how many events
// each session keeps for replay, and how far a subscriber may fall behind
// before it is dropped (0: defaultReplay). Session returns the front end's
// options for a session's live state, built on its first run or Prepare
// (nil: none); an Approver or Asker left nil there is the Host's own,
// answered with Host.Approve and Host.AnswerInteraction. Adapter returns
// the front end's own state for a new HostSession (HostSession.Adapter;
// nil: none). Now is the clock of question expiry (nil: time.Now).
type HostOptions struct {
	MaxRuns func() int
	Replay  int
	Session func(hs *HostSession) SessionOptions
	Adapter func(id string) any
	Now     func() time.Time
}

// Errors of HostSession.Start.
var (
	// ErrRunning: the session already has a run in progress.
	ErrRunning = errors.New("the session already has a run in progress")
	// ErrTooManyRuns: HostOptions.MaxRuns runs are in progress.
	ErrTooManyRuns = errors.New("too many runs at once")
	// errHostClosed: the Host was closed.
	errHostClosed = errors.New("the host is closed")
)

// NewHost returns a Host of svc's sessions. The Host does not close svc.
func NewHost(svc *Service, o HostOptions) *Host {
	if o.Replay <= 0 {
		o.Replay = defaultReplay
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	h := &Host{svc: svc, opts: o, sessions: map[string]*HostSession{}}
	h.ctx, h.cancel = context.WithCancel(context.Background())
	return h
}

// Service returns the service whose sessions the Host owns.
func (h *Host) Service() *Service { return h.svc }

// Get returns the live session of stored session id, nil when it is not
// live in this Host.
func (h *Host) Get(id string) *HostSession {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.sessions[id]
}

// Open returns the live session of stored session id, loading it from the
// store when it is not live yet; id "" creates a new stored session
// (Service.Pick). Errors: the store's (session.ErrNotFound for an unknown
// id).
func (h *Host) Open(ctx context.Context, id string) (*HostSession, error) {
	if hs := h.Get(id); id != "" && hs != nil {
		return hs, nil
	}
	var sess *agent.Conversation
	var err error
	if id == "" {
		sess, err = h.svc.Pick(ctx, "", false)
	} else {
		sess, err = h.svc.Store().Load(ctx, id)
	}
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if hs := h.sessions[sess.ID]; hs != nil {
		return hs, nil
	}
	return h.addLocked(sess), nil
}

// Adopt makes stored session sess live in the Host (a session the front
// end just created or picked) and returns it; a session already live with
// that id is returned as it is.
func (h *Host) Adopt(sess *agent.Conversation) *HostSession {
	h.mu.Lock()
	defer h.mu.Unlock()
	if hs := h.sessions[sess.ID]; hs != nil {
		return hs
	}
	return h.addLocked(sess)
}

func (h *Host) addLocked(sess *agent.Conversation) *HostSession {
	hs := &HostSession{h: h, id: sess.ID, stored: sess, log: newEventLog(h.opts.Replay),
		approvals: map[string]*pendingApproval{}, interactions: map[string]*pendingInteraction{}}
	if h.opts.Adapter != nil {
		hs.adapter = h.opts.Adapter(sess.ID)
	}
	h.sessions[sess.ID] = hs
	return hs
}

// Drop closes the live state of session id (its background processes;
// a run in progress is cancelled first) and forgets it; its stored
// conversation stays. Unknown ids are ignored.
func (h *Host) Drop(id string) {
	h.mu.Lock()
	hs := h.sessions[id]
	delete(h.sessions, id)
	h.mu.Unlock()
	if hs != nil {
		hs.Cancel()
		hs.closeLive()
	}
}

// Runs returns how many runs are in progress over all sessions.
func (h *Host) Runs() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.runs
}

// Close cancels every run, waits up to wait for them to save their
// partial answers, and closes the live sessions (stopping their
// background processes). The Host refuses new runs afterwards.
func (h *Host) Close(wait time.Duration) {
	h.cancel()
	done := make(chan struct{})
	go func() {
		h.running.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(wait):
	}
	h.mu.Lock()
	list := make([]*HostSession, 0, len(h.sessions))
	for id, hs := range h.sessions {
		list = append(list, hs)
		delete(h.sessions, id)
	}
	h.mu.Unlock()
	for _, hs := range list {
		hs.closeLive()
	}
}

// list returns the live sessions (for the approval and question lists).
func (h *Host) list() []*HostSession {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]*HostSession, 0, len(h.sessions))
	for _, hs := range h.sessions {
		out = append(out, hs)
	}
	return out
}

// acquire counts a run against MaxRuns. Errors: ErrTooManyRuns,
// errHostClosed.
func (h *Host) acquire() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.ctx.Err() != nil {
		return errHostClosed
	}
	if h.opts.MaxRuns != nil {
		if n := h.opts.MaxRuns(); n > 0 && h.runs >= n {
			return fmt.Errorf("%w (%d)", ErrTooManyRuns, n)
		}
	}
	h.runs++
	h.running.Add(1)
	return nil
}

func (h *Host) release() {
	h.mu.Lock()
	h.runs--
	h.mu.Unlock()
	h.running.Done()
}

// approvalTimeout is how long an approval or question of a watched run
// waits once no one watches the session (config approval_timeout).
func (h *Host) approvalTimeout() time.Duration {
	if s := h.svc.Runtime().Config.ApprovalTimeout; s > 0 {
		return time.Duration(s) * time.Second
	}
	return defaultApprovalTimeout
}

// defaultApprovalTimeout is approval_timeout's default: how long an
// approval or question waits after the last page (or client) following
// its session went away, before it is denied (declined).
const defaultApprovalTimeout = 5 * time.Minute
