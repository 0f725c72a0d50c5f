package plain

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
)

// Type-ahead: on a terminal, lines typed while a run goes on are queued
// (REPL.queued), each confirmed with a "queued: ..." line, and run in
// order when the run ends, as if typed at the prompt then. While an
// approval waits, the next line answers it instead. Ctrl+C during a run
// drops the queued lines first; a second Ctrl+C stops the model. With
// input that is not a terminal (a script piped in), lines are read one
// after another as before: a line after a prompt may answer its
// approvals.

// isTerminalReader reports whether r is a terminal (a character device).
func isTerminalReader(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// askLine asks the running run's input loop (await) for the next line:
// the answer of an approval (l.err is io.EOF at the end of input). routed
// is false when no run loop owns the input.
func (r *REPL) askLine(ctx context.Context) (l lineOrErr, routed bool) {
	if !r.routing.Load() {
		return lineOrErr{}, false
	}
	reply := make(chan lineOrErr, 1)
	select {
	case r.asks <- reply:
	case <-ctx.Done():
		return lineOrErr{err: ctx.Err()}, true
	}
	select {
	case l, open := <-reply:
		if !open {
			return lineOrErr{err: io.EOF}, true
		}
		return l, true
	case <-ctx.Done():
		return lineOrErr{err: ctx.Err()}, true
	}
}

// await owns the input while a run goes on, until done is closed: it
// queues typed lines, hands the next line to a waiting approval, and
// answers Ctrl+C by dropping the queue, then by cancel.
func (r *REPL) await(done <-chan struct{}, cancel context.CancelFunc, sigs <-chan os.Signal) {
	defer r.routing.Store(false)
	var lines <-chan lineOrErr
	if r.routing.Load() {
		lines = r.readLines()
	}
	var pending chan lineOrErr // an approval waiting for a line
	for {
		select {
		case <-done:
			return
		case <-sigs:
			if n := len(r.queued); n > 0 {
				r.queued = nil
				r.Printer.Line(fmt.Sprintf("(dropped %d queued message%s; Ctrl+C again stops the model)", n, plural(n)))
				continue
			}
			cancel()
		case reply := <-r.asks:
			if r.inputDone {
				close(reply)
				continue
			}
			pending = reply
		case l, ok := <-lines:
			switch {
			case !ok:
				r.inputDone, lines = true, nil
				if pending != nil {
					close(pending)
					pending = nil
				}
			case pending != nil:
				pending <- l
				pending = nil
			default:
				r.enqueue(l)
			}
		}
	}
}

// enqueue queues a line typed during a run.
func (r *REPL) enqueue(l lineOrErr) {
	line := strings.TrimSpace(l.line)
	if l.err != nil || line == "" {
		return
	}
	r.queued = append(r.queued, line)
	r.Printer.Line(r.Printer.paint(dim, "queued: "+line+" (sent when the run ends; Ctrl+C drops it)"))
}

// nextQueued returns the first queued line, echoed after the prompt as
// if typed there; ok is false when none is queued.
func (r *REPL) nextQueued() (string, bool) {
	if len(r.queued) == 0 {
		return "", false
	}
	line := r.queued[0]
	r.queued = r.queued[1:]
	fmt.Fprintln(r.Printer.Out, r.Prompt+line)
	return line, true
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
