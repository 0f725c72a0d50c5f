package app

import (
	"context"
	"sync"
	"time"

	"github.com/zelvior/aidex/internal/agent"
)

// HostSession is one live session of a Host: the stored session, its
// live state (built on the first run), the run in progress, the events
// kept for replay, its subscribers and what waits for an answer. Get it
// from Host.Open, Host.Adopt or Host.Get.
type HostSession struct {
	h       *Host
	id      string
	adapter any
	build   sync.Mutex // one build of the live state at a time

	mu       sync.Mutex
	stored   *agent.Conversation
	live     *Session // nil before the first Prepare
	run      *Run     // the run in progress, nil between runs
	watchers int      // the watched run's stream and the subscribers
	orphan   *time.Timer
	orphanN  int // counts the orphan timers started: a stopped one that fires anyway is stale
	log      *eventLog
	subs     map[*subscription]struct{}

	approvals    map[string]*pendingApproval    // by approval id
	interactions map[string]*pendingInteraction // by interaction id
}

// ID returns the stored session's id.
func (hs *HostSession) ID() string { return hs.id }

// Adapter returns the front end's state for the session
// (HostOptions.Adapter's value; nil without one).
func (hs *HostSession) Adapter() any { return hs.adapter }

// Stored returns the stored session as last loaded or set (SetStored).
func (hs *HostSession) Stored() *agent.Conversation {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	return hs.stored
}

// SetStored replaces the stored session the HostSession shows (after a
// rewind changed the conversation).
func (hs *HostSession) SetStored(sess *agent.Conversation) {
	hs.mu.Lock()
	hs.stored = sess
	hs.mu.Unlock()
}

// Live returns the live state, nil before the first Prepare.
func (hs *HostSession) Live() *Session {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	return hs.live
}

// Running reports whether a run is in progress.
func (hs *HostSession) Running() bool {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	return hs.run != nil
}

// Prepare builds the live state on first use (HostOptions.Session's
// options), or rebuilds its engine when a model or provider switch
// changed the service's runtime since (Session.Refresh). Errors: the
// build's (bad permission rules, content waiting for review); while a run
// goes on, Refresh's agent.ErrBusy.
func (hs *HostSession) Prepare(ctx context.Context) (*Session, error) {
	hs.build.Lock()
	defer hs.build.Unlock()
	if live := hs.Live(); live != nil {
		return live, live.Refresh(ctx)
	}
	var o SessionOptions
	if hs.h.opts.Session != nil {
		o = hs.h.opts.Session(hs)
	}
	live, err := hs.h.svc.Session(ctx, hs.Stored(), o)
	if err != nil {
		return nil, err
	}
	hs.mu.Lock()
	hs.live = live
	hs.mu.Unlock()
	return live, nil
}

// closeLive closes the live state (background processes, hooks).
func (hs *HostSession) closeLive() {
	hs.mu.Lock()
	live := hs.live
	hs.live = nil
	hs.mu.Unlock()
	if live != nil {
		live.Close()
	}
}

// RunOptions configure a run (HostSession.Start).
//
// Sink gets every event of the run, and everything published to the
// session while it runs, synchronously and in order (nil: none): the
// stream of the client that started it. Watched makes the run last while
// someone watches the session: the caller counts as a watcher until
// Run.Detach (or End), and so does every subscriber. When the last
// watcher leaves, a run with nothing waiting for an answer is cancelled;
// one with an approval or question waiting is held, and what waits is
// denied (declined) after approval_timeout unless a watcher comes back.
type RunOptions struct {
	Sink    func(name string, v any)
	Watched bool
}

// Run is a run in progress of a HostSession. Run its turn with Context,
// send its events with Emit, and End it.
type Run struct {
	hs       *HostSession
	ctx      context.Context
	cancel   context.CancelFunc
	stop     func() bool // unhooks the Host's cancellation
	sink     func(name string, v any)
	watched  bool
	watching bool // the starting client still counts as a watcher
	end      sync.Once
}

// Start begins a run of the session: the run's context is parent's,
// cancelled too by Cancel, by Host.Close and (Watched) when no one
// watches. End it with Run.End. Errors: ErrRunning, ErrTooManyRuns,
// errHostClosed.
func (hs *HostSession) Start(parent context.Context, o RunOptions) (*Run, error) {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	if hs.run != nil {
		return nil, ErrRunning
	}
	if err := hs.h.acquire(); err != nil {
		return nil, err
	}
	r := &Run{hs: hs, sink: o.Sink, watched: o.Watched, watching: o.Watched}
	r.ctx, r.cancel = context.WithCancel(parent)
	r.stop = context.AfterFunc(hs.h.ctx, r.cancel)
	if o.Watched {
		hs.watchers++
	}
	hs.run = r
	return r, nil
}

// Context returns the run's context: pass it to the turn.
func (r *Run) Context() context.Context { return r.ctx }

// Emit sends an engine event of the run to its sink, the session's
// subscribers and the replay log. An approval request is registered
// first (so an answer never arrives before its request exists), and a
// question goes out with its answer token (InteractionView).
func (r *Run) Emit(e agent.Event) {
	var v any = e
	switch {
	case e.Type == agent.EventApproval && e.Approval != nil && e.Approval.Answer == "":
		r.hs.openApproval(*e.Approval)
	case e.Type == agent.EventInteraction && e.Interaction != nil && e.Interaction.Answer == nil:
		if p, err := r.hs.openInteraction(*e.Interaction); err == nil {
			view := p.view(r.hs.id)
			view.Event = e
			v = view
		}
	}
	r.hs.Publish(string(e.Type), v)
}

// Detach says the client that started the run stopped watching (its
// connection closed); see RunOptions.Watched.
func (r *Run) Detach() {
	hs := r.hs
	hs.mu.Lock()
	defer hs.mu.Unlock()
	if !r.watching {
		return
	}
	r.watching = false
	hs.watchers--
	hs.unwatchedLocked()
}

// End ends the run: the session is free for the next one. Idempotent.
func (r *Run) End() {
	r.end.Do(func() {
		hs := r.hs
		hs.mu.Lock()
		if hs.run == r {
			hs.run = nil
		}
		if r.watching {
			r.watching = false
			hs.watchers--
		}
		hs.stopOrphanLocked()
		hs.mu.Unlock()
		r.stop()
		r.cancel()
		hs.h.release()
	})
}

// Cancel cancels the run in progress and reports whether there was one.
func (hs *HostSession) Cancel() bool {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	if hs.run == nil {
		return false
	}
	hs.run.cancel()
	return true
}

// unwatchedLocked applies RunOptions.Watched when a watcher left.
func (hs *HostSession) unwatchedLocked() {
	r := hs.run
	if r == nil || !r.watched || hs.watchers > 0 {
		return
	}
	if hs.waitingLocked() {
		hs.startOrphanLocked()
		return
	}
	r.cancel()
}

// watchedLocked stops the orphan timer: a watcher came (back).
func (hs *HostSession) watchedLocked() {
	hs.watchers++
	hs.stopOrphanLocked()
}

// orphanedLocked reports whether what waits for an answer now has no one
// to answer it: a watched run with no watcher.
func (hs *HostSession) orphanedLocked() bool {
	return hs.run != nil && hs.run.watched && hs.watchers == 0
}

func (hs *HostSession) startOrphanLocked() {
	if hs.orphan != nil {
		return
	}
	d := hs.h.approvalTimeout()
	hs.orphanN++
	n := hs.orphanN
	hs.orphan = time.AfterFunc(d, func() { hs.timeOut(n, d) })
}

func (hs *HostSession) stopOrphanLocked() {
	if hs.orphan != nil {
		hs.orphan.Stop()
		hs.orphan = nil
	}
}

// Host returns the Host the session is live in.
func (hs *HostSession) Host() *Host { return hs.h }
