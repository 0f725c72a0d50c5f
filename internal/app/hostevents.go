package app

import "sync"

// hostEvent is one event of a session as a Host keeps and sends it: its
// sequence number in the session (1, 2, …, never reused), its name (the
// engine's event type, or a front end's: "notice", "choose") and its
// payload (agent.Event, InteractionView, or the front end's value).
type hostEvent struct {
	Seq  uint64
	Name string
	Data any
}

// eventLog keeps the last n events of a session, oldest first.
type eventLog struct {
	buf   []hostEvent // a ring once full
	start int         // index of the oldest event when full
	n     int
	seq   uint64 // the last event's Seq
}

func newEventLog(n int) *eventLog { return &eventLog{n: n} }

func (l *eventLog) add(name string, v any) hostEvent {
	l.seq++
	ev := hostEvent{Seq: l.seq, Name: name, Data: v}
	if len(l.buf) < l.n {
		l.buf = append(l.buf, ev)
		return ev
	}
	l.buf[l.start] = ev
	l.start = (l.start + 1) % l.n
	return ev
}

// since returns the kept events after seq after, oldest first, and
// whether some after it are no longer kept.
func (l *eventLog) since(after uint64) ([]hostEvent, bool) {
	if after >= l.seq {
		return nil, false
	}
	var out []hostEvent
	for i := range l.buf {
		ev := l.buf[(l.start+i)%len(l.buf)]
		if ev.Seq > after {
			out = append(out, ev)
		}
	}
	missed := len(out) > 0 && out[0].Seq > after+1
	return out, missed
}

// Publish sends an event to the session: to the sink of the run in
// progress, to the subscribers and into the replay log. A subscriber
// that fell HostOptions.Replay events behind is dropped (its channel
// closes); the run never waits for one.
func (hs *HostSession) Publish(name string, v any) {
	hs.mu.Lock()
	ev := hs.log.add(name, v)
	for sub := range hs.subs {
		select {
		case sub.c <- ev:
		default:
			delete(hs.subs, sub)
			close(sub.c)
		}
	}
	var sink func(string, any)
	if hs.run != nil {
		sink = hs.run.sink
	}
	hs.mu.Unlock()
	if sink != nil {
		sink(name, v)
	}
}

// LastSeq returns the Seq of the session's last event (0: none yet).
func (hs *HostSession) LastSeq() uint64 {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	return hs.log.seq
}

// subscription follows a session's events (HostSession.Subscribe).
// Replay holds the kept events after the Seq asked for; Missed says that
// some after it were no longer kept (the client should reload the
// session). Events delivers the events published since; it closes when
// the subscriber fell too far behind. Close it when done.
type subscription struct {
	Replay []hostEvent
	Missed bool

	hs   *HostSession
	c    chan hostEvent
	once sync.Once
}

// Subscribe follows the session's events after Seq after (LastSeq for
// "from now on"). A subscriber watches the session (RunOptions.Watched):
// while it is subscribed, a watched run waiting for an answer is not
// denied.
func (hs *HostSession) Subscribe(after uint64) *subscription {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	sub := &subscription{hs: hs, c: make(chan hostEvent, hs.h.opts.Replay)}
	sub.Replay, sub.Missed = hs.log.since(after)
	if hs.subs == nil {
		hs.subs = map[*subscription]struct{}{}
	}
	hs.subs[sub] = struct{}{}
	hs.watchedLocked()
	return sub
}

// Events returns the channel of events published after the subscription.
func (s *subscription) Events() <-chan hostEvent { return s.c }

// Close ends the subscription (idempotent).
func (s *subscription) Close() {
	s.once.Do(func() {
		hs := s.hs
		hs.mu.Lock()
		defer hs.mu.Unlock()
		if _, ok := hs.subs[s]; ok {
			delete(hs.subs, s)
			close(s.c)
		}
		hs.watchers--
		hs.unwatchedLocked()
	})
}
