package cli

import (
	"fmt"
	"io"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/ui/format"
	"github.com/zelvior/aidex/internal/ui/termsafe"
)

// spinnerTick is how often the spinner line is redrawn.
const spinnerTick = 100 * time.Millisecond

// spinnerWidth bounds the spinner line, in columns, so that it never wraps
// on a usual terminal (a wrapped line could not be cleared with \r).
const spinnerWidth = 79

// The spinner's states.
const (
	spinIdle    = iota // nothing drawn: a tool runs, or the run is over
	spinWaiting        // a request was sent; nothing of the answer yet
	spinWriting        // the answer is arriving (and is not streamed)
)

// progress wraps a headless run's renderer and keeps a spinner line on a
// terminal's stderr while the model works: "⠋ waiting for ollama/qwen3:8b —
// reading ~2,100 tokens, 45 s" from the waiting event until the first
// streamed event, then "⠋ writing… 12 s, ~340 tokens" until the answer is
// complete (unless the answer itself is streamed to the terminal). The
// line is cleared before anything else is printed and when the run ends,
// so it never reaches the answer. It is used only when stderr is a
// terminal; now is the clock (time.Now), and a positive tick redraws the
// line that often from a goroutine that ends with the run.
type progress struct {
	inner renderer
	w     io.Writer
	now   func() time.Time
	tick  time.Duration
	// showWriting: the answer is not streamed to the terminal, so the
	// spinner goes on while it is written.
	showWriting bool

	mu     sync.Mutex
	state  int
	since  time.Time
	label  string // "waiting for P/M — reading ~N tokens"
	bytes  int    // text and reasoning received while writing
	frame  int
	drawn  bool
	ticker chan struct{} // closed to stop the redraw goroutine; nil when none runs
}

func newProgress(inner renderer, w io.Writer, showWriting bool, now func() time.Time, tick time.Duration) *progress {
	return &progress{inner: inner, w: w, now: now, tick: tick, showWriting: showWriting}
}

// event updates the spinner from e, with the line cleared while the inner
// renderer prints.
func (p *progress) event(e agent.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
	p.inner.event(e)
	if e.ParentToolCallID != "" && (e.Type == agent.EventDone || e.Type == agent.EventSession) {
		p.draw() // a subagent ended or began: the parent's run goes on
		return
	}
	switch e.Type {
	case agent.EventWaiting:
		w := termsafe.Event(e).Waiting
		p.state, p.since, p.frame = spinWaiting, p.now(), 0
		p.label = format.Waiting(w.Provider, w.Model, w.InputTokens)
		p.startTicker()
	case agent.EventText, agent.EventReasoning:
		switch {
		case !p.showWriting:
			p.state = spinIdle
		case p.state != spinWriting:
			p.state, p.since, p.bytes = spinWriting, p.now(), len(e.Text)
		default:
			p.bytes += len(e.Text)
		}
	case agent.EventDone:
		p.state = spinIdle
		p.stopTicker()
	default:
		p.state = spinIdle
	}
	p.draw()
}

// finish clears the line and stops the spinner before the inner renderer
// prints the answer.
func (p *progress) finish(d *agent.DoneInfo, runErr error) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
	p.state = spinIdle
	p.stopTicker()
	return p.inner.finish(d, runErr)
}

// redraw advances the spinner one frame and draws it (the ticker's work).
func (p *progress) redraw() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.frame++
	p.draw()
}

// above runs print (which writes whole lines on the same terminal) with
// the spinner line cleared, then draws the line again below what it
// printed.
func (p *progress) above(print func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
	print()
	p.draw()
}

// line is the spinner line of the current state, "" when idle.
func (p *progress) line() string {
	elapsed := p.now().Sub(p.since)
	var s string
	switch p.state {
	case spinWaiting:
		s = p.label + ", " + format.Elapsed(elapsed)
	case spinWriting:
		s = fmt.Sprintf("writing… %s, ~%s tokens", format.Elapsed(elapsed), format.Thousands((p.bytes+3)/4))
	default:
		return ""
	}
	s = format.Spinner(p.frame) + " " + s
	if utf8.RuneCountInString(s) > spinnerWidth {
		s = string([]rune(s)[:spinnerWidth-1]) + "…"
	}
	return s
}

// draw writes the line of the current state over the current line.
func (p *progress) draw() {
	if s := p.line(); s != "" {
		fmt.Fprint(p.w, "\r\x1b[K"+s)
		p.drawn = true
	}
}

// clear erases the spinner line when one is drawn.
func (p *progress) clear() {
	if p.drawn {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.drawn = false
	}
}

// startTicker starts the redraw goroutine unless one runs or tick is 0.
func (p *progress) startTicker() {
	if p.ticker != nil || p.tick <= 0 {
		return
	}
	stop := make(chan struct{})
	p.ticker = stop
	go func() {
		t := time.NewTicker(p.tick)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				p.redraw()
			}
		}
	}()
}

// stopTicker ends the redraw goroutine, if any.
func (p *progress) stopTicker() {
	if p.ticker != nil {
		close(p.ticker)
		p.ticker = nil
	}
}

// withProgress wraps r in a spinner on stderr when stderr is a terminal
// and --quiet is off; streamsText says the answer is streamed to stdout
// (then the spinner stops at its first text).
func (a *cliApp) withProgress(r renderer, streamsText bool) renderer {
	if a.flags.quiet || !isTerminal(a.proc.Stderr) {
		return r
	}
	return newProgress(r, a.proc.Stderr, !streamsText, time.Now, spinnerTick)
}

// onRetryFor returns the retry notice for a run rendered by r: printed
// above the spinner line when r draws one.
func (a *cliApp) onRetryFor(r renderer) func(attempt int, err error, wait time.Duration) {
	p, ok := r.(*progress)
	if !ok {
		return a.onRetry
	}
	return func(attempt int, err error, wait time.Duration) {
		p.above(func() { a.onRetry(attempt, err, wait) })
	}
}

// aboveWriter writes whole lines to w above p's spinner line.
type aboveWriter struct {
	p *progress
	w io.Writer
}

func (a aboveWriter) Write(b []byte) (n int, err error) {
	a.p.above(func() { n, err = a.w.Write(b) })
	return n, err
}
