package tui

import (
	"context"
	"sync"

	tea "charm.land/bubbletea/v2"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/ralph"
	"github.com/zelvior/aidex/internal/ui/termsafe"
)

// item is one thing the engine side hands to the UI: an event, an
// approval question, ask_user's interaction, the end of a run, a Ralph loop's event or its end.
type item struct {
	ev       *agent.Event
	ask      *askReq
	form     *formReq
	choose   *chooseReq
	end      *runEnd
	ralph    *ralph.Event
	ralphEnd *ralphEnd
}

// askReq is an approval question waiting for the user's answer on reply.
type askReq struct {
	req   agent.ApprovalInfo
	reply chan answer
}

type answer struct {
	d      agent.Answer
	reason string
}

// runEnd closes a run; then, when not nil, runs on the UI goroutine after
// the run's end is shown (/implement's outcome, /plan's review).
type runEnd struct {
	done *agent.DoneInfo
	err  error
	then func(m *model) tea.Cmd
}

// ralphEnd closes a Ralph loop started from the UI.
type ralphEnd struct {
	sum *ralph.Summary
	err error
}

// queue carries engine events to the UI without ever blocking the engine:
// push appends under a lock and signals; the UI drains everything queued
// in one message, with consecutive text deltas merged. A slow terminal so
// costs memory, never engine time.
type queue struct {
	mu     sync.Mutex
	items  []item
	notify chan struct{}
	closed chan struct{} // closed by close
	once   sync.Once
}

func newQueue() *queue { return &queue{notify: make(chan struct{}, 1), closed: make(chan struct{})} }

func (q *queue) push(it item) {
	q.mu.Lock()
	q.items = append(q.items, it)
	q.mu.Unlock()
	select {
	case q.notify <- struct{}{}:
	default:
	}
}

// emit is the engine's event callback; untrusted text is made safe for
// the terminal first.
func (q *queue) emit(e agent.Event) {
	e = termsafe.Event(e)
	q.push(item{ev: &e})
}

// emitRalph is the Ralph loop's event callback.
func (q *queue) emitRalph(e ralph.Event) { q.push(item{ralph: &e}) }

// itemsMsg is a drained batch of queue items.
type itemsMsg []item

// wait returns a command that blocks until items are queued, then
// delivers them all (coalesced). After close it returns nil at once.
func (q *queue) wait() tea.Cmd {
	return func() tea.Msg {
		select {
		case <-q.notify:
			return itemsMsg(q.drain())
		case <-q.closed:
			return nil
		}
	}
}

// close ends the waiting for items once the UI has stopped: Bubble Tea
// cannot cancel a running command, so a wait would otherwise block (and
// keep its goroutine) forever. Items pushed later are dropped with the
// queue.
func (q *queue) close() { q.once.Do(func() { close(q.closed) }) }

func (q *queue) drain() []item {
	q.mu.Lock()
	items := q.items
	q.items = nil
	q.mu.Unlock()
	return coalesce(items)
}

// coalesce merges consecutive text (and reasoning) deltas into one event,
// and a Ralph task's consecutive text deltas.
func coalesce(items []item) []item {
	out := items[:0:0]
	for _, it := range items {
		if n := len(out); n > 0 && isRalphText(it) && isRalphText(out[n-1]) && out[n-1].ralph.TaskID == it.ralph.TaskID {
			ev, ae := *out[n-1].ralph, *out[n-1].ralph.Agent
			ae.Text += it.ralph.Agent.Text
			ev.Agent = &ae
			out[n-1] = item{ralph: &ev}
			continue
		}
		if n := len(out); n > 0 && it.ev != nil && out[n-1].ev != nil &&
			(it.ev.Type == agent.EventText || it.ev.Type == agent.EventReasoning) && out[n-1].ev.Type == it.ev.Type &&
			out[n-1].ev.ParentToolCallID == it.ev.ParentToolCallID && out[n-1].ev.Model == it.ev.Model {
			merged := *out[n-1].ev
			merged.Text += it.ev.Text
			out[n-1] = item{ev: &merged}
			continue
		}
		out = append(out, it)
	}
	return out
}

func isRalphText(it item) bool {
	return it.ralph != nil && it.ralph.Agent != nil && it.ralph.Agent.Type == agent.EventText
}

// approver asks approval questions through the queue, so they appear in
// order after the events before them.
type approver struct{ q *queue }

// Approve queues the question and waits for the answer or ctx's end.
func (a approver) Approve(ctx context.Context, req agent.ApprovalInfo) (agent.Answer, string, error) {
	req = termsafe.Approval(req)
	r := &askReq{req: req, reply: make(chan answer, 1)}
	a.q.push(item{ask: r})
	select {
	case ans := <-r.reply:
		return ans.d, ans.reason, nil
	case <-ctx.Done():
		return agent.AnswerDeny, "", ctx.Err()
	}
}
