package exec

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/zelvior/aidex/internal/tools/proc"
)

// Limits of the background processes.
const (
	// DefaultMaxBackgroundProcesses is how many background processes may
	// run at once when NewProcessTable is given 0.
	DefaultMaxBackgroundProcesses = 5
	// BackgroundRingLines is how many of the last lines of stdout and of
	// stderr each background process keeps.
	BackgroundRingLines = 500
	// backgroundKillGrace is the time between SIGTERM and SIGKILL for
	// kill_background_process and ProcessTable.Close.
	backgroundKillGrace = 5 * time.Second
	// maxRingLineBytes splits longer lines (progress bars without
	// newlines) so memory stays bounded.
	maxRingLineBytes = 4096
	// defaultBackgroundLines is get_background_output's default.
	defaultBackgroundLines = 50
	// keptFinished is how many exited processes stay listed.
	keptFinished = 20
)

// ErrTableClosed is returned by ProcessTable.Start after Close.
var ErrTableClosed = errors.New("the background process table is closed (aidex is shutting down)")

// ProcessTable holds one session's background processes (dev servers,
// watchers): their process groups and the last BackgroundRingLines lines
// of stdout and stderr of each. It is safe for concurrent use; Close kills
// every process still running (call it when the session or aidex ends).
type ProcessTable struct {
	mu     sync.Mutex
	max    int
	seq    int
	procs  []*bgProc // in start order
	closed bool
}

// NewProcessTable returns an empty table allowing maxRunning processes to
// run at once (0 or less means DefaultMaxBackgroundProcesses).
func NewProcessTable(maxRunning int) *ProcessTable {
	if maxRunning <= 0 {
		maxRunning = DefaultMaxBackgroundProcesses
	}
	return &ProcessTable{max: maxRunning}
}

// BackgroundSpec is a process to start in the background.
type BackgroundSpec struct {
	Command string   // shown in listings
	Argv    []string // program and arguments (argv[0] looked up in PATH)
	Dir     string   // absolute working directory
	Env     []string // full environment ("NAME=value")
	// Confine, when set, rewrites the command to run in the OS sandbox;
	// it is called after Dir, Env and the process group are set, before
	// Start, and its error keeps the command from starting.
	Confine func(cmd *exec.Cmd) error
	// End, when set, is called once the process and what is left of its
	// group ended (the sandbox's audit, tools.Auditor); the lines it
	// returns are added to the process's stderr.
	End func() []string
}

// ProcessInfo is the state of one background process.
type ProcessInfo struct {
	ID       string    // "bg1", "bg2", ...
	Command  string    // the command as given
	Dir      string    // absolute working directory
	PID      int       // process id (and process group id on Unix)
	Started  time.Time // start time
	Running  bool      // false once the process exited
	ExitCode int       // exit status once exited; -1 when killed by a signal
	State    string    // e.g. "exit status 1", "signal: terminated" once exited
	Ended    time.Time // exit time (zero while running)
	Killed   bool      // stopped by Kill or Close
}

type bgProc struct {
	id, command, dir string
	proc             *os.Process
	group            *proc.Group // its process group / Job Object
	started          time.Time
	stdout, stderr   *lineRing
	done             chan struct{} // closed once the process exited and output is drained

	// set before done is closed
	exitCode int
	state    string
	ended    time.Time
	// guarded by ProcessTable.mu
	killed bool
}

func (p *bgProc) running() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

func (p *bgProc) info(killed bool) ProcessInfo {
	pi := ProcessInfo{ID: p.id, Command: p.command, Dir: p.dir, PID: p.proc.Pid, Started: p.started,
		Running: p.running(), Killed: killed}
	if !pi.Running {
		pi.ExitCode, pi.State, pi.Ended = p.exitCode, p.state, p.ended
	}
	return pi
}

// Start starts s in its own process group with stdin closed and returns
// its id. It fails with ErrTableClosed after Close, with an error naming
// the running processes when max are already running, or when the
// program cannot start.
func (t *ProcessTable) Start(s BackgroundSpec) (string, error) {
	if len(s.Argv) == 0 {
		return "", errors.New("empty command")
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return "", ErrTableClosed
	}
	var running []string
	for _, p := range t.procs {
		if p.running() {
			running = append(running, p.id)
		}
	}
	if len(running) >= t.max {
		return "", fmt.Errorf("%d background processes are already running (%s), the maximum: "+
			"stop one with kill_background_process first", len(running), strings.Join(running, ", "))
	}
	p, err := startBackground(s)
	if err != nil {
		return "", err
	}
	t.seq++
	p.id = fmt.Sprintf("bg%d", t.seq)
	t.procs = append(t.procs, p)
	t.pruneLocked()
	return p.id, nil
}

// pruneLocked forgets the oldest exited processes beyond keptFinished.
func (t *ProcessTable) pruneLocked() {
	finished := 0
	for _, p := range t.procs {
		if !p.running() {
			finished++
		}
	}
	if finished <= keptFinished {
		return
	}
	out := t.procs[:0]
	for _, p := range t.procs {
		if finished > keptFinished && !p.running() {
			finished--
			continue
		}
		out = append(out, p)
	}
	clear(t.procs[len(out):])
	t.procs = out
}

func startBackground(s BackgroundSpec) (*bgProc, error) {
	cmd := exec.Command(s.Argv[0], s.Argv[1:]...)
	cmd.Dir, cmd.Env = s.Dir, s.Env
	g := proc.NewGroup(cmd)
	if s.Confine != nil {
		if err := s.Confine(cmd); err != nil {
			g.Close()
			return nil, fmt.Errorf("sandbox: %w", err)
		}
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		g.Close()
		return nil, fmt.Errorf("create stdout pipe: %w", err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		g.Close()
		return nil, fmt.Errorf("create stderr pipe: %w", err)
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	err = cmd.Start()
	outW.Close()
	errW.Close()
	if err == nil {
		if err = g.Attach(cmd.Process); err != nil {
			_ = cmd.Wait()
		}
	}
	if err != nil {
		outR.Close()
		errR.Close()
		g.Close()
		return nil, err
	}
	p := &bgProc{command: s.Command, dir: s.Dir, proc: cmd.Process, group: g, started: time.Now(),
		stdout: newLineRing(BackgroundRingLines), stderr: newLineRing(BackgroundRingLines), done: make(chan struct{})}
	outDone, errDone := pump(outR, p.stdout), pump(errR, p.stderr)
	go func() {
		_ = cmd.Wait()
		_ = g.Signal(true) // leftovers in the group
		g.Close()
		proc.DrainPipe(outR, outDone)
		proc.DrainPipe(errR, errDone)
		if s.End != nil {
			for _, l := range s.End() {
				p.stderr.write([]byte("aidex: sandbox: " + l + "; a sandboxed command cannot leave this (it would run later outside the sandbox)\n"))
			}
		}
		p.exitCode, p.state, p.ended = cmd.ProcessState.ExitCode(), cmd.ProcessState.String(), time.Now()
		close(p.done)
	}()
	return p, nil
}

// pump copies r into ring until end of file; the channel closes then.
func pump(r *os.File, ring *lineRing) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 32*1024)
		for {
			n, err := r.Read(buf)
			ring.write(buf[:n])
			if err != nil {
				return
			}
		}
	}()
	return done
}

func (t *ProcessTable) find(id string) (*bgProc, bool, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	id = strings.TrimSpace(id)
	var ids []string
	for _, p := range t.procs {
		if p.id == id {
			return p, p.killed, nil
		}
		ids = append(ids, p.id)
	}
	if len(ids) == 0 {
		return nil, false, fmt.Errorf("no background process %q: none has been started in this session", id)
	}
	return nil, false, fmt.Errorf("no background process %q: known ids are %s", id, strings.Join(ids, ", "))
}

// Info returns the state of process id; the error names the known ids.
func (t *ProcessTable) Info(id string) (ProcessInfo, error) {
	p, killed, err := t.find(id)
	if err != nil {
		return ProcessInfo{}, err
	}
	return p.info(killed), nil
}

// Output returns the last n lines (n <= 0 or > BackgroundRingLines means
// all kept) of stdout and of stderr of process id, and the number of
// lines each stream has printed in total.
func (t *ProcessTable) Output(id string, n int) (stdout, stderr []string, outTotal, errTotal int, err error) {
	p, _, err := t.find(id)
	if err != nil {
		return nil, nil, 0, 0, err
	}
	stdout, outTotal = p.stdout.last(n)
	stderr, errTotal = p.stderr.last(n)
	return stdout, stderr, outTotal, errTotal, nil
}

// List returns every process started and not yet forgotten, oldest
// first.
func (t *ProcessTable) List() []ProcessInfo {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]ProcessInfo, 0, len(t.procs))
	for _, p := range t.procs {
		out = append(out, p.info(p.killed))
	}
	return out
}

// Kill stops process id: SIGTERM to its process group, SIGKILL after
// grace (0 means 5 s). It returns once the process has exited (or ctx is
// done) with its final state; killing an exited process only reports it.
func (t *ProcessTable) Kill(ctx context.Context, id string, grace time.Duration) (ProcessInfo, error) {
	p, _, err := t.find(id)
	if err != nil {
		return ProcessInfo{}, err
	}
	if !p.running() {
		return t.Info(id)
	}
	t.mu.Lock()
	p.killed = true
	t.mu.Unlock()
	if err := stopBackground(ctx, p, grace); err != nil {
		return t.infoOf(p), err
	}
	return t.infoOf(p), nil
}

func (t *ProcessTable) infoOf(p *bgProc) ProcessInfo {
	t.mu.Lock()
	defer t.mu.Unlock()
	return p.info(p.killed)
}

func stopBackground(ctx context.Context, p *bgProc, grace time.Duration) error {
	if grace <= 0 {
		grace = backgroundKillGrace
	}
	_ = p.group.Signal(false)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-p.done:
		return nil
	case <-t.C:
	case <-ctx.Done():
	}
	_ = p.group.Signal(true)
	// After SIGKILL the waiter finishes within drainWait plus a second.
	t2 := time.NewTimer(5 * time.Second)
	defer t2.Stop()
	select {
	case <-p.done:
		return nil
	case <-t2.C:
		return fmt.Errorf("process %s (pid %d) did not exit after SIGKILL", p.id, p.proc.Pid)
	}
}

// Close kills every running process (SIGTERM to each process group, SIGKILL
// after 5 s, all in parallel) and refuses further starts. It waits until
// they have exited and always returns nil; calling it again is a no-op.
func (t *ProcessTable) Close() error {
	t.mu.Lock()
	t.closed = true
	var running []*bgProc
	for _, p := range t.procs {
		if p.running() {
			p.killed = true
			running = append(running, p)
		}
	}
	t.mu.Unlock()
	var wg sync.WaitGroup
	for _, p := range running {
		wg.Go(func() { _ = stopBackground(context.Background(), p, backgroundKillGrace) })
	}
	wg.Wait()
	return nil
}
