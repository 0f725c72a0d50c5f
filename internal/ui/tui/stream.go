package tui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/ui/format"
	"github.com/zelvior/aidex/internal/ui/termsafe"
)

// unreachableHint follows the error of a model request whose host could
// not be reached (llm.KindUnreachable) or whose connection failed
// (llm.KindNetwork).
const unreachableHint = "the provider cannot be reached: check your network, or use /provider to choose another provider (ollama runs models on this machine)"

// streamModel is the conversation's output: the answer being streamed
// (rendered as markdown on a short debounce, complete blocks committed as
// they finish), the reasoning being streamed, the running tool cards, and
// the finished output. Finished output is committed: inline it is queued
// and printed above the UI into the terminal's scrollback (flushPrints),
// fullscreen it is appended to the transcript the View scrolls through.
type streamModel struct {
	st         styles
	color      bool
	fullscreen bool
	width      int
	md         mdRenderer
	mdStyle    string // glamour's style: "dark", "light" or "notty"

	text          string // the answer's markdown not yet committed
	live          string // text, rendered
	textCommitted bool   // blocks of the answer were committed already
	afterHTML     bool   // the last block committed is an HTML block
	renderPending bool   // a renderTickMsg is on its way
	reasoning     string // the reasoning streamed since the last text
	reasonStart   time.Time
	cards         []*card // tool calls still running
	decisions     map[string]agent.Answer
	// subOwner maps a subagent's tool call to the task call whose card
	// shows it (a grandchild's events name their parent's call).
	subOwner map[string]string
	// multi: several models answer this run (answers get a header with
	// their model; label is the model of the last header); parallel: at
	// once, their answers streaming into par until the user keeps one.
	multi, parallel bool
	label           string
	par             *parallelView
	verbose         bool // full tool output and reasoning (/verbose)
	expandRsn       bool // reasoning expanded (Ctrl+O)

	printQ     []printItem // committed output not printed yet (inline)
	printing   bool        // a print is on its way (printedMsg ends it)
	prints     int         // the prints done (printedMsg)
	holdPrints bool        // prints wait for resumePrintsMsg
	transcript []string    // committed output, one line each (fullscreen)
	scroll     int         // lines the transcript is scrolled back
}

// newStream returns an empty stream width cells wide.
func newStream(st styles, color, fullscreen bool, width int) streamModel {
	s := streamModel{st: st, color: color, fullscreen: fullscreen, width: width, mdStyle: "dark", decisions: map[string]agent.Answer{}, subOwner: map[string]string{}}
	if !color {
		s.mdStyle = "notty"
	}
	return s
}

// Update handles an engine event (agent.Event), the markdown debounce's
// tick, the end of a print, the end of holdPrints, a new size or the
// terminal's background colour.
func (s streamModel) Update(msg tea.Msg) (streamModel, tea.Cmd) {
	switch msg := msg.(type) {
	case agent.Event:
		return s, s.event(msg)
	case renderTickMsg:
		s.renderPending = false
		s.renderText(false)
	case printedMsg:
		s.printing = false
		s.prints++
	case resumePrintsMsg:
		s.holdPrints = false
	case tea.WindowSizeMsg:
		s.width = msg.Width
		s.renderLive()
	case tea.BackgroundColorMsg:
		if s.color && !msg.IsDark() {
			s.mdStyle = "light"
		}
	}
	return s, nil
}

// event applies one engine event.
func (s *streamModel) event(e agent.Event) tea.Cmd {
	if e.ParentToolCallID != "" {
		s.subagentEvent(e) // a subagent's: its task card shows it
		return nil
	}
	if s.multiEvent(e) {
		return nil
	}
	switch e.Type {
	case agent.EventText:
		s.flushReasoning()
		s.text += e.Text
		if !s.renderPending {
			s.renderPending = true
			return tea.Tick(renderDelay, func(time.Time) tea.Msg { return renderTickMsg{} })
		}
	case agent.EventReasoning:
		if s.reasoning == "" {
			s.reasonStart = time.Now()
		}
		s.reasoning += e.Text
	case agent.EventToolCall:
		s.flushReasoning()
		s.flushText()
		tc := e.ToolCall
		s.cards = append(s.cards, &card{ID: tc.ID, Name: tc.Name, Args: tc.Arguments, Started: time.Now()})
	case agent.EventApproval:
		if a := e.Approval; a != nil && a.Answer != "" {
			s.decisions[a.CallID] = a.Answer
		}
	case agent.EventToolResult:
		s.toolResult(e.ToolResult)
	case agent.EventTodos:
		s.flushText()
		s.commitLaidOut(renderTodos(s.st, e.Todos))
	case agent.EventNotice:
		s.flushReasoning()
		s.flushText()
		s.commit(s.st.paint(s.st.yellow, e.Text))
	case agent.EventBudget:
		if e.Budget != nil {
			s.flushText()
			s.commit(s.st.paint(s.st.yellow, "budget: "+termsafe.Clean(e.Budget.Message)))
		}
	case agent.EventError:
		if e.Error != nil && e.Error.Kind != "cancelled" {
			s.flushText()
			s.commit(s.st.paint(s.st.red, "error: "+e.Error.Message))
			if k := llm.ErrorKind(e.Error.Kind); k == llm.KindUnreachable || k == llm.KindNetwork {
				s.commit(s.st.paint(s.st.yellow, unreachableHint))
			}
		}
	case agent.EventDone:
		s.flushReasoning()
		s.flushText()
	}
	return nil
}

// toolResult commits the finished call's card.
func (s *streamModel) toolResult(r *agent.ToolResultInfo) {
	var c *card
	for i, x := range s.cards {
		if x.ID == r.ID {
			c = x
			s.cards = append(s.cards[:i], s.cards[i+1:]...)
			break
		}
	}
	if c == nil {
		c = &card{ID: r.ID, Name: r.Name}
	}
	c.Done, c.Result, c.Decision = true, r, s.decisions[r.ID]
	s.commitLaidOut(s.renderAnyCard(c, ""))
}

// endRun commits what the run left: its reasoning, the rest of the
// answer, and the cards of calls that never finished.
func (s *streamModel) endRun() {
	s.keepParallel(nil)
	s.flushReasoning()
	s.flushText()
	for _, c := range s.cards {
		c.Done = true
		c.Result = &agent.ToolResultInfo{ID: c.ID, Name: c.Name, Error: "not finished", Category: "cancelled"}
		s.commitLaidOut(s.renderAnyCard(c, ""))
	}
	s.cards = nil
}

// renderText commits the complete blocks of the streaming answer and
// re-renders the rest (all of it when final). Each block is rendered once
// when it is committed; blocks after the answer's first are preceded by
// the blank line glamour puts between blocks, so the committed answer is
// the rendering of the whole answer.
func (s *streamModel) renderText(final bool) {
	cut := len(s.text)
	if !final {
		cut = format.StableSplit(s.text)
	}
	if cut > 0 {
		if out := s.md.render(s.text[:cut], s.width, s.mdStyle); out != "" {
			if s.blankBefore(s.text[:cut]) {
				out = "\n" + out
			}
			s.commitLaidOut(out)
			s.textCommitted, s.afterHTML = true, htmlBlockLast(s.text[:cut])
		}
		s.text = s.text[cut:]
	}
	s.renderLive()
}

// blankBefore reports whether blocks md of the answer go under a blank
// line: they do after the answer's first blocks, except next to an HTML
// block, which glamour renders with no blank line around it.
func (s *streamModel) blankBefore(md string) bool {
	return s.textCommitted && !s.afterHTML && !htmlBlockFirst(md)
}

// htmlBlockFirst reports whether md starts with an HTML block (a line
// that starts with a tag and ends with one).
func htmlBlockFirst(md string) bool {
	first, _, _ := strings.Cut(strings.TrimLeft(md, "\n"), "\n")
	first = strings.TrimSpace(first)
	return strings.HasPrefix(first, "<") && strings.HasSuffix(first, ">")
}

// htmlBlockLast reports whether the last block of md (complete blocks) is
// an HTML block.
func htmlBlockLast(md string) bool {
	md = strings.TrimRight(md, "\n")
	last := md[strings.LastIndex(md, "\n\n")+1:]
	return !strings.Contains(last, "```") && !strings.Contains(last, "~~~") && htmlBlockFirst(last)
}

// renderLive renders the answer's uncommitted rest, under a blank line
// when blocks of it were committed (where it will be once committed).
func (s *streamModel) renderLive() {
	s.live = s.md.render(s.text, s.width, s.mdStyle)
	if s.live != "" && s.blankBefore(s.text) {
		s.live = "\n" + s.live
	}
}

// flushText commits the whole streaming answer.
func (s *streamModel) flushText() {
	if strings.TrimSpace(s.text) != "" {
		s.renderText(true)
	}
	s.text, s.live, s.textCommitted, s.afterHTML = "", "", false, false
}

// flushReasoning commits the streamed reasoning: in full when verbose or
// expanded, else as a one-line summary.
func (s *streamModel) flushReasoning() {
	if s.reasoning == "" {
		return
	}
	text := s.reasoning
	s.reasoning = ""
	if s.verbose || s.expandRsn {
		s.commitLaidOut(renderReasoning(s.st, text, true, s.width, 0))
		return
	}
	s.commit(s.st.paint(s.st.faint, fmt.Sprintf("✻ thought for %s (%d words)", formatDuration(time.Since(s.reasonStart)), len(strings.Fields(text)))))
}

// printItem is one committed output: laidOut text (rendered markdown, tool
// cards, diffs) is printed as it is; the rest (help, notices, command
// output) is wrapped at the terminal's width when printed.
type printItem struct {
	text    string
	laidOut bool
}

// commit queues finished plain output (help, notices, command output) for
// the scrollback (inline) or the transcript (fullscreen), to be wrapped at
// the terminal's width.
func (s *streamModel) commit(text string) { s.queue(printItem{text: text}) }

// commitLaidOut queues output already laid out for the width (rendered
// markdown, tool cards): wrapping it again would re-flow code and drop
// its indentation.
func (s *streamModel) commitLaidOut(text string) { s.queue(printItem{text: text, laidOut: true}) }

func (s *streamModel) queue(it printItem) {
	if s.fullscreen {
		s.transcript = append(s.transcript, strings.Split(it.wrapped(s.width), "\n")...)
		return
	}
	s.printQ = append(s.printQ, it)
}

// wrapped is the item's text for a terminal width cells wide.
func (it printItem) wrapped(width int) string {
	if it.laidOut {
		return it.text
	}
	return format.Wrap(it.text, width)
}

// flushPrints prints queued output above the UI, one batch at a time so
// the order is kept, plain items wrapped at the terminal's width now that
// it is known. While hold is true (the Ralph split view is
// open, on the alternate screen; the terminal's size is not known yet) or
// after hold() until resumePrintsMsg, the output waits.
func (s *streamModel) flushPrints(hold bool) tea.Cmd {
	if s.printing || len(s.printQ) == 0 || hold || s.holdPrints {
		return nil
	}
	texts := make([]string, len(s.printQ))
	for i, it := range s.printQ {
		texts[i] = it.wrapped(s.width)
	}
	text := strings.Join(texts, "\n")
	s.printQ = nil
	s.printing = true
	return tea.Sequence(tea.Println(text), func() tea.Msg { return printedMsg{} })
}

// hold keeps prints back until resumePrintsMsg.
func (s *streamModel) hold() { s.holdPrints = true }

// toggleVerbose switches /verbose and returns the new setting.
func (s *streamModel) toggleVerbose() bool {
	s.verbose = !s.verbose
	return s.verbose
}

// toggleReasoning expands or collapses the reasoning (Ctrl+O).
func (s *streamModel) toggleReasoning() { s.expandRsn = !s.expandRsn }

// scrollBy scrolls the transcript back by n lines (forward when n < 0).
func (s *streamModel) scrollBy(n int) { s.scroll = max(0, s.scroll+n) }

// clearTranscript drops the fullscreen transcript (/clear).
func (s *streamModel) clearTranscript() { s.transcript = nil }

// View returns the lines above the input, at most room of them. Inline
// they are the live tail (liveLines). Fullscreen they are the transcript
// scrolled back by scroll lines with the live tail under it, padded with
// blank lines at the top to exactly room lines. spin is the spinner frame
// of running cards.
func (s streamModel) View(spin string, room int) []string {
	live := s.liveLines(spin)
	if !s.fullscreen {
		if len(live) > room {
			live = live[len(live)-max(room, 0):]
		}
		return live
	}
	top := append(s.transcriptView(room), live...)
	if len(top) > room {
		top = top[len(top)-max(room, 0):]
	}
	for len(top) < room {
		top = append([]string{""}, top...)
	}
	return top
}

// transcriptView is the fullscreen history scrolled by s.scroll lines, at
// most room lines. Its capacity is clipped, so appending to it copies
// instead of overwriting the transcript's later lines.
func (s streamModel) transcriptView(room int) []string {
	t := s.transcript
	end := max(len(t)-s.scroll, 0)
	start := max(end-room, 0)
	return t[start:end:end]
}

// liveLines are the streaming reasoning, answer and running cards.
func (s streamModel) liveLines(spin string) []string {
	parts := s.parallelLines()
	if s.reasoning != "" {
		parts = append(parts, renderReasoning(s.st, s.reasoning, s.expandRsn || s.verbose, s.width, 3))
	}
	if s.live != "" {
		parts = append(parts, s.live)
	}
	for _, c := range s.cards {
		parts = append(parts, s.renderAnyCard(c, spin))
	}
	if len(parts) == 0 {
		return nil
	}
	return strings.Split(strings.Join(parts, "\n"), "\n")
}
