package tui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/ui/format"
)

// statusModel is the status line's own state: the session's usage (from
// the engine's usage events), the plan's progress (from its todo events)
// and the note the UI last set (noteMsg). What the rest of the UI knows —
// provider, model, mode, whether something runs — comes in at View time.
type statusModel struct {
	st     styles
	width  int
	tokens int     // input plus output tokens of the session
	cost   float64 // the session's cost in USD
	ctxPct float64 // how full the context window is, in percent
	// todosDone of todosAll items of the model's plan are completed.
	todosDone, todosAll int
	note                string
	// waiting is the model request the answer has not started for yet
	// ("waiting for P/M — reading ~N tokens", from the waiting event; ""
	// once anything else of the run arrives), sent at waitSince.
	waiting   string
	waitSince time.Time
	// now is the clock (nil: time.Now).
	now func() time.Time
}

// Update handles an engine event (agent.Event: usage and todos), a note
// and a new size.
func (s statusModel) Update(msg tea.Msg) (statusModel, tea.Cmd) {
	switch msg := msg.(type) {
	case agent.Event:
		s.event(msg)
	case noteMsg:
		s.note = string(msg)
	case tea.WindowSizeMsg:
		s.width = msg.Width
	}
	return s, nil
}

func (s *statusModel) event(e agent.Event) {
	if e.ParentToolCallID != "" {
		return // a subagent's usage is its own (its task card shows it)
	}
	if e.Type != agent.EventWaiting && e.Type != agent.EventSession {
		s.waiting = ""
	}
	switch e.Type {
	case agent.EventWaiting:
		if w := e.Waiting; w != nil {
			s.waiting, s.waitSince = format.Waiting(w.Provider, w.Model, w.InputTokens), s.clock()
		}
	case agent.EventUsage:
		u := e.Usage
		s.tokens = u.Session.InputTokens + u.Session.OutputTokens
		s.cost, s.ctxPct = u.CostUSD, u.ContextPercent
	case agent.EventProgress:
		// The tool's own name (mcp__SERVER__TOOL → TOOL): the status line is short.
		tool := e.Progress.Tool
		if i := strings.LastIndex(tool, "__"); i >= 0 {
			tool = tool[i+2:]
		}
		s.note = "… " + format.Progress(tool, e.Progress.Message, e.Progress.Progress, e.Progress.Total)
	case agent.EventToolResult:
		if strings.HasPrefix(s.note, "… ") {
			s.note = ""
		}
	case agent.EventTodos:
		s.todosDone, s.todosAll = 0, len(e.Todos)
		for _, t := range e.Todos {
			if t.Status == "completed" {
				s.todosDone++
			}
		}
	}
}

// clock returns the current time.
func (s *statusModel) clock() time.Time {
	if s.now != nil {
		return s.now()
	}
	return time.Now()
}

// noteStopping is the note while Esc's stop takes effect.
const noteStopping = "stopping…"

// noteUnqueued is the note after Esc took the queued messages back into
// the input while a run goes on.
const noteUnqueued = "queued messages back in the input · Esc again stops the run"

// workEnded drops the notes that held only while a run or job went on
// (noteStopping, noteUnqueued, "busy: …").
func (s statusModel) workEnded() statusModel {
	if s.note == noteStopping || s.note == noteUnqueued || strings.HasPrefix(s.note, "busy:") {
		s.note = ""
	}
	return s
}

// reset forgets the usage, the plan and a wait (/clear).
func (s statusModel) reset() statusModel {
	s.tokens, s.cost, s.ctxPct, s.todosAll, s.todosDone = 0, 0, 0, 0, 0
	s.waiting = ""
	return s
}

// View draws the status line from info (what the rest of the UI knows)
// with the usage and plan counters filled in; the note, when set,
// replaces info.Note.
func (s statusModel) View(info statusInfo) string {
	info.Tokens, info.CostUSD, info.ContextPct = s.tokens, s.cost, s.ctxPct
	info.TodosDone, info.TodosAll = s.todosDone, s.todosAll
	if s.note != "" {
		info.Note = s.note
	}
	if s.waiting != "" && info.Working {
		info.Waiting = s.waiting + ", " + format.Elapsed(s.clock().Sub(s.waitSince))
	}
	return renderStatus(s.st, info, s.width)
}

// statusInfo is what the status line shows.
type statusInfo struct {
	// Provider, Model and Mode (the permission mode) are shown as
	// "provider/model · mode".
	Provider, Model, Mode string
	// Tokens is the session's input plus output tokens, CostUSD its cost
	// in US dollars (both hidden while Tokens is 0), ContextPct how full
	// the context window is in percent (0–100, hidden at 0).
	Tokens     int
	CostUSD    float64
	ContextPct float64
	// TodosDone of TodosAll plan items are completed (hidden at 0).
	TodosDone, TodosAll int
	// Working shows the spinner frame Spin and the run's Elapsed time, or
	// Waiting in its place while the model has not started its answer
	// ("waiting for ollama/qwen3:8b — reading ~2,100 tokens, 45 s").
	Working bool
	Spin    string
	Elapsed time.Duration
	Waiting string
	// Multi is the conversation mode and the active models ("parallel:
	// a1, a2, c1"), shown in place of the provider and model while several
	// models answer ("" for none).
	Multi string
	// Note is shown last, highlighted ("" for none).
	Note string
	// Pending is the number of shell outputs queued for the next prompt.
	Pending int
	// Queued reports messages typed during the run and waiting: Esc
	// takes them back for editing instead of stopping the run.
	Queued bool
}

// renderStatus draws the status line.
func renderStatus(s styles, st statusInfo, width int) string {
	parts := []string{st.Provider + "/" + st.Model}
	if st.Multi != "" {
		parts[0] = s.paint(s.magenta, st.Multi)
	}
	mode := st.Mode
	if mode == "yolo" {
		mode = s.paint(s.red, mode)
	} else if mode == "plan" || mode == "auto-edit" {
		mode = s.paint(s.yellow, mode)
	}
	parts = append(parts, mode)
	if st.Tokens > 0 {
		parts = append(parts, compactNum(st.Tokens)+" tok", format.FormatCost(st.CostUSD))
	}
	if st.ContextPct > 0 {
		parts = append(parts, fmt.Sprintf("ctx %.0f%%", st.ContextPct))
	}
	if st.TodosAll > 0 {
		parts = append(parts, fmt.Sprintf("todos %d/%d", st.TodosDone, st.TodosAll))
	}
	if st.Pending > 0 {
		parts = append(parts, fmt.Sprintf("%d shell output(s) queued", st.Pending))
	}
	line := strings.Join(parts, s.paint(s.faint, " · "))
	if st.Working {
		elapsed := formatDuration(st.Elapsed)
		if st.Waiting != "" {
			elapsed = st.Waiting
		}
		esc := " · Esc stops · "
		if st.Queued {
			esc = " · Esc edits the queue · "
		}
		line = s.paint(s.cyan, st.Spin) + " " + elapsed + s.paint(s.faint, esc) + line
	}
	if st.Note != "" {
		line += s.paint(s.faint, " · ") + s.paint(s.yellow, st.Note)
	}
	return truncateLine(line, width)
}

func compactNum(n int) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%.0fk", float64(n)/1e3)
	case n >= 1000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}
