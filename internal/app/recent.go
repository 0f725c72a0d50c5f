package app

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/llm"
)

// conversationLoad is the loading of a resumed conversation's messages
// after PickRecent returned the session with its last ones: done is
// closed when the session holds them all (or the load failed: err).
type conversationLoad struct {
	done   chan struct{}
	err    error
	recent []llm.Message
	total  int
}

// loads are the conversations of sessions PickRecent returned that are
// still loading, by session (guarded by mu).
type loads struct {
	mu sync.Mutex
	m  map[*agent.Conversation]*conversationLoad
}

// wait waits for the loads going on (Close: none may outlive the store).
func (l *loads) wait() {
	l.mu.Lock()
	pending := make([]*conversationLoad, 0, len(l.m))
	for _, ld := range l.m {
		pending = append(pending, ld)
	}
	l.mu.Unlock()
	for _, ld := range pending {
		<-ld.done
	}
}

func (l *loads) of(sess *agent.Conversation) *conversationLoad {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.m[sess]
}

// PickRecent is [Service.Pick] for a front end that shows a resumed
// conversation's last messages before it needs the rest (the terminal
// UI on -c): a resumed session longer than recent messages (recent ≥ 1)
// comes back with no messages yet while the whole conversation loads in
// the background; [Session.Recent] of its live session gives the last
// recent messages at once. Everything that reads or continues the
// conversation ([Session.Info], runs, [Session.Rewind], [Session.Use])
// waits for the load; a failed load leaves the last messages in place and
// the next run loads the conversation again (failing with the store's
// error). Errors: as Pick's.
func (s *Service) PickRecent(ctx context.Context, resume string, cont bool, recent int) (*agent.Conversation, error) {
	if resume == "" && !cont {
		return s.Pick(ctx, resume, cont)
	}
	id := resume
	if resume == "" { // cont: -r wins over -c, as in Pick
		var err error
		if id, err = s.store.LatestID(ctx, s.Runtime().Workspace); err != nil {
			return nil, fmt.Errorf("--continue: %w", err)
		}
	}
	sess, total, err := s.store.LoadRecent(ctx, id, max(recent, 1))
	if err != nil || total <= len(sess.Messages) {
		return sess, err
	}
	ld := &conversationLoad{done: make(chan struct{}), recent: sess.Messages, total: total}
	sess.Messages = nil
	s.loads.mu.Lock()
	if s.loads.m == nil {
		s.loads.m = map[*agent.Conversation]*conversationLoad{}
	}
	s.loads.m[sess] = ld
	s.loads.mu.Unlock()
	go s.loadConversation(context.WithoutCancel(ctx), sess, sess.ID, ld)
	return sess, nil
}

// loadConversation loads the whole of sess's conversation into its
// Messages (in place: front ends hold the pointer; the other fields are as
// PickRecent loaded them, and a run reloads the session if the store
// changed since), or on failure leaves its last messages there (the live
// session then reloads at the next run), then ends ld.
func (s *Service) loadConversation(ctx context.Context, sess *agent.Conversation, id string, ld *conversationLoad) {
	full, err := s.store.Load(ctx, id)
	s.loads.mu.Lock()
	if err == nil {
		sess.Messages = full.Messages
	} else {
		sess.Messages = ld.recent
		ld.err = fmt.Errorf("load the conversation of %s: %w", id, err)
	}
	delete(s.loads.m, sess)
	s.loads.mu.Unlock()
	close(ld.done)
}

// Recent returns the conversation's last messages as [Service.PickRecent]
// loaded them, and how many messages it holds in all, without waiting for
// the rest to load (the whole conversation when it is loaded). The slice
// is shared: do not change it.
func (ls *Session) Recent() ([]llm.Message, int) {
	ls.mu.Lock()
	ld, sess := ls.loading, ls.sess
	ls.mu.Unlock()
	if ld != nil {
		select {
		case <-ld.done:
		default:
			return ld.recent, ld.total
		}
	}
	return sess.Messages, len(sess.Messages)
}

// waitLoaded waits until the conversation PickRecent started loading is
// loaded; after a failed load the next run reloads it (seen cleared).
// Errors: ctx's.
func (ls *Session) waitLoaded(ctx context.Context) error {
	ls.mu.Lock()
	ld := ls.loading
	ls.mu.Unlock()
	if ld == nil {
		return nil
	}
	select {
	case <-ld.done:
	case <-ctx.Done():
		return ctx.Err()
	}
	ls.mu.Lock()
	if ls.loading == ld {
		ls.loading = nil
		if ld.err != nil {
			ls.seen = time.Time{}
		}
	}
	ls.mu.Unlock()
	return nil
}
