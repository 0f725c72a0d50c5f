package tui

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/ui/format"
)

// styles are the TUI's colours. The zero value (Color false) renders plain
// text, used with NO_COLOR and in golden tests.
type styles struct {
	color                                               bool
	dim, bold, green, red, yellow, cyan, magenta, faint lipgloss.Style
	user                                                lipgloss.Style
}

func newStyles(color bool) styles {
	s := styles{color: color}
	if !color {
		return s
	}
	c := func(code string) lipgloss.Style { return lipgloss.NewStyle().Foreground(lipgloss.Color(code)) }
	s.dim = lipgloss.NewStyle().Faint(true)
	s.faint = c("8")
	s.bold = lipgloss.NewStyle().Bold(true)
	s.green, s.red, s.yellow, s.cyan, s.magenta = c("2"), c("1"), c("3"), c("6"), c("5")
	s.user = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("4"))
	return s
}

// paint renders text with st when colours are on.
func (s styles) paint(st lipgloss.Style, text string) string {
	if !s.color {
		return text
	}
	return st.Render(text)
}

// card is a tool call as the TUI shows it.
type card struct {
	ID       string
	Name     string
	Args     json.RawMessage
	Started  time.Time
	Done     bool
	Result   *agent.ToolResultInfo
	Decision agent.Answer // the approval answer, "" when none was asked
	// Sub is the subagent of a task call, from its events (nil before
	// the first).
	Sub *subagentView
}

// commandOf returns the command line of a shell tool call ("" otherwise).
func commandOf(args json.RawMessage) string {
	var a struct {
		Command string `json:"command"`
	}
	_ = json.Unmarshal(args, &a)
	return a.Command
}

// renderCard draws a tool card: a header line (status, name, key
// argument, duration, short result), then for edits the coloured diff and
// for commands the output's last lines; verbose shows full output.
func renderCard(s styles, c *card, spin string, width int, verbose bool) string {
	var b strings.Builder
	cmd := commandOf(c.Args)
	arg := format.ArgSummary(c.Args)
	if cmd != "" {
		arg = "$ " + format.FirstLine(cmd, 200)
	}
	icon := s.paint(s.cyan, spin)
	var tail []string
	if c.Done && c.Result != nil {
		r := c.Result
		icon = s.paint(s.green, "✓")
		if !r.OK {
			icon = s.paint(s.red, "✗")
		}
		tail = append(tail, formatDuration(time.Duration(r.DurationMS)*time.Millisecond))
		tail = append(tail, shortResult(r))
	} else if !c.Started.IsZero() {
		tail = append(tail, "running")
	}
	head := fmt.Sprintf("%s %s %s", icon, s.paint(s.bold, c.Name), arg)
	if len(tail) > 0 {
		head += s.paint(s.faint, " · "+strings.Join(nonEmpty(tail), " · "))
	}
	if c.Decision != "" && c.Decision != agent.AnswerOnce {
		head += s.paint(s.faint, " · "+decisionLabel(c.Decision))
	}
	b.WriteString(truncateLine(head, width))
	if !c.Done || c.Result == nil {
		return b.String()
	}
	r := c.Result
	meta := format.ParseToolMeta(r.Meta)
	switch {
	case !r.OK:
		writeIndented(&b, s, s.red, firstLines(r.Error, 6, verbose), width)
		if r.Output != "" {
			writeIndented(&b, s, s.faint, lastLines(r.Output, 6, verbose), width)
		}
	case meta.Diff != "":
		b.WriteString("\n")
		b.WriteString(renderDiff(s, meta.Diff, 40, verbose, width))
	case cmd != "" || meta.ExitCode != nil:
		if strings.TrimSpace(r.Output) != "" {
			writeIndented(&b, s, s.faint, lastLines(r.Output, 5, verbose), width)
		}
	case verbose && r.Output != "":
		writeIndented(&b, s, s.faint, r.Output, width)
	}
	return b.String()
}

func nonEmpty(ss []string) []string {
	var out []string
	for _, x := range ss {
		if x != "" {
			out = append(out, x)
		}
	}
	return out
}

func decisionLabel(d agent.Answer) string {
	switch d {
	case agent.AnswerSession:
		return "allowed for this session"
	case agent.AnswerAlways:
		return "always allowed here"
	case agent.AnswerDeny:
		return "denied"
	}
	return string(d)
}

// shortResult is a tool result in a few words: "exit 1", "120 lines", the
// first line of the output or error.
func shortResult(r *agent.ToolResultInfo) string {
	meta := format.ParseToolMeta(r.Meta)
	switch {
	case !r.OK:
		if r.Category != "" {
			return r.Category
		}
		return "failed"
	case meta.ExitCode != nil:
		return fmt.Sprintf("exit %d", *meta.ExitCode)
	case meta.Diff != "":
		add, del := diffStat(meta.Diff)
		return fmt.Sprintf("+%d -%d", add, del)
	case meta.Lines > 0:
		return fmt.Sprintf("%d lines", meta.Lines)
	}
	return format.FirstLine(r.Output, 60)
}

func diffStat(d string) (add, del int) {
	for _, l := range strings.Split(d, "\n") {
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
		case strings.HasPrefix(l, "+"):
			add++
		case strings.HasPrefix(l, "-"):
			del++
		}
	}
	return add, del
}

// renderDiff colours a unified diff (additions green, deletions red, hunk
// headers cyan), indented, at most max lines unless verbose.
func renderDiff(s styles, d string, max int, verbose bool, width int) string {
	lines := strings.Split(strings.TrimRight(d, "\n"), "\n")
	more := 0
	if !verbose && len(lines) > max {
		more = len(lines) - max
		lines = lines[:max]
	}
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		l = truncateLine(strings.ReplaceAll(l, "\t", "    "), width-4)
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
			l = s.paint(s.bold, l)
		case strings.HasPrefix(l, "+"):
			l = s.paint(s.green, l)
		case strings.HasPrefix(l, "-"):
			l = s.paint(s.red, l)
		case strings.HasPrefix(l, "@@"):
			l = s.paint(s.cyan, l)
		}
		b.WriteString("    " + l)
	}
	if more > 0 {
		fmt.Fprintf(&b, "\n    %s", s.paint(s.faint, fmt.Sprintf("… %d more lines (/verbose shows all)", more)))
	}
	return b.String()
}

func writeIndented(b *strings.Builder, s styles, st lipgloss.Style, text string, width int) {
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		b.WriteString("\n    " + s.paint(st, truncateLine(strings.ReplaceAll(l, "\t", "    "), width-4)))
	}
}

func firstLines(s string, n int, all bool) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if all || len(lines) <= n {
		return strings.Join(lines, "\n")
	}
	return strings.Join(lines[:n], "\n") + fmt.Sprintf("\n… %d more lines", len(lines)-n)
}

func lastLines(s string, n int, all bool) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if all || len(lines) <= n {
		return strings.Join(lines, "\n")
	}
	return fmt.Sprintf("… %d lines above\n", len(lines)-n) + strings.Join(lines[len(lines)-n:], "\n")
}

// truncateLine cuts a line to width display cells (ANSI-aware) with "…".
func truncateLine(l string, width int) string {
	if width <= 0 || lipgloss.Width(l) <= width {
		return l
	}
	return ansi.Truncate(l, width, "…")
}

// formatDuration formats a duration for cards and the status line: "12ms",
// "1.2s", "2m05s".
func formatDuration(d time.Duration) string {
	switch {
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
}

// renderUser draws the user's prompt as it goes to scrollback.
func renderUser(s styles, text string, width int) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		prefix := "› "
		if i > 0 {
			prefix = "  "
		}
		b.WriteString(s.paint(s.user, truncateLine(prefix+l, width)))
	}
	return b.String()
}

// renderReasoning draws reasoning dimmed: collapsed to its last lines (and
// a count) unless expanded.
func renderReasoning(s styles, text string, expanded bool, width int, maxLines int) string {
	text = strings.TrimSpace(text)
	if text == "" {
		return ""
	}
	lines := strings.Split(format.Wrap(text, max(width-2, 10)), "\n")
	head := fmt.Sprintf("thinking (%d words)", len(strings.Fields(text)))
	if !expanded && len(lines) > maxLines {
		head += " · Ctrl+O expands"
		lines = lines[len(lines)-maxLines:]
	}
	var b strings.Builder
	b.WriteString(s.paint(s.faint, "✻ "+head))
	for _, l := range lines {
		b.WriteString("\n  " + s.paint(s.dim, l))
	}
	return b.String()
}

// renderTodos draws the plan as a checklist.
func renderTodos(s styles, todos []agent.Todo) string {
	var b strings.Builder
	b.WriteString(s.paint(s.faint, "plan:"))
	for _, t := range todos {
		mark := "☐"
		text := t.Content
		switch t.Status {
		case "completed":
			mark, text = s.paint(s.green, "☑"), s.paint(s.faint, text)
		case "in_progress":
			mark, text = s.paint(s.yellow, "▶"), s.paint(s.bold, text)
		}
		fmt.Fprintf(&b, "\n  %s %s", mark, text)
	}
	return b.String()
}
