// Package plain is aidex's line mode: the engine's events printed as plain
// lines (streamed text, "→ tool args" / "✓ result" lines, approvals as
// "Allow? [y]es/[s]ession/[a]lways/[n]o" prompts, a "waiting for …" line
// when a model is slow to start its answer), for terminals and users
// a full-screen UI does not suit, screen readers and CI logs. Colours are
// used only when enabled (never with NO_COLOR or when the output is not a
// terminal).
package plain

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/ui/format"
	"github.com/zelvior/aidex/internal/ui/mdterm"
	"github.com/zelvior/aidex/internal/ui/termsafe"
)

// Printer renders engine events as lines on Out. It is safe for concurrent
// use (parallel tool results).
type Printer struct {
	Out   io.Writer
	Color bool
	// Verbose shows reasoning and full tool output.
	Verbose bool
	// WaitNotice is how long a model request may go without output before
	// one dimmed "waiting for PROVIDER/MODEL — reading ~N tokens…" line is
	// printed (0: 3 s; negative: at once, for every request).
	WaitNotice time.Duration
	// Width is the terminal's width in cells, at which Line wraps its
	// notices (nil, or a result <= 0: no wrapping).
	Width func() int
	// Markdown renders the answer as readable text (mdterm.Markdown:
	// no **markers** or #s, code blocks kept), each block as it completes,
	// instead of printing the model's markdown as it streams.
	Markdown bool

	mu       sync.Mutex
	midLine  bool // text was printed without a final newline
	inReason bool
	// reasonText is the reasoning being streamed when it is not shown in
	// full (not Verbose); its words are counted when it ends.
	reasonText strings.Builder
	// wait is the pending waiting line's timer; waitGen tells a timer that
	// fired late that its wait is over.
	wait    *time.Timer
	waitGen int
	// multi labels the output of several models (multi.go).
	multi multiState
	// md renders the answer's markdown; mdText is the answer's text not
	// printed yet (an incomplete block), mdBlocks the blocks of this
	// answer printed so far.
	md       mdterm.Markdown
	mdText   string
	mdBlocks int
}

// defaultWaitNotice is WaitNotice's default: a cloud model answers well
// within it, a local one reading a long prompt does not.
const defaultWaitNotice = 3 * time.Second

const (
	dim    = "\x1b[2m"
	red    = "\x1b[31m"
	green  = "\x1b[32m"
	yellow = "\x1b[33m"
	cyan   = "\x1b[36m"
	reset  = "\x1b[0m"
)

func (p *Printer) paint(code, s string) string {
	if !p.Color {
		return s
	}
	return code + s + reset
}

// Event prints one engine event.
func (p *Printer) Event(e agent.Event) {
	e = termsafe.Event(e)
	p.mu.Lock()
	defer p.mu.Unlock()
	if e.ParentToolCallID != "" {
		p.subagentEvent(e)
		return
	}
	if p.multiEvent(e) {
		return
	}
	p.stopWait()
	if e.Type != agent.EventText && e.Type != agent.EventWaiting {
		p.flushMarkdown()
	}
	switch e.Type {
	case agent.EventWaiting:
		p.startWait(e.Waiting)
	case agent.EventText:
		p.text(e.Text)
	case agent.EventReasoning:
		p.reasoning(e.Text)
	case agent.EventToolCall:
		p.endReasoning()
		p.newline()
		fmt.Fprintf(p.Out, "%s %s %s\n", p.paint(cyan, "→"), e.ToolCall.Name, format.ArgSummary(e.ToolCall.Arguments))
	case agent.EventProgress:
		p.newline()
		fmt.Fprintf(p.Out, "  %s\n", p.paint(dim, "… "+format.Progress(e.Progress.Tool, e.Progress.Message, e.Progress.Progress, e.Progress.Total)))
	case agent.EventToolResult:
		p.toolResult(e.ToolResult)
	case agent.EventTodos:
		p.newline()
		for _, t := range e.Todos {
			fmt.Fprintf(p.Out, "  %s %s\n", todoMark(t.Status), t.Content)
		}
	case agent.EventNotice:
		p.endReasoning()
		p.newline()
		fmt.Fprintln(p.Out, p.paint(cyan, e.Text))
	case agent.EventBudget:
		p.newline()
		fmt.Fprintf(p.Out, "%s %s\n", p.paint(yellow, "budget:"), termsafe.Clean(e.Budget.Message))
	case agent.EventError:
		p.newline()
		fmt.Fprintf(p.Out, "%s %s\n", p.paint(red, "error:"), e.Error.Message)
	case agent.EventDone:
		p.endReasoning()
		p.newline()
	}
}

// text prints a piece of the answer (rendered as markdown with
// p.Markdown).
func (p *Printer) text(t string) {
	p.endReasoning()
	if p.Markdown {
		p.markdownText(t)
		return
	}
	fmt.Fprint(p.Out, t)
	p.midLine = !strings.HasSuffix(t, "\n")
}

// reasoning prints a piece of the model's reasoning: in full with
// Verbose, else a dimmed "thinking…" line that ends with the reasoning's
// length once the answer or a tool call follows.
func (p *Printer) reasoning(t string) {
	if !p.Verbose {
		if !p.inReason {
			p.newline()
			fmt.Fprint(p.Out, p.paint(dim, "✻ thinking…"))
			p.inReason, p.midLine = true, true
		}
		p.reasonText.WriteString(t)
		return
	}
	if !p.inReason {
		p.newline()
		fmt.Fprint(p.Out, p.paint(dim, "thinking: "))
		p.inReason = true
	}
	fmt.Fprint(p.Out, p.paint(dim, t))
	p.midLine = true
}

// subagentEvent prints a subagent's tool activity, labelled and
// indented; its text is not the answer (it returns to the parent's model
// as the task's result).
func (p *Printer) subagentEvent(e agent.Event) {
	label := p.paint(dim, "["+e.Subagent+"]")
	switch e.Type {
	case agent.EventToolCall:
		p.endReasoning()
		p.newline()
		fmt.Fprintf(p.Out, "  %s %s %s %s\n", label, p.paint(cyan, "→"), e.ToolCall.Name, format.ArgSummary(e.ToolCall.Arguments))
	case agent.EventToolResult:
		if !e.ToolResult.OK {
			p.newline()
			fmt.Fprintf(p.Out, "  %s %s %s\n", label, p.paint(red, "✗"), format.FirstLine(e.ToolResult.Error, 300))
		}
	}
}

// startWait prints the waiting line once the request has gone WaitNotice
// without output (at once when WaitNotice is negative).
func (p *Printer) startWait(w *agent.WaitingInfo) {
	line := format.Waiting(w.Provider, w.Model, w.InputTokens) + "…"
	d := p.WaitNotice
	if d == 0 {
		d = defaultWaitNotice
	}
	if d < 0 {
		p.printWait(line)
		return
	}
	gen := p.waitGen
	p.wait = time.AfterFunc(d, func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if gen == p.waitGen {
			p.wait = nil
			p.printWait(line)
		}
	})
}

// stopWait cancels a pending waiting line: the wait is over.
func (p *Printer) stopWait() {
	if p.wait != nil {
		p.wait.Stop()
		p.wait = nil
	}
	p.waitGen++
}

func (p *Printer) printWait(line string) {
	p.newline()
	fmt.Fprintln(p.Out, p.paint(dim, line))
}

func (p *Printer) toolResult(r *agent.ToolResultInfo) {
	if !r.OK {
		fmt.Fprintf(p.Out, "  %s %s\n", p.paint(red, "✗"), format.FirstLine(r.Error, 300))
		return
	}
	meta := format.ParseToolMeta(r.Meta)
	summary := format.FirstLine(r.Output, 100)
	switch {
	case meta.ExitCode != nil:
		summary = fmt.Sprintf("exit %d", *meta.ExitCode)
	case meta.Lines > 0 && meta.Diff == "":
		summary = fmt.Sprintf("%d lines", meta.Lines)
	}
	fmt.Fprintf(p.Out, "  %s %s\n", p.paint(green, "✓"), summary)
	if meta.Diff != "" {
		p.diff(meta.Diff)
	}
	if p.Verbose && r.Output != "" {
		fmt.Fprintln(p.Out, indent(r.Output))
	}
}

func (p *Printer) diff(d string) {
	for _, line := range strings.Split(strings.TrimRight(d, "\n"), "\n") {
		switch {
		case strings.HasPrefix(line, "+") && !strings.HasPrefix(line, "+++"):
			line = p.paint(green, line)
		case strings.HasPrefix(line, "-") && !strings.HasPrefix(line, "---"):
			line = p.paint(red, line)
		}
		fmt.Fprintln(p.Out, "    "+line)
	}
}

// markdownText adds streamed answer text and prints the blocks it
// completes, rendered.
func (p *Printer) markdownText(text string) {
	p.mdText += text
	if cut := format.StableSplit(p.mdText); cut > 0 {
		p.printMarkdown(p.mdText[:cut])
		p.mdText = p.mdText[cut:]
	}
}

// flushMarkdown prints the rest of the answer, rendered: the answer
// ended (another event came, or a line is printed).
func (p *Printer) flushMarkdown() {
	if p.mdText != "" {
		p.printMarkdown(p.mdText)
		p.mdText = ""
	}
	p.mdBlocks = 0
}

// printMarkdown prints complete markdown blocks rendered, a blank line
// between them and the answer's blocks before.
func (p *Printer) printMarkdown(md string) {
	out := p.md.Render(md, p.width())
	if out == "" {
		return
	}
	p.newline()
	if p.mdBlocks > 0 {
		fmt.Fprintln(p.Out)
	}
	fmt.Fprintln(p.Out, out)
	p.mdBlocks++
}

func (p *Printer) endReasoning() {
	if p.inReason {
		p.inReason = false
		if !p.Verbose {
			fmt.Fprint(p.Out, p.paint(dim, fmt.Sprintf(" %d words (/verbose shows the reasoning)", len(strings.Fields(p.reasonText.String())))))
			p.reasonText.Reset()
		}
		p.newline()
	}
}

func (p *Printer) newline() {
	if p.midLine {
		fmt.Fprintln(p.Out)
		p.midLine = false
	}
}

func todoMark(status string) string {
	switch status {
	case "completed":
		return "[x]"
	case "in_progress":
		return "[~]"
	}
	return "[ ]"
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ")
}

// Approver asks approval questions on a line-based terminal: it shows the
// command or diff and the rule that asked, and reads the answer with
// ReadLine (which returns io.EOF at the end of input).
type Approver struct {
	ReadLine func(ctx context.Context) (string, error)
	Printer  *Printer
}

// Approve prints the request and reads y/s/a/n (n may be followed by a
// reason: "n use a branch"). End of input denies.
func (a *Approver) Approve(ctx context.Context, req agent.ApprovalInfo) (agent.Answer, string, error) {
	req = termsafe.Approval(req)
	p := a.Printer
	p.mu.Lock()
	p.newline()
	fmt.Fprintf(p.Out, "%s %s", p.paint(cyan, "?"), req.Tool)
	if req.Command != "" {
		fmt.Fprintf(p.Out, ": %s", req.Command)
	} else if s := format.ArgSummary(req.Arguments); s != "" {
		fmt.Fprintf(p.Out, " %s", s)
	}
	fmt.Fprintln(p.Out)
	if req.Diff != "" {
		p.diff(req.Diff)
	}
	if req.Subagent != "" {
		fmt.Fprintf(p.Out, "  (for subagent %s)\n", req.Subagent)
	}
	if why := format.ApprovalWhy(req); why != "" {
		fmt.Fprintf(p.Out, "  %s\n", why) // in plain words; the sandbox's says what a rerun may do
	}
	fmt.Fprintf(p.Out, "  %s\n", alwaysText(req.Suggested))
	p.mu.Unlock()
	for {
		fmt.Fprint(p.Out, "Allow? [y]es/[s]ession/[a]lways/[n]o: ")
		line, err := a.ReadLine(ctx)
		if ctx.Err() != nil {
			return agent.AnswerDeny, "", ctx.Err()
		}
		answer := strings.TrimSpace(line)
		word, reason, _ := strings.Cut(answer, " ")
		switch strings.ToLower(word) {
		case "y", "yes":
			return agent.AnswerOnce, "", nil
		case "s", "session":
			return agent.AnswerSession, "", nil
		case "a", "always":
			return agent.AnswerAlways, "", nil
		case "n", "no":
			return agent.AnswerDeny, strings.TrimSpace(reason), nil
		}
		if err != nil {
			fmt.Fprintln(p.Out)
			return agent.AnswerDeny, "no answer (end of input)", nil
		}
		fmt.Fprintln(p.Out, "Answer y, s, a or n (n may be followed by a reason).")
	}
}

// alwaysText says what answering "session" or "always" saves: the exact
// rule, or that no rule can be saved for such a call.
func alwaysText(rule string) string {
	if rule == "" {
		return "[s]ession and [a]lways save no rule for this call (no rule may allow it): they allow it once"
	}
	return "[s]ession and [a]lways allow " + rule
}

// Line prints s on a line of its own (ending streamed text first),
// wrapped at Width.
func (p *Printer) Line(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.flushMarkdown()
	p.endReasoning()
	p.newline()
	fmt.Fprintln(p.Out, format.Wrap(s, p.width()))
}

// width is the terminal's width, 0 when unknown.
func (p *Printer) width() int {
	if p.Width == nil {
		return 0
	}
	return p.Width()
}

// wrapWriter writes to out the complete lines written to it, wrapped at
// width (format.Wrap); Flush writes the rest.
type wrapWriter struct {
	out   io.Writer
	width int
	buf   []byte
}

func (w *wrapWriter) Write(b []byte) (int, error) {
	w.buf = append(w.buf, b...)
	i := bytes.LastIndexByte(w.buf, '\n')
	if i < 0 {
		return len(b), nil
	}
	text := format.Wrap(string(w.buf[:i+1]), w.width)
	w.buf = append(w.buf[:0], w.buf[i+1:]...)
	if _, err := io.WriteString(w.out, text); err != nil {
		return 0, fmt.Errorf("write: %w", err)
	}
	return len(b), nil
}

// Flush writes what is left of an unfinished line.
func (w *wrapWriter) Flush() error {
	if len(w.buf) == 0 {
		return nil
	}
	_, err := w.out.Write(w.buf)
	w.buf = nil
	if err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return nil
}
