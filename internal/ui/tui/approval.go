package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/ui/format"
)

// approvalModel is the "the run needs you" widget: the approval question
// the engine is waiting on (nil when none) and, after n, the denial
// reason being typed; or ask_user's form (form, nil when none). Its keys
// answer directly on the question's reply channel.
type approvalModel struct {
	st     styles
	width  int
	height int // the terminal's rows (0: unknown)
	ask    *askReq
	form   *askForm
	typing bool   // the denial reason is being typed
	reason string // the denial reason typed so far
}

// active reports whether a question or a form is waiting.
func (a approvalModel) active() bool { return a.ask != nil || a.form != nil }

// openForm shows ask_user's form for r.
func (a approvalModel) openForm(r *formReq) approvalModel {
	a.form = newAskForm(r)
	return a
}

// open shows the question r.
func (a approvalModel) open(r *askReq) approvalModel {
	a.ask, a.typing, a.reason = r, false, ""
	return a
}

// answer replies to the waiting question (if any) and closes it; a
// waiting form is declined.
func (a approvalModel) answer(d agent.Answer, reason string) approvalModel {
	if a.form != nil {
		a.form.decline()
		a.form = nil
	}
	if a.ask == nil {
		return a
	}
	a.ask.reply <- answer{d: d, reason: reason}
	return a.dismiss()
}

// dismiss closes the question or form without an answer (its run has
// ended).
func (a approvalModel) dismiss() approvalModel {
	a.ask, a.form, a.typing, a.reason = nil, nil, false, ""
	return a
}

// Update handles a key while a question waits, and a new size.
func (a approvalModel) Update(msg tea.Msg) (approvalModel, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		a.width, a.height = msg.Width, msg.Height
	case tea.KeyPressMsg:
		if a.ask == nil && a.form != nil {
			if a.form.key(msg) {
				a.form = nil
			}
			return a, nil
		}
		if a.ask == nil {
			return a, nil
		}
		if a.typing {
			return a.reasonKey(msg), nil
		}
		return a.decisionKey(msg), nil
	}
	return a, nil
}

// decisionKey answers y (or Enter) once, s for the session, a always, Esc
// deny; n starts typing a reason.
func (a approvalModel) decisionKey(k tea.KeyPressMsg) approvalModel {
	switch strings.ToLower(k.String()) {
	case "y", "enter":
		return a.answer(agent.AnswerOnce, "")
	case "s":
		return a.answer(agent.AnswerSession, "")
	case "a":
		return a.answer(agent.AnswerAlways, "")
	case "n":
		a.typing = true
	case "esc":
		return a.answer(agent.AnswerDeny, "")
	}
	return a
}

// reasonKey edits the denial reason; Enter denies with it, Esc without.
func (a approvalModel) reasonKey(k tea.KeyPressMsg) approvalModel {
	switch k.String() {
	case "enter":
		return a.answer(agent.AnswerDeny, strings.TrimSpace(a.reason))
	case "esc":
		return a.answer(agent.AnswerDeny, "")
	}
	a.reason = editLine(a.reason, k)
	return a
}

// View draws the prompt ("" when no question waits).
func (a approvalModel) View() string {
	if a.ask == nil && a.form != nil {
		return a.form.view(a.st, a.width)
	}
	if a.ask == nil {
		return ""
	}
	diffRows := 30
	if a.height > 0 {
		// The prompt's other lines and the status line fit beside the diff.
		diffRows = max(3, min(diffRows, a.height-12))
	}
	return renderApprovalRows(a.st, a.ask.req, a.typing, a.reason, a.width, diffRows)
}

// editLine applies a key to a one-line text field: Backspace deletes the
// last character, any other key appends the text it types (none for
// keys like Tab or the arrows).
func editLine(buf string, k tea.KeyPressMsg) string {
	if k.String() == "backspace" {
		if r := []rune(buf); len(r) > 0 {
			return string(r[:len(r)-1])
		}
		return buf
	}
	return buf + k.Text
}

// renderApproval draws the approval prompt: what the tool wants to do (the
// exact command or the diff), the rule that asked, and the keys. reason is
// the denial reason being typed (reasoning true while typing it). The diff
// shows at most 30 lines.
func renderApproval(s styles, req agent.ApprovalInfo, typingReason bool, reason string, width int) string {
	return renderApprovalRows(s, req, typingReason, reason, width, 30)
}

// renderApprovalRows is renderApproval with at most diffRows lines of the
// diff.
func renderApprovalRows(s styles, req agent.ApprovalInfo, typingReason bool, reason string, width, diffRows int) string {
	var b strings.Builder
	bar := s.paint(s.yellow, "│")
	target := format.ArgSummary(req.Arguments)
	if req.Command != "" {
		target = ""
	}
	fmt.Fprintf(&b, "%s %s", s.paint(s.yellow, "╭─ Allow"), s.paint(s.bold, req.Tool))
	if target != "" {
		fmt.Fprintf(&b, " %s", target)
	}
	b.WriteString(s.paint(s.yellow, "?"))
	if req.Command != "" {
		fmt.Fprintf(&b, "\n%s %s", bar, s.paint(s.bold, "$ "+req.Command))
	}
	if req.Diff != "" {
		for _, l := range strings.Split(renderDiff(s, req.Diff, diffRows, false, width-2), "\n") {
			fmt.Fprintf(&b, "\n%s%s", bar, strings.TrimPrefix(l, "   "))
		}
	}
	if req.Subagent != "" {
		fmt.Fprintf(&b, "\n%s %s", bar, s.paint(s.cyan, "for subagent "+req.Subagent))
	}
	if req.Rule != "" {
		fmt.Fprintf(&b, "\n%s %s", bar, s.paint(s.faint, "asked by "+req.Rule))
	}
	if req.Reason != "" && req.Reason != req.Rule {
		fmt.Fprintf(&b, "\n%s %s", bar, s.paint(s.faint, req.Reason))
	}
	if typingReason {
		fmt.Fprintf(&b, "\n%s Reason for the model (Enter sends, empty for none): %s█", s.paint(s.yellow, "╰─"), reason)
		return b.String()
	}
	always := "always: no rule may allow this, so once"
	if req.Suggested != "" {
		always = "always allow " + req.Suggested
	}
	fmt.Fprintf(&b, "\n%s %s yes  %s this session  %s %s  %s no (+ reason)  %s deny",
		s.paint(s.yellow, "╰─"), s.paint(s.bold, "[y]"), s.paint(s.bold, "[s]"), s.paint(s.bold, "[a]"), always,
		s.paint(s.bold, "[n]"), s.paint(s.bold, "Esc"))
	return b.String()
}
