package tui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/ui/format"
)

// Type-ahead guard. What is typed while an approval card is shown must
// not answer it by accident: the user was typing a message when the card
// appeared, or types a word that holds a card key. A key answers only when
// the card has been on the screen for approvalGuard (keys typed before it
// appeared, or in the moment it appeared, never answer) and no typing key
// (one that is not a card key) came within typingGap before it (a card key
// inside a typed word never answers). approvalGuard is longer than the
// time to notice a new card and stop typing (~250 ms); typingGap longer
// than the pause between a fluent typist's keys (~100-200 ms) and shorter
// than the pause before a deliberate key press.
const (
	approvalGuard = 400 * time.Millisecond
	typingGap     = 300 * time.Millisecond
)

// approvalChoice is one line of the approval menu: its number is its
// place (1-4), letter its key.
type approvalChoice struct {
	answer agent.Answer
	letter string
	label  string
}

// approvalChoices is the approval menu for req: yes, for the session,
// always (the rule it saves, or this call only when no rule may allow
// such calls), no with a reason.
func approvalChoices(req agent.ApprovalInfo) []approvalChoice {
	always := "Always (no rule may allow this, so this time only)"
	if req.Suggested != "" {
		always = "Always allow " + req.Suggested
	}
	return []approvalChoice{
		{agent.AnswerOnce, "y", "Yes"},
		{agent.AnswerSession, "s", "Yes, for this session"},
		{agent.AnswerAlways, "a", always},
		{agent.AnswerDeny, "n", "No, and tell the model why"},
	}
}

// approvalModel is the "the run needs you" widget: the approval question
// the engine is waiting on (nil when none) with its menu and, after
// "no", the denial reason being typed; or ask_user's form (form, nil when
// none). Its keys answer directly on the question's reply channel.
type approvalModel struct {
	st     styles
	width  int
	height int // the terminal's rows (0: unknown)
	ask    *askReq
	form   *askForm
	opened time.Time // when the question or form was shown (approvalGuard)
	sel    int       // the menu line chosen by the arrows (0-3)
	typing bool      // the denial reason is being typed
	reason string    // the denial reason typed so far
}

// active reports whether a question or a form is waiting.
func (a approvalModel) active() bool { return a.ask != nil || a.form != nil }

// openForm shows ask_user's form for r, opened at now.
func (a approvalModel) openForm(r *formReq, now time.Time) approvalModel {
	a.form, a.opened = newAskForm(r), now
	return a
}

// open shows the question r, opened at now.
func (a approvalModel) open(r *askReq, now time.Time) approvalModel {
	a.ask, a.typing, a.reason, a.sel, a.opened = r, false, "", 0, now
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
	a.ask, a.form, a.typing, a.reason, a.sel = nil, nil, false, "", 0
	return a
}

// keyPress is a key press with what the guard needs: when it came, when
// the last typing key came (zero: none) and whether the input box holds
// typed text.
type keyPress struct {
	k          tea.KeyPressMsg
	now        time.Time
	lastTyping time.Time
	typed      bool
}

// settled reports whether a card key pressed at kp may answer: the card
// has been shown for approvalGuard and no typing key came within
// typingGap before it.
func (a approvalModel) settled(kp keyPress) bool {
	return kp.now.Sub(a.opened) >= approvalGuard &&
		(kp.lastTyping.IsZero() || kp.now.Sub(kp.lastTyping) >= typingGap)
}

// key handles a key press while a question or form waits. It reports
// whether the key was the card's (used, or dropped by the guard); a key
// it does not take is typing, which the caller puts in the input box.
func (a approvalModel) key(kp keyPress) (approvalModel, bool) {
	if a.ask == nil && a.form != nil {
		// A form's fields take typing: only the opening guard applies.
		if kp.now.Sub(a.opened) < approvalGuard {
			return a, true
		}
		if a.form.key(kp.k) {
			a.form = nil
		}
		return a, true
	}
	if a.ask == nil {
		return a, false
	}
	if a.typing {
		return a.reasonKey(kp.k), true
	}
	return a.decisionKey(kp)
}

// decisionKey moves the menu with ↑/↓ and answers with Enter (the line
// chosen), a line's number or letter, or Esc (deny) — when the key is
// settled. Letters and Enter answer only while nothing is typed in the
// input box: after typing they are the input's (a number or Esc still
// answers). "No" opens the reason field. A card key
// that may not answer is dropped (Enter, Esc) or typed (letters, digits).
func (a approvalModel) decisionKey(kp keyPress) (approvalModel, bool) {
	choices := approvalChoices(a.ask.req)
	pick := -1
	switch key := kp.k.String(); key {
	case "up", "shift+tab":
		a.sel = (a.sel + len(choices) - 1) % len(choices)
		return a, true
	case "down", "tab":
		a.sel = (a.sel + 1) % len(choices)
		return a, true
	case "enter":
		if kp.typed {
			return a, false // the input box's Enter: it cannot send while the card waits
		}
		if !a.settled(kp) {
			return a, true
		}
		pick = a.sel
	case "esc":
		if a.settled(kp) {
			return a.answer(agent.AnswerDeny, ""), true
		}
		return a, true
	case "1", "2", "3", "4":
		if !a.settled(kp) {
			return a, false
		}
		pick = int(key[0] - '1')
	default:
		for i, c := range choices {
			if strings.EqualFold(key, c.letter) {
				pick = i
			}
		}
		if pick < 0 || kp.typed || !a.settled(kp) {
			return a, false
		}
	}
	if c := choices[pick]; c.answer != agent.AnswerDeny {
		return a.answer(c.answer, ""), true
	}
	a.sel, a.typing = pick, true
	return a, true
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

// Update takes a new size.
func (a approvalModel) Update(msg tea.Msg) (approvalModel, tea.Cmd) {
	if msg, ok := msg.(tea.WindowSizeMsg); ok {
		a.width, a.height = msg.Width, msg.Height
	}
	return a, nil
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
	return renderApprovalRows(a.st, a.ask.req, a.sel, a.typing, a.reason, a.width, diffRows)
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

// renderApproval draws the approval prompt with the menu's first line
// chosen: what the tool wants to do (the exact command or the diff), why
// it asks, and the menu. reason is the denial reason being typed
// (typingReason true while typing it). The diff shows at most 30 lines.
func renderApproval(s styles, req agent.ApprovalInfo, typingReason bool, reason string, width int) string {
	return renderApprovalRows(s, req, 0, typingReason, reason, width, 30)
}

// renderApprovalRows is renderApproval with menu line sel chosen and at
// most diffRows lines of the diff.
func renderApprovalRows(s styles, req agent.ApprovalInfo, sel int, typingReason bool, reason string, width, diffRows int) string {
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
	if why := format.ApprovalWhy(req); why != "" {
		for _, l := range strings.Split(format.Wrap(why, max(width-2, 20)), "\n") {
			fmt.Fprintf(&b, "\n%s %s", bar, s.paint(s.faint, l))
		}
	}
	if typingReason {
		fmt.Fprintf(&b, "\n%s Reason for the model (Enter sends, empty for none): %s█", s.paint(s.yellow, "╰─"), reason)
		return b.String()
	}
	for i, c := range approvalChoices(req) {
		line := fmt.Sprintf("%d. %s (%s)", i+1, c.label, c.letter)
		if i == sel {
			fmt.Fprintf(&b, "\n%s %s %s", bar, s.paint(s.yellow, "❯"), s.paint(s.bold, truncateLine(line, width-4)))
		} else {
			fmt.Fprintf(&b, "\n%s   %s", bar, truncateLine(line, width-4))
		}
	}
	fmt.Fprintf(&b, "\n%s %s", s.paint(s.yellow, "╰─"), s.paint(s.faint, "↑/↓ Enter, a number or a letter · Esc denies"))
	return b.String()
}
