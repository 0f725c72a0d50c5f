package tui

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/ui/format"
)

// subagentView is what a task card shows of its subagent: its label
// (type: description), the tool calls it made (its own and its
// subagents'), its tokens and cost so far, and its final answer.
type subagentView struct {
	Label  string
	Calls  []subCall
	Usage  llm.Usage
	Cost   float64
	Answer string
	Stop   agent.StopReason
}

// subCall is one tool call of a subagent; Depth is 1 for the subagent's
// own calls, 2 for its subagents'.
type subCall struct {
	ID, Name, Arg string
	Depth         int
	Done, OK      bool
}

// taskLabel is the label of a task call from its arguments, as the app
// labels its subagent: "TYPE: DESCRIPTION".
func taskLabel(args json.RawMessage) string {
	var a struct {
		Description  string `json:"description"`
		SubagentType string `json:"subagent_type"`
	}
	_ = json.Unmarshal(args, &a)
	if a.SubagentType == "" {
		a.SubagentType = "general"
	}
	a.Description = strings.Join(strings.Fields(a.Description), " ")
	if a.Description != "" {
		return a.SubagentType + ": " + a.Description
	}
	return a.SubagentType
}

// subagentEvent applies an event of a subagent's run to the card of the
// task call it belongs to (its own, or its parent's for a grandchild's).
func (s *streamModel) subagentEvent(e agent.Event) {
	top, ok := s.subOwner[e.ParentToolCallID]
	if !ok {
		top = e.ParentToolCallID
	}
	c := s.card(top)
	if c == nil {
		return
	}
	if c.Sub == nil {
		c.Sub = &subagentView{Label: e.Subagent}
	}
	v, depth := c.Sub, 1
	if top != e.ParentToolCallID {
		depth = 2
	}
	switch e.Type {
	case agent.EventToolCall:
		s.subOwner[e.ToolCall.ID] = top
		arg := format.ArgSummary(e.ToolCall.Arguments)
		if e.ToolCall.Name == taskToolName {
			arg = taskLabel(e.ToolCall.Arguments)
		}
		v.Calls = append(v.Calls, subCall{ID: e.ToolCall.ID, Name: e.ToolCall.Name, Arg: arg, Depth: depth})
	case agent.EventToolResult:
		for i := range v.Calls {
			if v.Calls[i].ID == e.ToolResult.ID && v.Calls[i].Depth == depth {
				v.Calls[i].Done, v.Calls[i].OK = true, e.ToolResult.OK
			}
		}
	case agent.EventUsage:
		if depth == 1 && e.Usage != nil {
			v.Usage, v.Cost = e.Usage.Session, e.Usage.CostUSD
		}
	case agent.EventDone:
		if depth == 1 && e.Done != nil {
			v.Answer, v.Stop = e.Done.Result, e.Done.StopReason
		}
	}
}

// card returns the running card of call id (nil: none).
func (s *streamModel) card(id string) *card {
	for _, c := range s.cards {
		if c.ID == id {
			return c
		}
	}
	return nil
}

// renderSubagentCard draws a task card: collapsed, one line with the
// subagent's label, status, tool calls, tokens and cost; expanded
// (Ctrl+O or /verbose), its tool calls and its answer under it.
func renderSubagentCard(s styles, c *card, spin string, width int, expanded bool) string {
	v := c.Sub
	if v == nil {
		v = &subagentView{Label: taskLabel(c.Args)}
	}
	icon, status := s.paint(s.cyan, spin), "running"
	if c.Done && c.Result != nil {
		icon, status = s.paint(s.green, "✓"), "done"
		if !c.Result.OK {
			icon, status = s.paint(s.red, "✗"), c.Result.Category
		}
	}
	tail := []string{status, fmt.Sprintf("%d tool calls", len(v.Calls)),
		fmt.Sprintf("%d tokens", v.Usage.InputTokens+v.Usage.OutputTokens), format.FormatCost(v.Cost)}
	head := fmt.Sprintf("%s %s %s%s", icon, s.paint(s.bold, "subagent"), v.Label, s.paint(s.faint, " · "+strings.Join(tail, " · ")))
	var b strings.Builder
	b.WriteString(truncateLine(head, width))
	if !expanded {
		if c.Done && c.Result != nil && !c.Result.OK {
			writeIndented(&b, s, s.red, firstLines(c.Result.Error, 3, false), width)
		}
		return b.String()
	}
	for _, sc := range v.Calls {
		mark := "…"
		if sc.Done {
			mark = "✓"
			if !sc.OK {
				mark = "✗"
			}
		}
		line := strings.Repeat("  ", sc.Depth) + mark + " " + sc.Name + " " + sc.Arg
		b.WriteString("\n" + truncateLine(s.paint(s.faint, line), width))
	}
	if strings.TrimSpace(v.Answer) != "" {
		writeIndented(&b, s, s.faint, firstLines(v.Answer, 20, false), width)
	}
	return b.String()
}

// renderAnyCard draws a running or finished card: a task call's as its
// subagent's card (expanded with Ctrl+O or /verbose), any other as a tool
// card.
func (s *streamModel) renderAnyCard(c *card, spin string) string {
	if c.Name == taskToolName {
		return renderSubagentCard(s.st, c, spin, s.width, s.verbose || s.expandRsn)
	}
	return renderCard(s.st, c, spin, s.width, s.verbose)
}

// taskToolName is the tool whose calls start subagents.
const taskToolName = "task"
