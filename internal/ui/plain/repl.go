package plain

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"

	"github.com/zelvior/aidex/internal/agent"
)

// Runner is what the line mode drives: a prompt run on the engine, and the
// slash commands.
type Runner interface {
	// Run sends prompt to the model in the current session and reports
	// events until the run ends. ctx is cancelled by Ctrl+C.
	Run(ctx context.Context, prompt string, emit func(agent.Event)) error
	// Command runs a slash command line ("/cost"); it returns quit true for
	// /exit.
	Command(ctx context.Context, line string, out io.Writer) (quit bool, err error)
}

// REPL is the line mode's read-eval-print loop. Lines are read from In by
// one goroutine, so approvals and prompts share the same input.
type REPL struct {
	Printer *Printer
	Prompt  string

	in    *bufio.Reader
	lines chan lineOrErr
	once  sync.Once
}

type lineOrErr struct {
	line string
	err  error
}

// New returns a REPL reading from in and printing to out.
func New(in io.Reader, out io.Writer, color bool) *REPL {
	return &REPL{Printer: &Printer{Out: out, Color: color}, Prompt: "> ", in: bufio.NewReader(in)}
}

// Approver returns the approver that asks on this REPL's input.
func (r *REPL) Approver() agent.Approver { return &replApprover{r: r} }

// replApprover reads approval answers from the REPL's line channel.
type replApprover struct{ r *REPL }

func (a *replApprover) Approve(ctx context.Context, req agent.ApprovalInfo) (agent.Decision, string, error) {
	ap := &Approver{ReadLine: a.r.readLine, Printer: a.r.Printer}
	return ap.Approve(ctx, req)
}

// readLine returns the next input line, io.EOF at the end of input, or
// ctx's error.
func (r *REPL) readLine(ctx context.Context) (string, error) {
	select {
	case <-ctx.Done():
		return "", ctx.Err()
	case l, ok := <-r.readLines():
		if !ok {
			return "", io.EOF
		}
		return l.line, l.err
	}
}

func (r *REPL) readLines() <-chan lineOrErr {
	r.once.Do(func() {
		r.lines = make(chan lineOrErr)
		go func() {
			for {
				line, err := r.in.ReadString('\n')
				if line != "" || err == nil {
					r.lines <- lineOrErr{line: line}
				}
				if err != nil {
					r.lines <- lineOrErr{err: err}
					close(r.lines)
					return
				}
			}
		}()
	})
	return r.lines
}

// Loop reads prompts until /exit, end of input, or Ctrl+C twice at the
// prompt. Ctrl+C during a run stops the model and keeps the partial answer.
func (r *REPL) Loop(ctx context.Context, run Runner) error {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt)
	defer signal.Stop(sigs)
	out := r.Printer.Out
	interrupted := false
	for {
		fmt.Fprint(out, r.Prompt)
		var l lineOrErr
		var ok bool
		select {
		case <-ctx.Done():
			return nil
		case <-sigs:
			fmt.Fprintln(out)
			if interrupted {
				return nil
			}
			interrupted = true
			fmt.Fprintln(out, "(Ctrl+C again or /exit to quit)")
			continue
		case l, ok = <-r.readLines():
		}
		if !ok || l.err != nil {
			fmt.Fprintln(out)
			return nil
		}
		interrupted = false
		line := strings.TrimSpace(l.line)
		switch {
		case line == "":
			continue
		case strings.HasPrefix(line, "/"):
			quit, err := run.Command(ctx, line, out)
			if err != nil {
				fmt.Fprintf(out, "%s %v\n", r.Printer.paint(red, "error:"), err)
			}
			if quit {
				return nil
			}
		default:
			r.runOnce(ctx, run, line, sigs)
		}
	}
}

// runOnce runs one prompt; Ctrl+C cancels it.
func (r *REPL) runOnce(ctx context.Context, run Runner, prompt string, sigs <-chan os.Signal) {
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan struct{})
	go func() {
		select {
		case <-sigs:
			cancel()
		case <-done:
		}
	}()
	err := run.Run(rctx, prompt, r.Printer.Event)
	close(done)
	if err != nil && rctx.Err() == nil {
		fmt.Fprintf(r.Printer.Out, "%s %v\n", r.Printer.paint(red, "error:"), err)
	}
}
