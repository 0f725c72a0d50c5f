package plain

import (
	"context"
	"fmt"
	"strings"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app/multi"
	"github.com/zelvior/aidex/internal/ui/notify"
	"github.com/zelvior/aidex/internal/ui/termsafe"
)

// multiState is the Printer's view of a multi-model run: several models
// answer (their output is labelled with a line naming the model, at each
// change of model), and in parallel mode the answers do not stream: the
// question that keeps one prints them whole.
type multiState struct {
	on, parallel bool
	label        string
	holding      bool // a parallel turn's answers are being written
}

// SetMulti tells the printer, before a run, whether several models answer
// it (on) and whether at once (parallel).
func (p *Printer) SetMulti(on, parallel bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.multi = multiState{on: on, parallel: on && parallel}
}

// multiEvent labels the output of a multi-model run and holds back a
// parallel turn's answers; it reports whether it took the event (p.mu
// held).
func (p *Printer) multiEvent(e agent.Event) bool {
	m := &p.multi
	if !m.on {
		return false
	}
	switch e.Type {
	case agent.EventSession:
		m.label, m.holding = "", m.parallel
		return false
	case agent.EventText, agent.EventReasoning, agent.EventToolCall, agent.EventWaiting:
	default:
		return false
	}
	if e.Model == "" {
		return false
	}
	if m.holding {
		if e.Type == agent.EventWaiting {
			p.newline()
			fmt.Fprintln(p.Out, p.paint(dim, "… "+e.Model+" is answering"))
		}
		return true
	}
	if e.Type != agent.EventWaiting && e.Model != m.label {
		p.endReasoning()
		p.newline()
		fmt.Fprintln(p.Out, p.paint(cyan, "── "+e.Model+" ──"))
		m.label = e.Model
	}
	return false
}

// Choose implements multi.Chooser for the line mode: it prints the
// parallel turn's answers, numbered, and reads which to keep (a number,
// "a" for all; an empty line or the end of input keeps the first).
func (a *replApprover) Choose(ctx context.Context, answers []multi.Candidate) ([]int, error) {
	a.r.ring(func(n notify.Notifier) string { return n.Question() })
	p := a.r.Printer
	p.mu.Lock()
	p.newline()
	for i, c := range answers {
		fmt.Fprintln(p.Out, p.paint(cyan, fmt.Sprintf("── [%d] %s ──", i+1, termsafe.Clean(c.Model))))
		fmt.Fprintln(p.Out, strings.TrimRight(termsafe.Clean(c.Text), "\n"))
		if len(c.ToolCalls) > 0 {
			fmt.Fprintf(p.Out, "  (kept, it runs %s)\n", strings.Join(c.ToolCalls, ", "))
		}
	}
	p.mu.Unlock()
	for {
		fmt.Fprintf(p.Out, "Keep which answer? [1-%d], [a]ll (Enter: 1): ", len(answers))
		line, err := a.r.readLine(ctx)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		keep, perr := multi.ParseKeep(line, len(answers))
		if ok := perr == nil; ok || err != nil {
			if !ok {
				keep = []int{0}
			}
			p.kept(answers, keep)
			return keep, nil
		}
		fmt.Fprintf(p.Out, "Answer a number from 1 to %d, or a.\n", len(answers))
	}
}

// kept ends the holding of a parallel turn: the kept model's further
// output follows under its label.
func (p *Printer) kept(answers []multi.Candidate, keep []int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.multi.holding = false
	p.multi.label = answers[keep[len(keep)-1]].Model
	fmt.Fprintln(p.Out, p.paint(dim, "kept: "+answers[keep[len(keep)-1]].Model))
}
