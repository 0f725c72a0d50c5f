package dist

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/zelvior/aidex/internal/ralph"
)

// CoordinatorOptions configure a [Coordinator].
//
// Service is the workspace's Ralph service (its task list, of which the
// coordinator is the only writer while it runs, and its run control:
// stop, pause and resume work as for a one-worker run). Conn is the NATS
// connection. Run gives MaxIterations (tasks put on the queue at most),
// TaskIDs and Verify (sent with each task). AckWait is how long a worker
// may stay silent on a task before it is redelivered (0:
// DefaultAckWait). Remote is the repository URL remote workers clone and
// push to ("" when all workers share the workspace's repository). Merge
// merges the done branches at the end. BestOf > 1 has that many workers
// attempt each task.
type CoordinatorOptions struct {
	Service *ralph.Service
	Conn    *nats.Conn
	Run     ralph.RunOptions
	AckWait time.Duration
	Remote  string
	Merge   bool
	BestOf  int
}

// Coordinator drives a run with several workers.
type Coordinator struct {
	o     CoordinatorOptions
	js    jetstream.JetStream
	run   string
	ws    string
	emit  func(ralph.Event)
	state *runState
	fleet *fleet
	// changes wait for the next write of the task list (flush).
	changes []change
	// tasks is the list as last read or written (nil: read it again).
	tasks []ralph.Task
	// flushed is when the list was last written.
	flushed time.Time
	// workersKey and workersAt: what recordWorkers last recorded, when.
	workersKey string
	workersAt  time.Time
	// busy is the time the loop spent on its own work (queueing, results,
	// the task list), not waiting: the coordinator's overhead.
	busy time.Duration
}

// Overhead is the time the coordinator's loop spent working (not waiting)
// in the last Run: queueing tasks, applying results, writing the list.
func (c *Coordinator) Overhead() time.Duration { return c.busy }

// NewCoordinator checks the options. It does no I/O.
func NewCoordinator(o CoordinatorOptions) (*Coordinator, error) {
	if o.Service == nil || o.Conn == nil {
		return nil, errors.New("ralph coordinator: no service or NATS connection (internal error)")
	}
	if o.AckWait <= 0 {
		o.AckWait = DefaultAckWait
	}
	if o.AckWait < 100*time.Millisecond {
		return nil, fmt.Errorf("--ack-wait %s is too short: at least 100ms", o.AckWait)
	}
	if o.BestOf < 0 || o.BestOf > 16 {
		return nil, fmt.Errorf("--best-of %d: want 1..16", o.BestOf)
	}
	js, err := jetstream.New(o.Conn)
	if err != nil {
		return nil, fmt.Errorf("ralph coordinator: jetstream: %w", err)
	}
	return &Coordinator{o: o, js: js, run: randomHex(8), ws: o.Service.Workspace(), fleet: newFleet()}, nil
}

// RunID is this coordinator's run id (results come back on
// ralph.result.<run-id>.>).
func (c *Coordinator) RunID() string { return c.run }

// Setup makes the streams, the work consumer and the control bucket,
// emptying the queue of an earlier run. Run calls it; call it first to
// start workers before Run.
func (c *Coordinator) Setup(ctx context.Context) (jetstream.KeyValue, error) {
	tasks, results := streamConfigs()
	ts, err := c.js.CreateOrUpdateStream(ctx, tasks)
	if err != nil {
		return nil, fmt.Errorf("ralph: task stream: %w", err)
	}
	if _, err := c.js.CreateOrUpdateStream(ctx, results); err != nil {
		return nil, fmt.Errorf("ralph: result stream: %w", err)
	}
	if err := c.js.DeleteConsumer(ctx, TaskStream, WorkConsumer); err != nil && !errors.Is(err, jetstream.ErrConsumerNotFound) {
		return nil, fmt.Errorf("ralph: reset the work consumer: %w", err)
	}
	if err := ts.Purge(ctx); err != nil {
		return nil, fmt.Errorf("ralph: empty the work queue: %w", err)
	}
	_, err = ts.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{Durable: WorkConsumer, AckPolicy: jetstream.AckExplicitPolicy,
		AckWait: c.o.AckWait, MaxDeliver: MaxDeliver, FilterSubject: taskSubject + ">", MaxAckPending: 10000})
	if err != nil {
		return nil, fmt.Errorf("ralph: work consumer: %w", err)
	}
	return controlBucket(ctx, c.js)
}

// inbox is what the run loop waits on.
type inbox struct {
	results    chan ResultMsg
	advisories chan uint64
}

// subscribe starts reading results of this run, max-delivery advisories
// and heartbeats, and answers status requests. The returned func stops it.
func (c *Coordinator) subscribe(ctx context.Context) (*inbox, func(), error) {
	in := &inbox{results: make(chan ResultMsg, 4096), advisories: make(chan uint64, 256)}
	oc, err := c.js.OrderedConsumer(ctx, ResultStream, jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{resultSubject + c.run + ".>"}, DeliverPolicy: jetstream.DeliverAllPolicy})
	if err != nil {
		return nil, nil, fmt.Errorf("ralph: read results: %w", err)
	}
	cc, err := oc.Consume(func(msg jetstream.Msg) {
		r, err := ParseResult(msg.Data())
		if err != nil || r.Run != c.run {
			return // not ours or malformed: ignored
		}
		in.results <- r
	})
	if err != nil {
		return nil, nil, fmt.Errorf("ralph: read results: %w", err)
	}
	var subs []*nats.Subscription
	adv, err := c.o.Conn.Subscribe("$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES."+TaskStream+"."+WorkConsumer, func(m *nats.Msg) {
		var a struct {
			Seq uint64 `json:"stream_seq"`
		}
		if json.Unmarshal(m.Data, &a) == nil {
			in.advisories <- a.Seq
		}
	})
	if err == nil {
		subs = append(subs, adv)
	}
	if s, err := c.o.Conn.Subscribe(workerSubject+"*", c.fleet.heartbeat); err == nil {
		subs = append(subs, s)
	}
	if s, err := c.o.Conn.Subscribe(statusSubject, c.answerStatus); err == nil {
		subs = append(subs, s)
	}
	_ = c.o.Conn.Flush()
	return in, func() {
		cc.Stop()
		for _, s := range subs {
			_ = s.Unsubscribe()
		}
	}, nil
}

// Run works through the task list with the workers on the queue until no
// task is left, a stop is asked, or ctx ends (the tasks being worked go
// back to pending). Events go to emit, one at a time; the last is
// finished, whose Summary is also returned. Errors: ErrRunning, no git
// repository, NATS failures, a task list that cannot be written.
func (c *Coordinator) Run(ctx context.Context, emit func(ralph.Event)) (*ralph.Summary, error) {
	release, err := c.o.Service.Claim()
	if err != nil {
		return nil, err
	}
	defer release()
	var mu sync.Mutex
	c.emit = func(ev ralph.Event) { mu.Lock(); defer mu.Unlock(); emit(ev) }
	base, err := Head(ctx, c.ws)
	if err != nil {
		return nil, err
	}
	kv, err := c.Setup(ctx)
	if err != nil {
		return nil, err
	}
	in, stop, err := c.subscribe(ctx)
	if err != nil {
		return nil, err
	}
	defer stop()
	c.state = newRunState(base)
	if err := setState(ctx, kv, stateRunning); err != nil {
		return nil, err
	}
	reason, err := c.loop(ctx, kv, in)
	_ = setState(context.Background(), kv, stateStopped)
	if err != nil {
		return nil, err
	}
	return c.finish(reason)
}

// flushEvery is the most often the coordinator writes the task list: the
// results in between are written together (the list is rewritten whole,
// so a write per result would cost O(tasks) each).
const flushEvery = 100 * time.Millisecond

// results applies r and every result already waiting (a burst from
// several workers); the list is written when flushEvery has passed since
// the last write (else at the next tick).
func (c *Coordinator) results(r ResultMsg, more <-chan ResultMsg) error {
	c.result(r)
	for n := 1; n < 512; n++ {
		select {
		case r := <-more:
			c.result(r)
			continue
		default:
		}
		break
	}
	if time.Since(c.flushed) < flushEvery {
		return nil
	}
	return c.flush()
}

// loop is the coordinator's event loop.
func (c *Coordinator) loop(ctx context.Context, kv jetstream.KeyValue, in *inbox) (ralph.FinishReason, error) {
	tick := time.NewTicker(flushEvery)
	defer tick.Stop()
	paused, stopping := false, false
	for {
		start := time.Now()
		if !paused && !stopping {
			if err := c.publishRunnable(ctx); err != nil {
				return "", err
			}
		}
		reason, end := c.ended(stopping)
		c.busy += time.Since(start)
		if end {
			return reason, nil
		}
		select {
		case <-ctx.Done():
			return c.interrupt()
		case r := <-in.results:
			start := time.Now()
			if err := c.results(r, in.results); err != nil {
				return "", err
			}
			c.busy += time.Since(start)
		case seq := <-in.advisories:
			c.exhausted(seq)
			if err := c.flush(); err != nil {
				return "", err
			}
		case <-c.o.Service.Wake():
		case <-tick.C:
			if err := c.flush(); err != nil {
				return "", err
			}
			c.tasks = nil // see the list's changes by others (ralph add)
			c.recordWorkers()
		}
		if !stopping && c.o.Service.StopRequested() {
			stopping = true
			_ = setState(context.Background(), kv, stateStopped)
			c.dropQueued()
		}
		if p := c.o.Service.PauseRequested() && !stopping; p != paused {
			paused = p
			c.pause(kv, p)
		}
	}
}

func (c *Coordinator) pause(kv jetstream.KeyValue, on bool) {
	if on {
		_ = setState(context.Background(), kv, statePaused)
		c.emit(ralph.Event{Type: ralph.EventPaused})
		return
	}
	_ = setState(context.Background(), kv, stateRunning)
	c.emit(ralph.Event{Type: ralph.EventResumed})
}

// ended says whether the run is over: nothing in flight and nothing left
// to queue (or a stop asked).
func (c *Coordinator) ended(stopping bool) (ralph.FinishReason, bool) {
	if c.state.inFlight() > 0 {
		return "", false
	}
	if len(c.changes) > 0 {
		if err := c.flush(); err != nil {
			return "", false
		}
	}
	if stopping {
		return ralph.FinishStopped, true
	}
	tasks, err := c.list()
	if err != nil {
		return "", false
	}
	if len(ralph.Runnable(tasks, c.o.Run.TaskIDs)) > 0 {
		if c.o.Run.MaxIterations > 0 && c.state.published >= c.o.Run.MaxIterations {
			return ralph.FinishMaxIterations, true
		}
		return "", false
	}
	if _, waiting := ralph.Next(tasks, c.o.Run.TaskIDs); len(waiting) > 0 {
		c.state.waiting = waiting
		return ralph.FinishBlocked, true
	}
	return ralph.FinishCompleted, true
}

// dropQueued empties the work queue on a stop: the tasks no worker took
// stay pending.
func (c *Coordinator) dropQueued() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if s, err := c.js.Stream(ctx, TaskStream); err == nil {
		_ = s.Purge(ctx)
	}
	c.state.dropUnstarted()
}

// interrupt ends a cancelled run: the queue is emptied and the tasks
// being worked go back to pending.
func (c *Coordinator) interrupt() (ralph.FinishReason, error) {
	c.dropQueued()
	for _, id := range c.state.startedIDs() {
		c.record(id, func(t *ralph.Task) { t.Status = ralph.StatusPending }, nil)
	}
	return ralph.FinishInterrupted, c.flush()
}

func (c *Coordinator) finish(reason ralph.FinishReason) (*ralph.Summary, error) {
	sum := c.state.summary
	sum.Reason, sum.Waiting = reason, c.state.waiting
	tasks, err := c.o.Service.List()
	if err != nil {
		return nil, err
	}
	sum.Branches = doneBranches(tasks, c.state.branches)
	if c.o.Merge && len(sum.Branches) > 0 {
		sum.Merged = c.merge(sum.Branches)
	}
	sum.Counts = ralph.Counts(tasks)
	c.emit(ralph.Event{Type: ralph.EventFinished, Summary: sum})
	return sum, nil
}

// list returns the task list, read again only when the cached copy was
// dropped.
func (c *Coordinator) list() ([]ralph.Task, error) {
	if c.tasks != nil {
		return c.tasks, nil
	}
	tasks, err := c.o.Service.List()
	if err == nil {
		c.tasks = tasks
	}
	return tasks, err
}

// change is one task change waiting for the next write of the list, and
// what to do with the task's new state once written.
type change struct {
	id    string
	fn    func(t *ralph.Task)
	after func(t ralph.Task)
}

// record queues a change of a task (by id) for the next flush.
func (c *Coordinator) record(id string, fn func(t *ralph.Task), after func(t ralph.Task)) {
	c.changes = append(c.changes, change{id: id, fn: fn, after: after})
}

// flush writes the queued changes in one write of the list (the
// coordinator is its only writer during the run), then runs their
// afters (the events) in order. A task removed meanwhile is skipped.
func (c *Coordinator) flush() error {
	if len(c.changes) == 0 {
		return nil
	}
	changes := c.changes
	c.changes, c.flushed = nil, time.Now()
	states := make([]*ralph.Task, len(changes))
	err := c.o.Service.Store().Change(context.Background(), func(l *ralph.List) error {
		index := make(map[string]int, len(l.Tasks))
		for i := range l.Tasks {
			index[strings.ToUpper(l.Tasks[i].ID)] = i
		}
		now := time.Now().UTC()
		for k, ch := range changes {
			i, ok := index[strings.ToUpper(ch.id)]
			if !ok {
				continue
			}
			ch.fn(&l.Tasks[i])
			l.Tasks[i].UpdatedAt = now
			t := l.Tasks[i].Clone()
			states[k] = &t
		}
		c.tasks = l.Tasks
		return nil
	})
	if err != nil {
		return err
	}
	for k, ch := range changes {
		if states[k] != nil && ch.after != nil {
			ch.after(*states[k])
		}
	}
	return nil
}
