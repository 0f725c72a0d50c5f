package session

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/llm"
)

// exportResultMax caps each tool result in a markdown export, in bytes.
const exportResultMax = 2000

// Export formats.
const (
	FormatMarkdown = "md"
	FormatJSON     = "json"
)

// Export is a whole session as [Store.Export] writes it in JSON: the
// summary fields, the plan, and every message with its sequence number
// (from 1), usage and time.
type Export struct {
	Summary
	Todos    []agent.Todo    `json:"todos"`
	Messages []ExportMessage `json:"messages"`
	// Subagents are the sessions the session's task calls started (and
	// theirs), with their usage, cost and tool calls.
	Subagents []Summary `json:"subagents,omitempty"`
}

// ExportMessage is one message of an [Export]; Usage is set on messages
// produced by a model response, Model ("PROVIDER/MODEL") on those a model
// wrote, CostUSD on those whose usage was priced (US dollars).
type ExportMessage struct {
	Seq       int        `json:"seq"`
	Role      llm.Role   `json:"role"`
	Parts     []llm.Part `json:"parts"`
	Model     string     `json:"model,omitempty"`
	Usage     *llm.Usage `json:"usage,omitempty"`
	CostUSD   float64    `json:"cost_usd,omitempty"`
	CreatedAt time.Time  `json:"created_at"`
}

// Export writes session id (a full id or a unique prefix) to w in format
// "md" (a readable transcript: user and assistant text, reasoning as a
// quote, tool calls as fenced JSON, tool results as fenced text cut to 2000
// bytes, images as a note) or "json" (an indented [Export], image bytes in
// base64). Errors: an unknown format, errors wrapping [ErrNotFound] or
// [ErrAmbiguous], or w's write error.
func (s *Store) Export(ctx context.Context, id, format string, w io.Writer) error {
	if format != FormatMarkdown && format != FormatJSON {
		return fmt.Errorf("export format %q is unknown: use md or json", format)
	}
	ex, err := s.export(ctx, id)
	if err != nil {
		return err
	}
	if format == FormatJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(ex); err != nil {
			return fmt.Errorf("export session %s: %w", ex.ID, err)
		}
		return nil
	}
	bw := bufio.NewWriter(w)
	writeMarkdown(bw, ex)
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("export session %s: %w", ex.ID, err)
	}
	return nil
}

func (s *Store) export(ctx context.Context, id string) (*Export, error) {
	ex := &Export{}
	err := s.read(ctx, func(tx *sql.Tx) error {
		full, err := resolveID(ctx, tx, id)
		if err != nil {
			return err
		}
		sums, err := querySummaries(ctx, tx, "WHERE s.id = ?", full)
		if err != nil {
			return err
		}
		if len(sums) == 0 {
			return notFound(full)
		}
		ex.Summary = sums[0]
		var todos string
		if err := tx.QueryRowContext(ctx, `SELECT todos FROM sessions WHERE id = ?`, full).Scan(&todos); err != nil {
			return fmt.Errorf("export session %s: %w", full, err)
		}
		if err := json.Unmarshal([]byte(todos), &ex.Todos); err != nil {
			return fmt.Errorf("export session %s: stored plan is corrupt: %w", full, err)
		}
		msgs, err := loadMessages(ctx, tx, full)
		if err != nil {
			return err
		}
		ex.Messages = make([]ExportMessage, len(msgs))
		for i, m := range msgs {
			ex.Messages[i] = ExportMessage{Seq: m.Seq, Role: m.Role, Parts: m.Parts, Model: m.Model,
				Usage: m.Usage, CostUSD: m.CostUSD, CreatedAt: m.CreatedAt}
		}
		ex.Subagents, err = querySummariesFrom(ctx, tx, toolCallsFrom, descendantsWhere, full)
		return err
	})
	if err != nil {
		return nil, err
	}
	return ex, nil
}

// writeMarkdown renders ex as a transcript; write errors surface at Flush.
func writeMarkdown(w *bufio.Writer, ex *Export) {
	title := ex.Title
	if title == "" {
		title = "Session " + ex.ID
	}
	fmt.Fprintf(w, "# %s\n\n", title)
	fmt.Fprintf(w, "- Session: `%s`\n- Workspace: `%s`\n", ex.ID, ex.Workspace)
	if ex.Provider != "" || ex.Model != "" {
		fmt.Fprintf(w, "- Model: `%s/%s`\n", ex.Provider, ex.Model)
	}
	fmt.Fprintf(w, "- Created: %s\n- Updated: %s\n", ex.CreatedAt.Format(time.RFC3339), ex.UpdatedAt.Format(time.RFC3339))
	u := ex.Usage
	fmt.Fprintf(w, "- Usage: %d input tokens (%d cache read, %d cache write), %d output tokens (%d reasoning); cost $%.4f\n",
		u.InputTokens, u.CacheReadTokens, u.CacheWriteTokens, u.OutputTokens, u.ReasoningTokens, ex.CostUSD)
	writeSubagents(w, ex)
	for _, m := range ex.Messages {
		fmt.Fprintf(w, "\n## %s\n", roleHeading(m.Role))
		for _, p := range m.Parts {
			w.WriteString("\n")
			writePart(w, p)
		}
	}
	if len(ex.Todos) > 0 {
		w.WriteString("\n## Plan\n\n")
		for _, t := range ex.Todos {
			mark, note := " ", ""
			switch t.Status {
			case "completed":
				mark = "x"
			case "in_progress":
				note = " (in progress)"
			}
			fmt.Fprintf(w, "- [%s] %s%s\n", mark, oneLine(t.Content), note)
		}
	}
}

func roleHeading(r llm.Role) string {
	switch r {
	case llm.RoleUser:
		return "User"
	case llm.RoleAssistant:
		return "Assistant"
	case llm.RoleTool:
		return "Tool results"
	}
	return string(r)
}

func writePart(w *bufio.Writer, p llm.Part) {
	switch p.Type {
	case llm.PartText:
		w.WriteString(strings.TrimRight(p.Text, "\n"))
		w.WriteString("\n")
	case llm.PartReasoning:
		writeReasoning(w, p)
	case llm.PartImage:
		if p.URL != "" {
			fmt.Fprintf(w, "*[image: %s]*\n", p.URL)
		} else {
			fmt.Fprintf(w, "*[image: %s, %d bytes]*\n", p.MIMEType, len(p.Data))
		}
	case llm.PartDocument:
		fmt.Fprintf(w, "*[document %s: %s, %d bytes]*\n", p.Text, p.MIMEType, len(p.Data))
	case llm.PartToolCall:
		writeToolCall(w, p.ToolCall)
	case llm.PartToolResult:
		writeToolResult(w, p.ToolResult)
	default:
		fmt.Fprintf(w, "*[%s part]*\n", p.Type)
	}
}

func writeReasoning(w *bufio.Writer, p llm.Part) {
	if p.Redacted || p.Text == "" {
		w.WriteString("> *(reasoning not shown by the provider)*\n")
		return
	}
	w.WriteString("> **Reasoning**\n>\n")
	for _, line := range strings.Split(strings.TrimRight(p.Text, "\n"), "\n") {
		if line == "" {
			w.WriteString(">\n")
			continue
		}
		w.WriteString("> " + line + "\n")
	}
}

func writeToolCall(w *bufio.Writer, c *llm.ToolCall) {
	if c == nil {
		return
	}
	fmt.Fprintf(w, "**Tool call** `%s` (id `%s`):\n\n", c.Name, c.ID)
	args := string(c.Arguments)
	var buf bytes.Buffer
	if json.Indent(&buf, c.Arguments, "", "  ") == nil {
		args = buf.String()
	}
	writeFenced(w, "json", args)
}

func writeToolResult(w *bufio.Writer, r *llm.ToolResult) {
	if r == nil {
		return
	}
	status := ""
	if r.IsError {
		status = " (error)"
	}
	fmt.Fprintf(w, "**Tool result** of `%s` (id `%s`)%s:\n\n", r.Name, r.CallID, status)
	content := r.Content
	if len(content) > exportResultMax {
		cut := exportResultMax
		for cut > 0 && !utf8.RuneStart(content[cut]) {
			cut--
		}
		content = fmt.Sprintf("%s\n... (%d more bytes)", content[:cut], len(content)-cut)
	}
	writeFenced(w, "text", content)
}

// writeFenced writes s in a code fence longer than any backtick run in s,
// so the content cannot close it.
func writeFenced(w *bufio.Writer, lang, s string) {
	run, longest := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", max(3, longest+1))
	fmt.Fprintf(w, "%s%s\n%s\n%s\n", fence, lang, strings.TrimRight(s, "\n"), fence)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// writeSubagents lists the session's parent (for a subagent's session)
// and its subagents with their usage.
func writeSubagents(w *bufio.Writer, ex *Export) {
	if ex.ParentID != "" {
		fmt.Fprintf(w, "- Subagent %s of session `%s` (task call `%s`)\n", oneLine(ex.Subagent), ex.ParentID, ex.ParentToolCallID)
	}
	if len(ex.Subagents) == 0 {
		return
	}
	fmt.Fprintf(w, "- Subagents:\n")
	for _, s := range ex.Subagents {
		fmt.Fprintf(w, "  - %s (`%s`): %d input tokens, %d output tokens, cost $%.4f, %d tool calls\n",
			oneLine(s.Subagent), s.ID, s.Usage.InputTokens, s.Usage.OutputTokens, s.CostUSD, s.ToolCalls)
	}
}
