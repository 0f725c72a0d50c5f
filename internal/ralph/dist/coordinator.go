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
}

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

// loop is the coordinator's event loop.
func (c *Coordinator) loop(ctx context.Context, kv jetstream.KeyValue, in *inbox) (ralph.FinishReason, error) {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	paused, stopping := false, false
	for {
		if !paused && !stopping {
			if err := c.publishRunnable(ctx); err != nil {
				return "", err
			}
		}
		if reason, end := c.ended(stopping); end {
			return reason, nil
		}
		select {
		case <-ctx.Done():
			return c.interrupt()
		case r := <-in.results:
			if err := c.result(r); err != nil {
				return "", err
			}
		case seq := <-in.advisories:
			if err := c.exhausted(seq); err != nil {
				return "", err
			}
		case <-c.o.Service.Wake():
		case <-tick.C:
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
	if stopping {
		return ralph.FinishStopped, true
	}
	tasks, err := c.o.Service.List()
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
		if _, err := c.record(id, func(t *ralph.Task) { t.Status = ralph.StatusPending }); err != nil {
			return "", err
		}
	}
	return ralph.FinishInterrupted, nil
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

// record changes a task of the list by id (the coordinator is its only
// writer during the run) and returns its new state.
func (c *Coordinator) record(id string, fn func(t *ralph.Task)) (ralph.Task, error) {
	var out ralph.Task
	err := c.o.Service.Store().Change(context.Background(), func(l *ralph.List) error {
		for i := range l.Tasks {
			if strings.EqualFold(l.Tasks[i].ID, id) {
				fn(&l.Tasks[i])
				l.Tasks[i].UpdatedAt = time.Now().UTC()
				out = l.Tasks[i].Clone()
				return nil
			}
		}
		return nil
	})
	return out, err
}
