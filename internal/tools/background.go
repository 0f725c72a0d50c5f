package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/zelvior/aidex/internal/kind"
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
	setProcGroup(cmd)
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("create stdout pipe: %w", err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, fmt.Errorf("create stderr pipe: %w", err)
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	err = cmd.Start()
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		return nil, err
	}
	p := &bgProc{command: s.Command, dir: s.Dir, proc: cmd.Process, started: time.Now(),
		stdout: newLineRing(BackgroundRingLines), stderr: newLineRing(BackgroundRingLines), done: make(chan struct{})}
	outDone, errDone := pump(outR, p.stdout), pump(errR, p.stderr)
	go func() {
		_ = cmd.Wait()
		_ = signalGroup(cmd.Process, true) // leftovers in the group
		drainPipe(outR, outDone)
		drainPipe(errR, errDone)
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
	_ = signalGroup(p.proc, false)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-p.done:
		return nil
	case <-t.C:
	case <-ctx.Done():
	}
	_ = signalGroup(p.proc, true)
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

// lineRing keeps the last n lines written to it. Safe for concurrent use.
type lineRing struct {
	mu      sync.Mutex
	lines   []string // ring storage
	next    int      // index of the slot written next
	full    bool
	partial []byte // current line without its newline
	total   int    // complete lines written
}

func newLineRing(n int) *lineRing { return &lineRing{lines: make([]string, n)} }

func (r *lineRing) write(p []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			room := maxRingLineBytes - len(r.partial)
			if len(p) <= room {
				r.partial = append(r.partial, p...)
				return
			}
			r.partial = append(r.partial, p[:room]...)
			p = p[room:]
			r.commit()
			continue
		}
		chunk := p[:i]
		if room := maxRingLineBytes - len(r.partial); len(chunk) > room {
			chunk = chunk[:max(room, 0)] // the rest of an overlong line is dropped
		}
		r.partial = append(r.partial, chunk...)
		r.commit()
		p = p[i+1:]
	}
}

func (r *lineRing) commit() {
	line := strings.ToValidUTF8(strings.TrimSuffix(string(r.partial), "\r"), "\uFFFD")
	r.partial = r.partial[:0]
	r.lines[r.next] = line
	r.next = (r.next + 1) % len(r.lines)
	r.full = r.full || r.next == 0
	r.total++
}

// last returns up to n of the newest lines (an unfinished last line
// included) and the number of lines written in total.
func (r *lineRing) last(n int) ([]string, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	kept := r.next
	if r.full {
		kept = len(r.lines)
	}
	var all []string
	for i := range kept {
		all = append(all, r.lines[(r.next-kept+i+len(r.lines))%len(r.lines)])
	}
	total := r.total
	if len(r.partial) > 0 {
		all = append(all, strings.ToValidUTF8(string(r.partial), "\uFFFD"))
		total++
	}
	if n > 0 && len(all) > n {
		all = all[len(all)-n:]
	}
	return all, total
}

type runBackgroundArgs struct {
	Command string `json:"command" jsonschema:"Shell command line, e.g. npm run dev"`
	Cwd     string `json:"cwd,omitempty" jsonschema:"Working directory inside the workspace" tool:"path" default:"\".\""`
}

type backgroundIDArgs struct {
	ID string `json:"id" jsonschema:"Process id from run_background_process, e.g. bg1"`
}

type backgroundOutputArgs struct {
	ID    string `json:"id" jsonschema:"Process id, e.g. bg1"`
	Lines int    `json:"lines,omitempty" jsonschema:"Last lines of stdout and of stderr to show (max 500)" default:"50"`
}

type noArgs struct{}

// table returns the session's process table. When Env gains a Procs field
// this prefers env.Procs.
func (o ExecOptions) table(_ *Env) *ProcessTable { return o.Procs }

func noTable() Result {
	return Failf(CategoryExecution, "background processes are not available in this session; use run_command")
}

func backgroundTools(opts ExecOptions) []Def {
	return []Def{
		Define(Spec{Name: "run_background_process", Kind: kind.Exec, Standard: true,
			Aliases:     []string{"start_background_process", "run_in_background"},
			Description: "Start a long-running shell command (dev server, watcher) in the background; returns an id for get_background_output and kill_background_process.", Shell: true, Subject: ArgSubject("command")},
			func(ctx context.Context, env *Env, a runBackgroundArgs) Result { return opts.runBackground(env, a) }),
		Define(Spec{Name: "get_background_output", Kind: kind.Other, Standard: true,
			Aliases:     []string{"read_background_output", "background_output"},
			Description: "Show the last lines of stdout and stderr of a background process and whether it is still running.", Shell: true, Bookkeeping: true},
			func(ctx context.Context, env *Env, a backgroundOutputArgs) Result {
				return opts.backgroundOutput(env, a)
			}),
		// Kind other, not exec: it only stops a process this session
		// started, and the permission policy judges exec calls by their
		// command line, which this call does not have.
		Define(Spec{Name: "kill_background_process", Kind: kind.Other, Standard: true,
			Aliases:     []string{"stop_background_process"},
			Description: "Stop a background process and everything it started (SIGTERM, then SIGKILL after 5 s).", Shell: true, Bookkeeping: true},
			func(ctx context.Context, env *Env, a backgroundIDArgs) Result {
				return opts.killBackground(ctx, env, a)
			}),
		Define(Spec{Name: "list_background_processes", Kind: kind.Other, Standard: true,
			Description: "List the background processes of this session with their status.", Shell: true, Bookkeeping: true},
			func(ctx context.Context, env *Env, _ noArgs) Result { return opts.listBackground(env) }),
	}
}

func (o ExecOptions) runBackground(env *Env, a runBackgroundArgs) Result {
	t := o.table(env)
	if t == nil {
		return noTable()
	}
	if strings.TrimSpace(a.Command) == "" || strings.ContainsRune(a.Command, 0) {
		return Failf(CategoryValidation, "run_background_process: command is empty or contains a NUL byte; give a shell command line")
	}
	dir, res := resolveDir(env, "cwd", a.Cwd)
	if res != nil {
		return *res
	}
	argv, err := o.shellArgv(a.Command)
	if err != nil {
		return Failf(CategoryNotFound, "run_background_process: %v", err)
	}
	environ := o.environ()
	environ = append(environ, repoGitEnv(context.Background(), dir, environ)...)
	id, err := t.Start(BackgroundSpec{Command: a.Command, Argv: argv, Dir: dir, Env: environ})
	switch {
	case errors.Is(err, ErrTableClosed):
		return Failf(CategoryExecution, "run_background_process: %v", err)
	case err != nil && strings.Contains(err.Error(), "already running"):
		return Failf(CategoryValidation, "run_background_process: %v", err)
	case err != nil:
		return Failf(CategoryExecution, "run_background_process could not start the command: %v", err)
	}
	info, _ := t.Info(id)
	return Success(fmt.Sprintf("Started %s (pid %d) in %s: %s\nCheck it with get_background_output {\"id\": %q}; stop it with kill_background_process.",
		id, info.PID, env.rel(dir), a.Command, id), nil)
}

func (o ExecOptions) backgroundOutput(env *Env, a backgroundOutputArgs) Result {
	t := o.table(env)
	if t == nil {
		return noTable()
	}
	if a.Lines < 0 {
		return Failf(CategoryValidation, "get_background_output: lines must be positive (max %d)", BackgroundRingLines)
	}
	n := a.Lines
	if n == 0 {
		n = defaultBackgroundLines
	}
	n = min(n, BackgroundRingLines)
	info, err := t.Info(a.ID)
	if err != nil {
		return Failf(CategoryNotFound, "get_background_output: %v", err)
	}
	stdout, stderr, outTotal, errTotal, _ := t.Output(a.ID, n)
	var b strings.Builder
	b.WriteString(describeProcess(info, env))
	b.WriteByte('\n')
	writeStream(&b, "stdout", stdout, outTotal)
	writeStream(&b, "stderr", stderr, errTotal)
	return capResult(b.String(), o.MaxOutputChars, info)
}

func capResult(s string, maxChars int, info ProcessInfo) Result {
	w := newHeadTail(maxChars)
	_, _ = w.Write([]byte(s))
	out, cut := w.String()
	meta := &Meta{Truncated: cut}
	if !info.Running {
		code := info.ExitCode
		meta.ExitCode = &code
	}
	return Success(out, meta)
}

func writeStream(b *strings.Builder, name string, lines []string, total int) {
	switch {
	case total == 0:
		fmt.Fprintf(b, "--- %s: no output ---\n", name)
		return
	case len(lines) < total:
		fmt.Fprintf(b, "--- %s: last %d of %d lines ---\n", name, len(lines), total)
	default:
		fmt.Fprintf(b, "--- %s: %d lines ---\n", name, total)
	}
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
}

// describeProcess is one line: "bg1 running (pid 42, 3s): npm run dev".
func describeProcess(p ProcessInfo, env *Env) string {
	dir := p.Dir
	if env != nil && env.Workspace != nil {
		dir = env.rel(p.Dir)
	}
	if p.Running {
		return fmt.Sprintf("%s running (pid %d, for %s, in %s): %s", p.ID, p.PID,
			time.Since(p.Started).Round(time.Second), dir, p.Command)
	}
	how := fmt.Sprintf("exited with code %d", p.ExitCode)
	if p.ExitCode < 0 {
		how = "ended (" + p.State + ")"
	}
	if p.Killed {
		how += ", stopped by kill"
	}
	return fmt.Sprintf("%s %s after %s (pid %d, in %s): %s", p.ID, how,
		p.Ended.Sub(p.Started).Round(time.Millisecond), p.PID, dir, p.Command)
}

func (o ExecOptions) killBackground(ctx context.Context, env *Env, a backgroundIDArgs) Result {
	t := o.table(env)
	if t == nil {
		return noTable()
	}
	before, err := t.Info(a.ID)
	if err != nil {
		return Failf(CategoryNotFound, "kill_background_process: %v", err)
	}
	if !before.Running {
		return Success("Nothing to do: "+describeProcess(before, env), nil)
	}
	info, err := t.Kill(ctx, a.ID, backgroundKillGrace)
	if err != nil {
		return Failf(CategoryExecution, "kill_background_process: %v", err)
	}
	code := info.ExitCode
	return Success("Stopped: "+describeProcess(info, env), &Meta{ExitCode: &code})
}

func (o ExecOptions) listBackground(env *Env) Result {
	t := o.table(env)
	if t == nil {
		return noTable()
	}
	list := t.List()
	if len(list) == 0 {
		return Success("No background processes in this session.", nil)
	}
	var b strings.Builder
	for _, p := range list {
		b.WriteString(describeProcess(p, env))
		b.WriteByte('\n')
	}
	return Success(b.String(), nil)
}
