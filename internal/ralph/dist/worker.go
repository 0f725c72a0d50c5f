package dist

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/zelvior/aidex/internal/ralph"
)

// ErrVerifyNotAllowed is the outcome summary of a task whose verify
// command the worker does not allow.
const ErrVerifyNotAllowed = "verify command not allowed here"

// Executor is what a worker needs from the rest of aidex
// (app.RalphWorkerExecutor is the real one): a Ralph backend working in a
// task's worktree under the worker's own configuration, and its rule for
// verify commands.
type Executor interface {
	// Backend returns the backend whose sessions, engines and verify
	// command work in dir, with the worker's permission mode, sandbox
	// and turn limits.
	Backend(dir string) ralph.Backend
	// VerifyAllowed reports whether a verify command a task asks for may
	// run here: it is the worker's verify_command, or an allow rule of
	// the worker's configuration allows it.
	VerifyAllowed(command string) bool
}

// WorkerOptions configure a [Worker].
//
// Conn is the NATS connection; ID and Host name the worker in heartbeats
// and results. Repo is the repository in-process workers share with the
// coordinator ("" for a remote worker, which clones each task's remote
// into Workspace/repos and pushes its branch back). WorktreeRoot is where
// worktrees go ($XDG_STATE_HOME/aidex/worktrees; each repository in its
// <repo-hash> folder). AllowRemotes
// are the remotes a remote worker accepts (path.Match patterns; none:
// every remote refused). Concurrency is how many tasks at once (0: 1).
// Run holds the worker's own limits (MaxTurns, MaxAttempts, timeouts)
// and Verify, a verify command the worker allows besides the executor's
// (its own --verify, or the run's for in-process workers); a task runs
// the verify command its message names. TaskIDs is ignored. Emit, when set, gets the worker's
// events (the engine's too). NoWorktree skips worktrees and commits (the
// coordinator-overhead benchmark). Heartbeat is how often the worker
// reports (0: 2 s).
type WorkerOptions struct {
	Conn         *nats.Conn
	ID           string
	Host         string
	Executor     Executor
	Repo         string
	Workspace    string
	WorktreeRoot string
	AllowRemotes []string
	Concurrency  int
	Run          ralph.RunOptions
	Emit         func(ralph.Event)
	NoWorktree   bool
	Heartbeat    time.Duration
	// RepoLock serialises this process's git changes of the shared
	// repository (worktree add and remove, branch deletion, commits): give
	// the in-process workers of one Repo the same one (nil: the worker's
	// own).
	RepoLock *sync.Mutex
}

// Worker takes tasks from the work queue and works them.
type Worker struct {
	o     WorkerOptions
	js    jetstream.JetStream
	mu    sync.Mutex
	tasks map[string]bool
	// ackWait is the work consumer's ack wait (progress goes out thrice in it).
	ackWait time.Duration
	ctl     *controlReader
	repos   sync.Mutex // one clone or fetch at a time
}

// NewWorker checks the options and returns a worker.
func NewWorker(o WorkerOptions) (*Worker, error) {
	if o.Conn == nil || o.Executor == nil {
		return nil, errors.New("ralph worker: no NATS connection or executor (internal error)")
	}
	if o.Repo == "" && o.Workspace == "" {
		return nil, errors.New("ralph worker: no --workspace to clone into")
	}
	if o.Concurrency <= 0 {
		o.Concurrency = 1
	}
	if o.Heartbeat <= 0 {
		o.Heartbeat = 2 * time.Second
	}
	if o.Emit == nil {
		o.Emit = func(ralph.Event) {}
	}
	if o.RepoLock == nil {
		o.RepoLock = &sync.Mutex{}
	}
	if o.Host == "" {
		o.Host, _ = os.Hostname()
	}
	if o.ID == "" {
		o.ID = fmt.Sprintf("%s-%d-%s", o.Host, os.Getpid(), randomHex(3))
	}
	js, err := jetstream.New(o.Conn)
	if err != nil {
		return nil, fmt.Errorf("ralph worker: jetstream: %w", err)
	}
	return &Worker{o: o, js: js, tasks: map[string]bool{}}, nil
}

// ID is the worker's id.
func (w *Worker) ID() string { return w.o.ID }

// Run works until ctx ends: Concurrency loops each fetch one task at a
// time (not while the run is paused or stopped), and a heartbeat every
// Heartbeat. It returns ctx's error, or why it could not reach the queue.
func (w *Worker) Run(ctx context.Context) error {
	cons, err := w.consumer(ctx)
	if err != nil {
		return err
	}
	ctl := newControlReader(ctx, w.js)
	w.mu.Lock()
	w.ctl, w.ackWait = ctl, cons.CachedInfo().Config.AckWait
	w.mu.Unlock()
	var wg sync.WaitGroup
	wg.Add(w.o.Concurrency + 1)
	go func() { defer wg.Done(); w.heartbeats(ctx, ctl) }()
	for range w.o.Concurrency {
		go func() { defer wg.Done(); w.loop(ctx, cons, ctl) }()
	}
	wg.Wait()
	return ctx.Err()
}

// consumer waits for the coordinator's work consumer.
func (w *Worker) consumer(ctx context.Context) (jetstream.Consumer, error) {
	for {
		cons, err := w.js.Consumer(ctx, TaskStream, WorkConsumer)
		if err == nil {
			return cons, nil
		}
		if !errors.Is(err, jetstream.ErrStreamNotFound) && !errors.Is(err, jetstream.ErrConsumerNotFound) {
			return nil, fmt.Errorf("ralph worker: work queue: %w", err)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func (w *Worker) loop(ctx context.Context, cons jetstream.Consumer, ctl *controlReader) {
	for ctx.Err() == nil {
		if ctl.state() != stateRunning {
			sleep(ctx, 100*time.Millisecond)
			continue
		}
		batch, err := cons.Fetch(1, jetstream.FetchMaxWait(time.Second))
		if err == nil {
			for msg := range batch.Messages() {
				w.handle(ctx, msg)
			}
			err = batch.Error()
		}
		if err != nil && !errors.Is(err, nats.ErrTimeout) && ctx.Err() == nil {
			// A new run recreates the consumer: look it up again.
			sleep(ctx, 200*time.Millisecond)
			cons = w.refresh(ctx, cons)
		}
	}
}

// refresh looks the work consumer up again (a new run recreated it); it
// keeps cons when the lookup fails.
func (w *Worker) refresh(ctx context.Context, cons jetstream.Consumer) jetstream.Consumer {
	c, err := w.js.Consumer(ctx, TaskStream, WorkConsumer)
	if err != nil {
		return cons
	}
	w.mu.Lock()
	w.ackWait = c.CachedInfo().Config.AckWait
	w.mu.Unlock()
	return c
}

func (w *Worker) heartbeats(ctx context.Context, ctl *controlReader) {
	t := time.NewTicker(w.o.Heartbeat)
	defer t.Stop()
	for {
		w.beat(ctl.state() == statePaused)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (w *Worker) beat(paused bool) {
	w.mu.Lock()
	hb := Heartbeat{Worker: w.o.ID, Host: w.o.Host, Tasks: []string{}, Concurrency: w.o.Concurrency, Paused: paused, At: time.Now().UTC()}
	for id := range w.tasks {
		hb.Tasks = append(hb.Tasks, id)
	}
	w.mu.Unlock()
	data, _ := json.Marshal(hb)
	_ = w.o.Conn.Publish(workerSubject+w.o.ID, data)
}

// setTask records a task taken or ended and reports it at once.
func (w *Worker) setTask(id string, on bool) {
	w.mu.Lock()
	if on {
		w.tasks[id] = true
	} else {
		delete(w.tasks, id)
	}
	ctl := w.ctl
	w.mu.Unlock()
	w.beat(ctl != nil && ctl.state() == statePaused)
}

// publish sends a result on the results stream (deduplicated by msgID),
// with its own time limit so an outcome goes out even as ctx ends.
func (w *Worker) publish(r ResultMsg, msgID string) error {
	r.Worker = w.o.ID
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = w.js.Publish(ctx, resultSubject+r.Run+"."+r.TaskID, data, jetstream.WithMsgID(msgID))
	return err
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// RepoHash names a repository's worktree folder: the first 16 hex digits
// of the SHA-256 of its absolute path or URL.
func RepoHash(repo string) string {
	sum := sha256.Sum256([]byte(repo))
	return hex.EncodeToString(sum[:8])
}

// worktreeDir is a task's worktree: <root>/<repo-hash>/<task>[-<attempt>].
func (w *Worker) worktreeDir(repoKey string, m TaskMsg) string {
	name := m.ID
	if m.Attempt > 0 {
		name = fmt.Sprintf("%s-%d", m.ID, m.Attempt)
	}
	return filepath.Join(w.o.WorktreeRoot, RepoHash(repoKey), name)
}
