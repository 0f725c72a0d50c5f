package ralph

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/zelvior/aidex/internal/atomicfile"
)

// Errors of the Service's run control.
var (
	// ErrRunning: a Ralph run is already going in this workspace (this
	// process or another); the list cannot be cleared and a second run
	// cannot start.
	ErrRunning = errors.New("a Ralph run is going in this workspace: stop it first (aidex ralph stop)")
	// ErrNotRunning: stop, pause or resume was asked with no run going.
	ErrNotRunning = errors.New("no Ralph run is going in this workspace")
	// ErrNoBackend: Run or Plan was called on a Service built without a
	// Backend.
	ErrNoBackend = errors.New("ralph: this service has no model backend (internal error)")
)

// Options configure a [Service]. Workspace is the absolute workspace
// directory (its ralph_tasks.json is the list); Backend runs the model
// (nil: only the task-list operations work); Now stamps times (nil:
// time.Now).
type Options struct {
	Workspace string
	Backend   Backend
	Now       func() time.Time
}

// Service is Ralph for one workspace: the task list, the loop that works
// through it, and its run control. The CLI, the TUI and the web UI all
// drive it; it never prints — Run and Plan report through events.
//
// Run control works across processes through files in
// <workspace>/.aidex/: ralph.run (an OS lock held for the whole run, with
// the runner's pid), ralph.stop (stop after the current task) and
// ralph.pause (wait before the next task). So `aidex ralph stop` in one
// terminal stops a run in another, or in the web UI.
type Service struct {
	ws      string
	store   *Store
	backend Backend
	now     func() time.Time
	ctl     string // <workspace>/.aidex

	mu      sync.Mutex
	running bool
	current string
	wake    chan struct{}
}

// NewService returns the service of a workspace. It does no I/O.
func NewService(o Options) *Service {
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Service{ws: o.Workspace, store: NewStore(o.Workspace, o.Now), backend: o.Backend, now: o.Now,
		ctl: filepath.Join(o.Workspace, ".aidex"), wake: make(chan struct{}, 1)}
}

// Store returns the task list's store.
func (s *Service) Store() *Store { return s.store }

// Workspace returns the workspace directory.
func (s *Service) Workspace() string { return s.ws }

// List returns the tasks in list order.
func (s *Service) List() ([]Task, error) { return s.store.Tasks() }

// Get returns the task ref names (id, title or slug).
func (s *Service) Get(ref string) (Task, error) { return s.store.Get(ref) }

// Add appends tasks (see [Store.Add]) and returns them as stored.
func (s *Service) Add(ctx context.Context, tasks ...Task) ([]Task, error) {
	return s.store.Add(ctx, tasks...)
}

// Update changes a task with fn (see [Store.Edit]). The task the loop is
// running cannot be edited.
func (s *Service) Update(ctx context.Context, ref string, fn func(t *Task) error) (Task, error) {
	if err := s.refuseCurrent(ref); err != nil {
		return Task{}, err
	}
	return s.store.Edit(ctx, ref, fn)
}

// Remove deletes a task; the task the loop is running cannot be removed.
func (s *Service) Remove(ctx context.Context, ref string) (Task, error) {
	if err := s.refuseCurrent(ref); err != nil {
		return Task{}, err
	}
	return s.store.Remove(ctx, ref)
}

// Clear removes every task and returns how many there were. ErrRunning
// while a run is going.
func (s *Service) Clear(ctx context.Context) (int, error) {
	if running, _ := s.isRunning(); running {
		return 0, ErrRunning
	}
	return s.store.Clear(ctx)
}

// Reset puts a task back to pending (see [Store.Reset]). The task the loop
// is running cannot be reset.
func (s *Service) Reset(ctx context.Context, ref string) (Task, error) {
	if err := s.refuseCurrent(ref); err != nil {
		return Task{}, err
	}
	return s.store.Reset(ctx, ref)
}

// Import adds the tasks of a markdown checklist or JSON list (see
// [ParseImport]); name is the file's name for errors.
func (s *Service) Import(ctx context.Context, name string, data []byte) ([]Task, error) {
	tasks, err := ParseImport(name, data)
	if err != nil {
		return nil, err
	}
	return s.store.Add(ctx, tasks...)
}

// ImportAyder adds the tasks of an ayder-cli tasks folder (see
// ReadAyderTasks) that the list does not hold yet (by id) and saves the
// list; it returns the tasks added (those read from the folder while
// ralph_tasks.json did not exist count as added) and how many were already
// there.
//
// Errors: the folder holds no task files; a task file without a title; a
// task list that cannot be written.
func (s *Service) ImportAyder(ctx context.Context, dir string) (added []Task, present int, err error) {
	tasks, err := ReadAyderTasks(dir)
	if err != nil {
		return nil, 0, err
	}
	if len(tasks) == 0 {
		return nil, 0, fmt.Errorf("%s holds no ayder task files (TASK-NNN-slug.md): name a folder like .ayder/tasks, or a markdown checklist or JSON file", dir)
	}
	err = s.store.Change(ctx, func(l *List) error {
		added, present = added[:0], 0
		now := s.store.now().UTC()
		for _, t := range tasks {
			if i := l.index(t.ID); i >= 0 && l.From != "" {
				added = append(added, l.Tasks[i]) // read from the folder, saved now
				continue
			} else if i >= 0 {
				present++
				continue
			}
			a, err := l.add(t.Clone(), now)
			if err != nil {
				return err
			}
			added = append(added, a)
		}
		return nil
	})
	return added, present, err
}

// refuseCurrent refuses changes to the in_progress task of a running loop.
func (s *Service) refuseCurrent(ref string) error {
	running, _ := s.isRunning()
	if !running {
		return nil
	}
	t, err := s.store.Get(ref)
	if err != nil {
		return err
	}
	if t.Status == StatusInProgress {
		return fmt.Errorf("task %s is being worked on by the running loop: stop the run first (aidex ralph stop)", t.ID)
	}
	return nil
}

// RunState is the run state of a workspace with the list's counts, as the
// web UI's GET /api/ralph reports it. Current is the task being worked
// on; PID the running process (0 when unknown).
//
// Workers are the workers of a run with several (aidex ralph run
// --workers N, ralph serve), as the coordinator last saw them; empty for
// a one-worker run.
type RunState struct {
	Running       bool           `json:"running"`
	Paused        bool           `json:"paused"`
	StopRequested bool           `json:"stop_requested"`
	Current       string         `json:"current,omitempty"`
	PID           int            `json:"pid,omitempty"`
	Counts        map[Status]int `json:"counts"`
	Workers       []WorkerRow    `json:"workers,omitempty"`
}

// WorkerRow is one worker of a run with several: its id and host, the
// tasks it works on (none: idle), whether it is paused, and when it last
// reported.
type WorkerRow struct {
	ID            string    `json:"id"`
	Host          string    `json:"host,omitempty"`
	Tasks         []string  `json:"tasks"`
	Paused        bool      `json:"paused,omitempty"`
	LastHeartbeat time.Time `json:"last_heartbeat"`
}

// SetWorkers records the workers of the claimed run for State and
// Snapshot, in this process and others (<workspace>/.aidex/ralph.workers);
// the record goes when the run ends.
func (s *Service) SetWorkers(rows []WorkerRow) error {
	data, err := json.Marshal(rows)
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(s.path("ralph.workers"), data, 0o644); err != nil {
		return fmt.Errorf("ralph: record the workers: %w", err)
	}
	return nil
}

// workers reads the workers the running coordinator recorded.
func (s *Service) workers() []WorkerRow {
	data, err := os.ReadFile(s.path("ralph.workers"))
	if err != nil || len(data) > 1<<20 {
		return nil
	}
	var rows []WorkerRow
	if json.Unmarshal(data, &rows) != nil {
		return nil
	}
	return rows
}

// Snapshot is the task list with the run state.
//
// From is the folder the tasks were read from while ralph_tasks.json does
// not exist yet (ayder-cli's .ayder/tasks; see List.From).
type Snapshot struct {
	Tasks []Task `json:"tasks"`
	From  string `json:"from,omitempty"`
	RunState
}

// State reports the run state (this process's run, or another's) and
// the list's counts.
func (s *Service) State() (RunState, error) {
	snap, err := s.Snapshot()
	return snap.RunState, err
}

// Snapshot returns the tasks and the run state.
func (s *Service) Snapshot() (Snapshot, error) {
	l, err := s.store.Load()
	if err != nil {
		return Snapshot{}, err
	}
	tasks := l.Tasks
	if tasks == nil {
		tasks = []Task{}
	}
	st := RunState{Counts: Counts(tasks)}
	st.Running, st.PID = s.isRunning()
	if st.Running {
		st.Workers = s.workers()
		st.Paused = s.exists("ralph.pause")
		st.StopRequested = s.exists("ralph.stop")
		s.mu.Lock()
		st.Current = s.current
		s.mu.Unlock()
		if st.Current == "" {
			for _, t := range tasks {
				if t.Status == StatusInProgress {
					st.Current = t.ID
					break
				}
			}
		}
	}
	return Snapshot{Tasks: tasks, From: l.From, RunState: st}, nil
}

// Stop asks the running loop (of any process) to end after the current
// task. ErrNotRunning when no run is going.
func (s *Service) Stop() error {
	if err := s.signal("ralph.stop"); err != nil {
		return err
	}
	s.poke()
	return nil
}

// Pause asks the running loop to wait before starting the next task (the
// current one finishes). ErrNotRunning when no run is going.
func (s *Service) Pause() error { return s.signal("ralph.pause") }

// Resume lets a paused loop go on. ErrNotRunning when no run is going.
func (s *Service) Resume() error {
	if running, _ := s.isRunning(); !running {
		return ErrNotRunning
	}
	if err := os.Remove(s.path("ralph.pause")); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("resume: %w", err)
	}
	s.poke()
	return nil
}

func (s *Service) signal(name string) error {
	if running, _ := s.isRunning(); !running {
		return ErrNotRunning
	}
	if err := os.WriteFile(s.path(name), []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", s.path(name), err)
	}
	return nil
}

func (s *Service) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *Service) path(name string) string { return filepath.Join(s.ctl, name) }

func (s *Service) exists(name string) bool {
	_, err := os.Stat(s.path(name))
	return err == nil
}

// isRunning reports whether a loop runs in this workspace (here or in
// another process) and, for another process, its pid.
func (s *Service) isRunning() (bool, int) {
	s.mu.Lock()
	local := s.running
	s.mu.Unlock()
	if local {
		return true, os.Getpid()
	}
	if _, err := os.Stat(s.path("ralph.run")); err != nil {
		return false, 0
	}
	unlock, err := tryLock(s.path("ralph.run"))
	if err == nil {
		unlock()
		return false, 0
	}
	return true, s.runnerPID()
}

func (s *Service) runnerPID() int {
	data, err := os.ReadFile(s.path("ralph.run"))
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	return pid
}

// claim marks the run as started: it takes the run lock (ErrRunning when
// another run holds it), records the pid and clears stale stop/pause
// markers. The returned func releases everything.
func (s *Service) claim() (func(), error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.running {
		return nil, ErrRunning
	}
	if err := ensureControlDir(s.ctl); err != nil {
		return nil, fmt.Errorf("ralph: %w", err)
	}
	unlock, err := tryLock(s.path("ralph.run"))
	if errors.Is(err, errLocked) {
		return nil, ErrRunning
	}
	if err != nil {
		return nil, fmt.Errorf("ralph: lock %s: %w", s.path("ralph.run"), err)
	}
	_ = os.WriteFile(s.path("ralph.run"), []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644)
	_ = os.Remove(s.path("ralph.stop"))
	_ = os.Remove(s.path("ralph.pause"))
	s.drainWake()
	s.running = true
	_ = os.Remove(s.path("ralph.workers"))
	return func() {
		_ = os.Remove(s.path("ralph.workers"))
		_ = os.Remove(s.path("ralph.stop"))
		_ = os.Remove(s.path("ralph.pause"))
		_ = os.WriteFile(s.path("ralph.run"), nil, 0o644)
		unlock()
		s.mu.Lock()
		s.running, s.current = false, ""
		s.mu.Unlock()
	}, nil
}

func (s *Service) drainWake() {
	select {
	case <-s.wake:
	default:
	}
}

func (s *Service) setCurrent(id string) {
	s.mu.Lock()
	s.current = id
	s.mu.Unlock()
}

// Claim takes the workspace's run (the lock a loop holds) for a driver
// other than Run: the distributed coordinator. ErrRunning when a run is
// going; release gives it back. Stop, Pause, Resume and State work on a
// claimed run as on Run's.
func (s *Service) Claim() (release func(), err error) { return s.claim() }

// StopRequested reports whether a stop was asked of the running loop.
func (s *Service) StopRequested() bool { return s.exists("ralph.stop") }

// PauseRequested reports whether the running loop is asked to pause.
func (s *Service) PauseRequested() bool { return s.exists("ralph.pause") }

// Wake is signalled when Stop or Resume is asked in this process (other
// processes only write the markers: poll StopRequested and PauseRequested
// too).
func (s *Service) Wake() <-chan struct{} { return s.wake }
