package dist

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/zelvior/aidex/internal/ralph"
)

// WorkerStatus is one worker as its heartbeats show it: id, host, the
// tasks it works on, its concurrency, whether it is paused, and when its
// last heartbeat came.
type WorkerStatus struct {
	ID            string    `json:"id"`
	Host          string    `json:"host"`
	Tasks         []string  `json:"tasks"`
	Concurrency   int       `json:"concurrency"`
	Paused        bool      `json:"paused,omitempty"`
	LastHeartbeat time.Time `json:"last_heartbeat"`
}

// Status is what `aidex ralph status --nats URL` shows: the run (id and
// state, "" when no coordinator answered), the workers, the queue depth
// (task messages not yet acknowledged), and the task list's counts (from
// the coordinator; nil without one).
type Status struct {
	Run        string               `json:"run,omitempty"`
	State      string               `json:"state,omitempty"`
	Workers    []WorkerStatus       `json:"workers"`
	QueueDepth uint64               `json:"queue_depth"`
	Counts     map[ralph.Status]int `json:"counts,omitempty"`
	InProgress []string             `json:"in_progress,omitempty"`
}

// fleet keeps the last heartbeat of each worker.
type fleet struct {
	mu      sync.Mutex
	workers map[string]WorkerStatus
}

func newFleet() *fleet { return &fleet{workers: map[string]WorkerStatus{}} }

func (f *fleet) heartbeat(m *nats.Msg) {
	var hb Heartbeat
	if decodeStrict(m.Data, 16<<10, &hb) != nil || hb.Worker == "" || len(hb.Worker) > 200 || len(hb.Tasks) > 1000 {
		return
	}
	f.mu.Lock()
	f.workers[hb.Worker] = WorkerStatus{ID: hb.Worker, Host: cut(hb.Host, 200), Tasks: hb.Tasks, Concurrency: hb.Concurrency,
		Paused: hb.Paused, LastHeartbeat: time.Now().UTC()}
	f.mu.Unlock()
}

// list returns the workers by id.
func (f *fleet) list() []WorkerStatus {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]WorkerStatus, 0, len(f.workers))
	for _, w := range f.workers {
		out = append(out, w)
	}
	slices.SortFunc(out, func(a, b WorkerStatus) int {
		switch {
		case a.ID < b.ID:
			return -1
		case a.ID > b.ID:
			return 1
		}
		return 0
	})
	return out
}

// Workers returns the workers whose heartbeats the coordinator has seen.
func (c *Coordinator) Workers() []WorkerStatus { return c.fleet.list() }

// answerStatus answers a status request with the coordinator's view.
func (c *Coordinator) answerStatus(m *nats.Msg) {
	st := Status{Run: c.run, State: stateRunning, Workers: c.fleet.list()}
	if c.o.Service.PauseRequested() {
		st.State = statePaused
	}
	if c.o.Service.StopRequested() {
		st.State = stateStopped
	}
	if tasks, err := c.o.Service.List(); err == nil {
		st.Counts = ralph.Counts(tasks)
		for _, t := range tasks {
			if t.Status == ralph.StatusInProgress {
				st.InProgress = append(st.InProgress, t.ID)
			}
		}
	}
	st.QueueDepth = queueDepth(c.js)
	data, _ := json.Marshal(st)
	_ = m.Respond(data)
}

func queueDepth(js jetstream.JetStream) uint64 {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	s, err := js.Stream(ctx, TaskStream)
	if err != nil {
		return 0
	}
	info, err := s.Info(ctx)
	if err != nil {
		return 0
	}
	return info.State.Msgs
}

// QueryStatus asks the coordinator for the run's status; with no
// coordinator answering within wait, it listens to the workers'
// heartbeats for wait and reads the queue depth itself.
func QueryStatus(ctx context.Context, nc *nats.Conn, wait time.Duration) (Status, error) {
	f := newFleet()
	sub, err := nc.Subscribe(workerSubject+"*", f.heartbeat)
	if err != nil {
		return Status{}, fmt.Errorf("ralph status: %w", err)
	}
	defer func() { _ = sub.Unsubscribe() }()
	rctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	msg, err := nc.RequestWithContext(rctx, statusSubject, nil)
	if err == nil {
		var st Status
		if err := decodeStrict(msg.Data, 1<<20, &st); err != nil {
			return Status{}, fmt.Errorf("ralph status: the coordinator's answer: %w", err)
		}
		return st, nil
	}
	if !errors.Is(err, nats.ErrNoResponders) && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, nats.ErrTimeout) {
		return Status{}, fmt.Errorf("ralph status: %w", err)
	}
	<-rctx.Done()
	js, err := jetstream.New(nc)
	if err != nil {
		return Status{}, fmt.Errorf("ralph status: %w", err)
	}
	return Status{Workers: f.list(), QueueDepth: queueDepth(js)}, nil
}

// recordWorkers hands the workers to the Ralph service (State, Snapshot:
// the web UI's and the TUI's per-worker rows) when they changed, or every
// 2 s for the heartbeat times.
func (c *Coordinator) recordWorkers() {
	ws := c.fleet.list()
	rows := make([]ralph.WorkerRow, len(ws))
	var key strings.Builder
	for i, w := range ws {
		rows[i] = ralph.WorkerRow{ID: w.ID, Host: w.Host, Tasks: w.Tasks, Paused: w.Paused, LastHeartbeat: w.LastHeartbeat}
		fmt.Fprintf(&key, "%s|%v|%v;", w.ID, w.Tasks, w.Paused)
	}
	if key.String() == c.workersKey && time.Since(c.workersAt) < 2*time.Second {
		return
	}
	if c.o.Service.SetWorkers(rows) == nil {
		c.workersKey, c.workersAt = key.String(), time.Now()
	}
}
