package dist

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/zelvior/aidex/internal/ralph"
)

// runState is the coordinator's bookkeeping of one run. A key is a task
// id, or id#attempt for one of best-of-K attempts.
type runState struct {
	base      string
	published int                 // tasks put on the queue
	queued    map[string]uint64   // in flight: key -> stream sequence
	perTask   map[string]int      // in flight: task id -> its keys in queued
	seqs      map[uint64]string   // stream sequence -> key
	started   map[string]string   // key -> the worker that has it
	finished  map[string]bool     // keys whose outcome is recorded
	reasons   map[string][]string // task id -> why deliveries ended without an outcome
	branches  map[string]string   // task id -> its done branch
	attempts  map[string][]attemptResult
	summary   *ralph.Summary
	waiting   []ralph.Waiting
}

func newRunState(base string) *runState {
	return &runState{base: base, queued: map[string]uint64{}, perTask: map[string]int{}, seqs: map[uint64]string{}, started: map[string]string{},
		finished: map[string]bool{}, reasons: map[string][]string{}, branches: map[string]string{},
		attempts: map[string][]attemptResult{}, summary: &ralph.Summary{}}
}

func (s *runState) inFlight() int { return len(s.queued) }

// enqueue and dequeue keep queued and perTask together.
func (s *runState) enqueue(k string, seq uint64) {
	if _, ok := s.queued[k]; !ok {
		id, _, _ := strings.Cut(k, "#")
		s.perTask[id]++
	}
	s.queued[k] = seq
}

func (s *runState) dequeue(k string) {
	if _, ok := s.queued[k]; !ok {
		return
	}
	delete(s.queued, k)
	id, _, _ := strings.Cut(k, "#")
	if s.perTask[id]--; s.perTask[id] <= 0 {
		delete(s.perTask, id)
	}
}

// dropUnstarted forgets the queued keys no worker started (a stop).
func (s *runState) dropUnstarted() {
	for k := range s.queued {
		if s.started[k] == "" {
			s.dequeue(k)
		}
	}
}

// startedIDs are the task ids being worked on.
func (s *runState) startedIDs() []string {
	seen := map[string]bool{}
	var out []string
	for k := range s.queued {
		id, _, _ := strings.Cut(k, "#")
		if s.started[k] != "" && !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

func key(id string, attempt int) string {
	if attempt > 0 {
		return fmt.Sprintf("%s#%d", id, attempt)
	}
	return id
}

// publishRunnable puts every runnable task not yet queued on the work
// queue (within --max-iterations).
func (c *Coordinator) publishRunnable(ctx context.Context) error {
	tasks, err := c.list()
	if err != nil {
		return err
	}
	for _, i := range ralph.Runnable(tasks, c.o.Run.TaskIDs) {
		t := tasks[i]
		if c.queuedTask(t.ID) || c.state.finished[t.ID] {
			continue // on the queue, or done in this run (the list's copy may lag: writes wait for flush)
		}
		if c.o.Run.MaxIterations > 0 && c.state.published >= c.o.Run.MaxIterations {
			return nil
		}
		if err := c.publishTask(ctx, t); err != nil {
			return err
		}
		c.state.published++
		c.emit(ralph.Event{Type: ralph.EventQueued, TaskID: t.ID})
	}
	return nil
}

func (c *Coordinator) queuedTask(id string) bool { return c.state.perTask[id] > 0 }

func (c *Coordinator) publishTask(ctx context.Context, t ralph.Task) error {
	m := TaskMsg{Run: c.run, ID: t.ID, Title: t.Title, Description: t.Description, AcceptanceCriteria: t.AcceptanceCriteria,
		Base: c.state.base, Remote: c.o.Remote, Verify: c.o.Run.Verify}
	n := max(c.o.BestOf, 1)
	for a := 1; a <= n; a++ {
		if n > 1 {
			m.BestOf, m.Attempt = n, a
		}
		if err := m.check(); err != nil {
			return fmt.Errorf("task %s cannot be sent to workers: %w", t.ID, err)
		}
		data, _ := json.Marshal(m)
		ack, err := c.js.Publish(ctx, taskSubject+t.ID, data, jetstream.WithMsgID(resultID(m, "task")))
		if err != nil {
			return fmt.Errorf("ralph: queue %s: %w", t.ID, err)
		}
		k := key(t.ID, m.Attempt)
		c.state.enqueue(k, ack.Sequence)
		c.state.seqs[ack.Sequence] = k
	}
	return nil
}

// result applies one worker report (the list changes wait for flush).
func (c *Coordinator) result(r ResultMsg) {
	k := key(r.TaskID, r.Attempt)
	if c.state.finished[k] {
		return // a duplicate: the task's outcome is recorded already
	}
	if _, ok := c.state.queued[k]; !ok {
		c.state.enqueue(k, 0) // taken just before a stop emptied the queue: wait for it
	}
	switch r.Kind {
	case KindStart:
		c.started(k, r)
	case KindRetry:
		c.state.reasons[r.TaskID] = append(c.state.reasons[r.TaskID], fmt.Sprintf("delivery %d on worker %s: %s", r.Delivery, r.Worker, r.Note))
		c.state.started[k] = ""
		c.emit(ralph.Event{Type: ralph.EventRedelivered, TaskID: r.TaskID, Worker: r.Worker, Note: r.Note})
	case KindRejected:
		c.complete(k, r.TaskID, ralph.Outcome{Status: ralph.StatusFailed, Reason: "rejected", Summary: r.Note, Worker: r.Worker})
	case KindOutcome:
		if c.o.BestOf > 1 {
			c.bestOfOutcome(k, r)
			return
		}
		c.complete(k, r.TaskID, *r.Outcome)
	}
}

func (c *Coordinator) started(k string, r ResultMsg) {
	if prev := c.state.started[k]; prev != "" { // the last delivery neither ended nor gave the task back
		note := fmt.Sprintf("delivery %d on worker %s ended without a result within the ack wait (the worker died or hung)", r.Delivery-1, prev)
		c.state.reasons[r.TaskID] = append(c.state.reasons[r.TaskID], note)
		c.emit(ralph.Event{Type: ralph.EventRedelivered, TaskID: r.TaskID, Worker: prev, Note: note})
	}
	c.state.started[k] = r.Worker
	c.record(r.TaskID, func(t *ralph.Task) {
		if t.Status != ralph.StatusInProgress || r.Delivery > 1 { // a new task, or a redelivery
			t.Attempts++
		}
		t.Status = ralph.StatusInProgress
	}, func(t ralph.Task) {
		c.emit(ralph.Event{Type: ralph.EventTaskStart, TaskID: r.TaskID, Task: &t, Worker: r.Worker})
	})
}

// complete records a task's outcome (once) and emits task_done.
func (c *Coordinator) complete(k, id string, out ralph.Outcome) {
	c.state.finished[k] = true
	c.state.dequeue(k)
	if out.Status == ralph.StatusFailed && len(c.state.reasons[id]) > 0 {
		out.Summary += " (earlier deliveries: " + strings.Join(c.state.reasons[id], "; ") + ")"
	}
	sum := c.state.summary
	sum.Ran++
	switch out.Status {
	case ralph.StatusDone:
		sum.Done++
		if out.Branch != "" {
			c.state.branches[id] = out.Branch
		}
	case ralph.StatusFailed:
		sum.Failed = append(sum.Failed, id)
	case ralph.StatusSkipped:
		sum.Skipped++
	}
	c.record(id, func(t *ralph.Task) {
		t.Status, t.Result = out.Status, capText(out.Summary, 4000)
		if out.SessionID != "" {
			t.SessionID = out.SessionID
		}
		setExtra(t, "branch", out.Branch)
		setExtra(t, "commit", out.Commit)
		setExtra(t, "worker", out.Worker)
	}, func(t ralph.Task) {
		c.emit(ralph.Event{Type: ralph.EventTaskDone, TaskID: id, Task: &t, Outcome: &out, Worker: out.Worker})
	})
}

// exhausted fails a task JetStream gave up on (MaxDeliver deliveries, none
// acknowledged).
func (c *Coordinator) exhausted(seq uint64) {
	k, ok := c.state.seqs[seq]
	if !ok || c.state.finished[k] {
		return
	}
	id, _, _ := strings.Cut(k, "#")
	if w := c.state.started[k]; w != "" {
		c.state.reasons[id] = append(c.state.reasons[id], fmt.Sprintf("delivery %d on worker %s ended without a result within the ack wait", MaxDeliver, w))
	}
	out := ralph.Outcome{Status: ralph.StatusFailed, Reason: "max_deliver",
		Summary: fmt.Sprintf("no worker finished it in %d deliveries", MaxDeliver)}
	c.complete(k, id, out)
}

func setExtra(t *ralph.Task, k, v string) {
	if v == "" {
		return
	}
	if t.Extra == nil {
		t.Extra = map[string]json.RawMessage{}
	}
	b, _ := json.Marshal(v)
	t.Extra[k] = b
}

// capText cuts s to at most n bytes at a rune boundary.
func capText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + " [...]"
}

// sinceString is a duration for status lines ("3s ago").
func sinceString(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return time.Since(t).Round(time.Second).String() + " ago"
}
