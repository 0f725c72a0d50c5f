package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/ui/format"
	"github.com/zelvior/aidex/internal/ui/termsafe"
)

// outputFormat is --output-format.
type outputFormat string

const (
	formatText       outputFormat = "text"
	formatJSON       outputFormat = "json"
	formatStreamJSON outputFormat = "stream-json"
)

// renderer turns engine events into a headless run's output.
type renderer interface {
	event(agent.Event)
	finish(d *agent.DoneInfo, runErr error) error
}

// streamJSON prints every event as one JSON object a line.
type streamJSON struct {
	mu  sync.Mutex
	enc *json.Encoder
}

func newStreamJSON(w io.Writer) *streamJSON { return &streamJSON{enc: json.NewEncoder(w)} }

// event prints e; the done event of a run that had denials says
// "denied", as --output-format json does.
func (s *streamJSON) event(e agent.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e.Type == agent.EventDone && e.Done != nil {
		d := *e.Done
		d.StopReason = reportedStop(&d)
		reportVerification(&d)
		e.Done = &d
	}
	_ = s.enc.Encode(e)
}

func (s *streamJSON) finish(*agent.DoneInfo, error) error { return nil }

// inputError tells the program about a line it sent that aidex skipped:
// an error event of kind input.
func (s *streamJSON) inputError(err error) {
	s.event(agent.Event{Type: agent.EventError, Error: &agent.ErrorInfo{Message: err.Error(), Kind: "input"}})
}

// jsonResult is the one object --output-format json prints at the end.
type jsonResult struct {
	SessionID  string           `json:"session_id"`
	Result     string           `json:"result"`
	StopReason agent.StopReason `json:"stop_reason"`
	Turns      int              `json:"turns"`
	Usage      llm.Usage        `json:"usage"`
	CostUSD    float64          `json:"cost_usd"`
	ToolCalls  []jsonToolCall   `json:"tool_calls"`
	// Denials lists the distinct calls the policy refused.
	Denials []agent.DenialInfo `json:"denials"`
	Errors  []string           `json:"errors"`
	// Checkpoints are the ids of the checkpoints the run took (aidex
	// rewind ID puts the workspace back to before that turn).
	Checkpoints []string `json:"checkpoints"`
	// Subagents are the subagents the run's task calls started: label,
	// session, usage, cost and tool calls (their cost is not in CostUSD).
	Subagents []app.SubagentMeta `json:"subagents"`
	// Budget is the limit that stopped the run (stop_reason budget).
	Budget *agent.BudgetInfo `json:"budget,omitempty"`
	// Verified is verify before finishing's outcome: "true", "false" or
	// "none" (VerifyReason says why, also when the mechanism is off).
	Verified     string `json:"verified"`
	VerifyReason string `json:"verify_reason,omitempty"`
	// Harness records the harness settings the run had in force.
	Harness *agent.HarnessInfo `json:"harness"`
}

type jsonToolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	OK        bool            `json:"ok"`
	Error     string          `json:"error,omitempty"`
}

// jsonOut collects a run for the final JSON object.
type jsonOut struct {
	mu      sync.Mutex
	w       io.Writer
	res     jsonResult
	idx     map[string]int
	denials denialLog
}

func newJSONOut(w io.Writer) *jsonOut {
	return &jsonOut{w: w, idx: map[string]int{}, res: jsonResult{ToolCalls: []jsonToolCall{}, Errors: []string{}, Checkpoints: []string{},
		Subagents: []app.SubagentMeta{}}}
}

func (j *jsonOut) event(e agent.Event) {
	j.denials.event(e)
	if e.ParentToolCallID != "" {
		return // a subagent's: its answer is the task call's result
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	switch e.Type {
	case agent.EventSession:
		j.res.SessionID = e.SessionID
	case agent.EventToolCall:
		j.idx[e.ToolCall.ID] = len(j.res.ToolCalls)
		j.res.ToolCalls = append(j.res.ToolCalls, jsonToolCall{ID: e.ToolCall.ID, Name: e.ToolCall.Name, Arguments: e.ToolCall.Arguments})
	case agent.EventToolResult:
		if i, ok := j.idx[e.ToolResult.ID]; ok {
			j.res.ToolCalls[i].OK, j.res.ToolCalls[i].Error = e.ToolResult.OK, e.ToolResult.Error
		}
		var m app.SubagentMeta
		if e.ToolResult.Name == app.TaskTool && json.Unmarshal(e.ToolResult.Meta, &m) == nil && m.Subagent != "" {
			j.res.Subagents = append(j.res.Subagents, m)
		}
	case agent.EventError:
		j.res.Errors = append(j.res.Errors, e.Error.Message)
	}
}

func (j *jsonOut) finish(d *agent.DoneInfo, runErr error) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.res.Denials = j.denials.denials()
	if d != nil {
		j.res.Result, j.res.StopReason, j.res.Turns = string(stripMarkers([]byte(d.Result))), reportedStop(d), d.Turns
		j.res.Usage, j.res.CostUSD, j.res.Budget = d.Usage, d.CostUSD, d.Budget
		v := *d
		reportVerification(&v)
		j.res.Verified, j.res.VerifyReason, j.res.Harness = v.Verified, v.VerifyReason, v.Harness
		if d.StopReason == agent.StopLoop {
			j.res.Result = "" // the stop message is in errors, not an answer
		}
	}
	enc := json.NewEncoder(j.w)
	enc.SetIndent("", "  ")
	return enc.Encode(j.res)
}

// setCheckpoints records the ids of the checkpoints the run took.
func (j *jsonOut) setCheckpoints(ids []string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.res.Checkpoints = ids
}

// jsonOutOf returns the JSON renderer r is or wraps (nil: none).
func jsonOutOf(r renderer) *jsonOut {
	if p, ok := r.(*progress); ok {
		r = p.inner
	}
	j, _ := r.(*jsonOut)
	return j
}

// textOut prints the answer on stdout and, when progress is on (stderr is
// a terminal and not --quiet), tool activity on stderr. mode picks what
// reaches stdout: the final answer (finish markers stripped, blank runs
// collapsed), every answer's text as it streams (agent mode: turns
// separated, markers kept), or nothing.
type textOut struct {
	mu       sync.Mutex
	out, err io.Writer
	progress bool
	mode     string // "final" (default), "full", "none"
	streamed bool   // text was streamed to out already
	stream   bool   // stream text deltas (plain text mode)
	// ttyOut: stdout is a terminal, so the answer is cleaned of terminal
	// control sequences (a pipe gets the answer byte for byte).
	ttyOut bool
	// agent: an agent-mode run of steps turns.
	agent bool
	steps int
	// lineOpen: the streamed text so far does not end with a newline;
	// turnText: text was streamed since the last turn separator.
	lineOpen, turnText bool
	// dryRun prints the diff of each dry-run file change on stderr.
	dryRun bool
	// summary prints a line per tool call and result on stderr even when
	// progress is off (show_context_summary); details > 0 prints the
	// results' output too, cut at that many characters
	// (show_context_details, context_detail_max_chars).
	summary bool
	details int
}

func (t *textOut) event(e agent.Event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	raw := e.Text
	e = termsafe.Event(e) // progress goes to a terminal (stderr)
	if e.ParentToolCallID != "" {
		t.childEvent(e)
		return
	}
	switch e.Type {
	case agent.EventWaiting:
		if t.stream && t.agent && e.Waiting.Turn > 1 && t.turnText {
			if t.lineOpen {
				fmt.Fprintln(t.out)
			}
			fmt.Fprint(t.out, turnLine(e.Waiting.Turn, t.steps, t.ttyOut))
			t.lineOpen, t.turnText = false, false
		}
	case agent.EventText:
		if t.stream {
			if !t.ttyOut {
				e.Text = raw
			}
			fmt.Fprint(t.out, e.Text)
			t.streamed = true
			if e.Text != "" {
				t.lineOpen, t.turnText = !strings.HasSuffix(e.Text, "\n"), true
			}
		}
	case agent.EventToolCall:
		if t.progress || t.summary {
			fmt.Fprintf(t.err, "→ %s %s\n", e.ToolCall.Name, format.ArgSummary(e.ToolCall.Arguments))
		}
	case agent.EventToolResult:
		t.toolResult(e.ToolResult)
	case agent.EventNotice:
		t.notice(e)
	case agent.EventBudget:
		budgetLine(t.err, e.Budget)
	case agent.EventError:
		// Hook messages (a failing hook, a systemMessage) are for the
		// user even without progress output.
		if (t.progress || e.Error.Kind == "hook") && !e.Error.Fatal {
			fmt.Fprintf(t.err, "! %s\n", e.Error.Message)
		}
	}
}

// childEvent shows a subagent's tool activity on stderr, labelled; its
// text is not the answer (it reaches the parent as the task's result).
func (t *textOut) childEvent(e agent.Event) {
	if !t.progress {
		return
	}
	switch e.Type {
	case agent.EventToolCall:
		fmt.Fprintf(t.err, "  [%s] → %s %s\n", e.Subagent, e.ToolCall.Name, format.ArgSummary(e.ToolCall.Arguments))
	case agent.EventToolResult:
		if !e.ToolResult.OK {
			fmt.Fprintf(t.err, "  [%s] ✗ %s\n", e.Subagent, format.FirstLine(e.ToolResult.Error, 200))
		}
	}
}

// toolResult prints a result's line (progress, show_context_summary), its
// output (show_context_details) and a dry run's diff.
func (t *textOut) toolResult(r *agent.ToolResultInfo) {
	if t.progress || t.summary {
		if r.OK {
			fmt.Fprintf(t.err, "  ✓ %s\n", format.FirstLine(r.Output, 100))
		} else {
			fmt.Fprintf(t.err, "  ✗ %s\n", format.FirstLine(r.Error, 200))
		}
	}
	switch {
	case t.dryRun && r.OK && strings.Contains(r.Output, dryRunPrefix):
		fmt.Fprintln(t.err, strings.TrimRight(r.Output, "\n"))
	case t.details > 0 && r.OK && r.Output != "":
		fmt.Fprintln(t.err, strings.TrimRight(cut(r.Output, t.details), "\n"))
	}
}

func (t *textOut) finish(d *agent.DoneInfo, _ error) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.streamed {
		fmt.Fprintln(t.out)
		return nil
	}
	if d == nil || t.mode == "none" || d.StopReason == agent.StopLoop {
		return nil // a loop's stop message goes to stderr (printStops)
	}
	res := d.Result
	if t.ttyOut {
		res = termsafe.Clean(res)
	}
	if res = collapseBlank(string(stripMarkers([]byte(res)))); res != "" {
		fmt.Fprintln(t.out, res)
	}
	return nil
}

// notice prints a notice event on stderr: an MCP server that failed to start
// always (the run goes on without its tools, which the user must know); a
// fallback model answering always (the user should know which model did the
// work); a phase of an architect turn with progress output.
func (t *textOut) notice(e agent.Event) {
	switch {
	case e.Notice != nil && e.Notice.Kind == agent.NoticeMCP:
		fmt.Fprintf(t.err, "aidex: warning: %s\n", e.Text)
	case t.progress || e.Notice != nil && e.Notice.Kind == agent.NoticeFallback:
		fmt.Fprintf(t.err, "aidex: %s\n", e.Text)
	}
}
