// Package proc runs the processes of the tool families (commands, git,
// version probes) the same way everywhere: in their own process group,
// with stdout and stderr combined into one capped stream, killed as a
// group on timeout or cancellation, with credentials kept out of their
// environment (ChildEnviron). It also turns an Outcome into a tool Result.
package proc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/zelvior/aidex/internal/tools"
)

// Limits of the processes tools run.
const (
	// MaxCommandTimeout is the largest timeout a model may ask for; larger
	// values are clamped to it.
	MaxCommandTimeout = 600 * time.Second
	// commandKillGrace is the time between SIGTERM and SIGKILL when a
	// command times out or is cancelled.
	commandKillGrace = 2 * time.Second
	// drainWait bounds how long output is still read after the command and
	// its process group are gone (a daemonised grandchild may hold the
	// pipe open).
	drainWait = 500 * time.Millisecond
)

// Spec describes one foreground process for Run.
type Spec struct {
	// Argv is the program (looked up in PATH) and its arguments; it must
	// not be empty.
	Argv []string
	// Dir is the absolute working directory.
	Dir string
	// Env is the whole environment ("NAME=value").
	Env []string
	// Stdin is the program's input; "" means stdin is /dev/null.
	Stdin string
	// Timeout bounds the run; past it the process group is killed.
	Timeout time.Duration
	// MaxChars caps the output kept, in characters (see NewHeadTail);
	// 0 means DefaultMaxOutputChars.
	MaxChars int
	// Tee, when set, also receives the whole output as it comes (the
	// copy saved behind a handle when Output is cut); it must not block
	// and its errors are ignored.
	Tee io.Writer
	// Confine, when set, rewrites the command to run in the OS sandbox
	// (tools.Confiner.Confine); Run calls it after Dir, Env and the
	// process group are set, before Start. Its error keeps the command
	// from starting (Outcome.Err, Ran false).
	Confine func(cmd *exec.Cmd) error
}

// Outcome is what happened to a foreground process.
type Outcome struct {
	// Output is stdout and stderr combined, valid UTF-8, capped at
	// Spec.MaxChars (head and tail kept).
	Output string
	// Truncated reports that Output was cut.
	Truncated bool
	// Ran reports that the process started.
	Ran bool
	// ExitCode is the exit status; -1 when killed by a signal.
	ExitCode int
	// TimedOut reports that Spec.Timeout passed and the group was killed.
	TimedOut bool
	// Cancelled reports that the context ended and the group was killed.
	Cancelled bool
	// Err is a start failure or a wait error (not a non-zero exit).
	Err error
	// State describes how the process ended ("exit status 1",
	// "signal: killed").
	State string
}

// Run runs s.Argv in its own process group with stdout and stderr
// combined into one capped stream. On timeout or ctx cancellation the
// whole group gets SIGTERM, then SIGKILL after commandKillGrace. When the
// command exits, processes it left running in its group are killed too.
func Run(ctx context.Context, s Spec) Outcome {
	cmd := exec.Command(s.Argv[0], s.Argv[1:]...)
	cmd.Dir, cmd.Env = s.Dir, s.Env
	if s.Stdin != "" {
		cmd.Stdin = strings.NewReader(s.Stdin)
	}
	g := NewGroup(cmd)
	defer g.Close()
	if s.Confine != nil {
		if err := s.Confine(cmd); err != nil {
			return Outcome{Err: fmt.Errorf("sandbox: %w", err)}
		}
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return Outcome{Err: fmt.Errorf("create output pipe: %w", err)}
	}
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		pr.Close()
		pw.Close()
		return Outcome{Err: err}
	}
	pw.Close()
	if err := g.Attach(cmd.Process); err != nil {
		pr.Close()
		_ = cmd.Wait()
		return Outcome{Err: err}
	}
	buf := NewHeadTail(s.MaxChars)
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		_, _ = io.Copy(s.sink(buf), pr)
	}()
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()

	o := Outcome{Ran: true}
	timer := time.NewTimer(s.Timeout)
	defer timer.Stop()
	select {
	case o.Err = <-waited:
	case <-timer.C:
		o.TimedOut = true
		o.Err = stopProcess(g, waited, commandKillGrace)
	case <-ctx.Done():
		o.Cancelled = true
		o.Err = stopProcess(g, waited, commandKillGrace)
	}
	_ = g.Signal(true) // leftovers in the group
	DrainPipe(pr, copied)
	o.Output, o.Truncated = buf.String()
	o.ExitCode = cmd.ProcessState.ExitCode()
	o.State = cmd.ProcessState.String()
	var ee *exec.ExitError
	if errors.As(o.Err, &ee) {
		o.Err = nil // a non-zero exit is reported through exitCode
	}
	return o
}

// sink is where the output goes: buf, and Tee too when set.
func (s Spec) sink(buf *HeadTail) io.Writer {
	if s.Tee == nil {
		return buf
	}
	return io.MultiWriter(buf, s.Tee)
}

// stopProcess sends SIGTERM to p's group, waits grace for the process to
// exit, then sends SIGKILL and waits for it.
func stopProcess(g *Group, waited <-chan error, grace time.Duration) error {
	_ = g.Signal(false)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case err := <-waited:
		return err
	case <-t.C:
		_ = g.Signal(true)
		return <-waited
	}
}

// DrainPipe waits briefly (500 ms) for the goroutine reading pr to see end
// of file (copied closes then), then closes pr so a grandchild that
// escaped the process group cannot keep it (and the tool call) alive, and
// waits up to a second more for the reader to stop.
func DrainPipe(pr *os.File, copied <-chan struct{}) {
	t := time.NewTimer(drainWait)
	defer t.Stop()
	select {
	case <-copied:
	case <-t.C:
	}
	pr.Close()
	t2 := time.NewTimer(time.Second)
	defer t2.Stop()
	select {
	case <-copied:
	case <-t2.C: // platforms where Close does not interrupt a blocked Read
	}
}

// Result turns the outcome into the tool result; what names the program
// ("command", "python", "git") and timeout and note are those of the run
// (note, e.g. about a clamped timeout, starts the output). A program that
// could not start is CategoryNotFound when missing, else
// CategoryExecution; a timeout, a cancellation, a signal or a non-zero
// exit is a failed Result of CategoryExecution that keeps the output and
// Meta.ExitCode.
func (o Outcome) Result(what string, timeout time.Duration, note string) tools.Result {
	if !o.Ran {
		if errors.Is(o.Err, exec.ErrNotFound) || errors.Is(o.Err, fs.ErrNotExist) {
			return tools.Failf(tools.CategoryNotFound, "%s could not start: %v", what, o.Err)
		}
		return tools.Failf(tools.CategoryExecution, "%s could not start: %v", what, o.Err)
	}
	var b strings.Builder
	b.WriteString(note)
	b.WriteString(o.Output)
	if o.Output != "" && !strings.HasSuffix(o.Output, "\n") {
		b.WriteByte('\n')
	}
	code := o.ExitCode
	meta := &tools.Meta{ExitCode: &code, Truncated: o.Truncated}
	switch {
	case o.TimedOut:
		fmt.Fprintf(&b, "[timed out after %s; the %s and every process it started were killed]", timeout, what)
		r := tools.Failf(tools.CategoryExecution, "%s timed out after %s and was killed; raise timeout (max %d s) or use "+
			"run_background_process for long-running programs", what, timeout, int(MaxCommandTimeout/time.Second))
		r.Output, r.Meta = b.String(), meta
		return r
	case o.Cancelled:
		fmt.Fprintf(&b, "[cancelled; the %s was killed]", what)
		r := tools.Failf(tools.CategoryExecution, "%s cancelled before it finished", what)
		r.Output, r.Meta = b.String(), meta
		return r
	case o.Err != nil:
		r := tools.Failf(tools.CategoryExecution, "%s failed: %v", what, o.Err)
		r.Output, r.Meta = b.String(), meta
		return r
	}
	if code < 0 {
		fmt.Fprintf(&b, "[%s: %s]", what, o.State)
		r := tools.Failf(tools.CategoryExecution, "%s was killed (%s)", what, o.State)
		r.Output, r.Meta = b.String(), meta
		return r
	}
	fmt.Fprintf(&b, "[exit code: %d]", code)
	if code != 0 {
		r := tools.Failf(tools.CategoryExecution, "exit code %d", code)
		r.Output, r.Meta = b.String(), meta
		return r
	}
	return tools.Success(b.String(), meta)
}
