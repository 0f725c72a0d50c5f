package tui

import (
	"context"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/ui/format"
	"github.com/zelvior/aidex/internal/ui/termsafe"
)

// formReq is ask_user's interaction waiting for the user's answer on
// reply.
type formReq struct {
	info  agent.InteractionInfo
	reply chan agent.InteractionAnswer
}

// Ask queues the interaction (the form replaces the input) and waits for
// the answer or ctx's end. Errors: ctx's.
func (a approver) Ask(ctx context.Context, info agent.InteractionInfo) (agent.InteractionAnswer, error) {
	r := &formReq{info: info, reply: make(chan agent.InteractionAnswer, 1)}
	a.q.push(item{form: r})
	select {
	case ans := <-r.reply:
		return ans, nil
	case <-ctx.Done():
		return agent.InteractionAnswer{ID: info.ID, Declined: true}, ctx.Err()
	}
}

// askForm is ask_user's form, one question at a time: arrows move
// between options, Space toggles one in a multi-select, Enter answers
// the question (the last one sends the answers), Esc declines them all.
// Text and files questions take a line of text (paths separated by
// spaces).
type askForm struct {
	req     *formReq
	q       int // the question shown
	cursor  int
	picked  map[int]bool
	text    string
	err     string
	answers map[string]agent.Reply
}

func newAskForm(r *formReq) *askForm {
	return &askForm{req: r, picked: map[int]bool{}, answers: map[string]agent.Reply{}}
}

// question is the question shown.
func (f *askForm) question() agent.Question { return f.req.info.Questions[f.q] }

// choices are the rows the cursor moves over: the options, or yes and
// no for confirm (none for text and files).
func (f *askForm) choices() []agent.Option {
	q := f.question()
	if q.Kind == agent.KindConfirm {
		return []agent.Option{{Label: agent.ConfirmYes}, {Label: agent.ConfirmNo}}
	}
	return q.Options
}

// key handles a key; done reports that the form has answered (or
// declined) and is to close.
func (f *askForm) key(k tea.KeyPressMsg) (done bool) {
	q, n := f.question(), len(f.choices())
	switch k.String() {
	case "esc":
		f.req.reply <- agent.InteractionAnswer{ID: f.req.info.ID, Declined: true}
		return true
	case "enter":
		return f.enter()
	case "up":
		if n > 0 {
			f.cursor = (f.cursor + n - 1) % n
		}
		return false
	case "down", "tab":
		if n > 0 {
			f.cursor = (f.cursor + 1) % n
		}
		return false
	case "space":
		if q.Kind == agent.KindChoice && q.MultiSelect {
			f.picked[f.cursor] = !f.picked[f.cursor]
			f.err = ""
			return false
		}
	}
	switch q.Kind {
	case agent.KindText, agent.KindFiles:
		f.text = editLine(f.text, k)
	case agent.KindConfirm:
		switch strings.ToLower(k.String()) {
		case "y":
			f.cursor = 0
			return f.enter()
		case "n":
			f.cursor = 1
			return f.enter()
		}
	}
	return false
}

// enter answers the question shown and moves to the next, or sends the
// answers after the last.
func (f *askForm) enter() bool {
	q := f.question()
	var r agent.Reply
	switch q.Kind {
	case agent.KindText:
		r = agent.TextReply(f.text)
	case agent.KindFiles:
		r = agent.ListReply(strings.Fields(f.text)...)
	case agent.KindConfirm:
		r = agent.TextReply(f.choices()[f.cursor].Label)
	case agent.KindChoice:
		if !q.MultiSelect {
			r = agent.TextReply(q.Options[f.cursor].Label)
			break
		}
		var labels []string
		for i, o := range q.Options {
			if f.picked[i] {
				labels = append(labels, o.Label)
			}
		}
		if len(labels) == 0 {
			f.err = "pick at least one option (Space), or Esc to decline"
			return false
		}
		r = agent.ListReply(labels...)
	}
	f.answers[q.Question] = r
	f.q++
	f.cursor, f.picked, f.text, f.err = 0, map[int]bool{}, "", ""
	if f.q < len(f.req.info.Questions) {
		return false
	}
	ans, err := agent.CheckAnswer(f.req.info, agent.InteractionAnswer{ID: f.req.info.ID, Answers: f.answers})
	if err != nil {
		// The form builds only valid answers; should one not be, ask again.
		f.q, f.answers, f.err = 0, map[string]agent.Reply{}, err.Error()
		return false
	}
	f.req.reply <- ans
	return true
}

// decline answers the form with a refusal (Ctrl+C).
func (f *askForm) decline() {
	f.req.reply <- agent.InteractionAnswer{ID: f.req.info.ID, Declined: true}
}

// view draws the form in the approval prompt's style.
func (f *askForm) view(s styles, width int) string {
	q := f.question()
	bar := s.paint(s.yellow, "│")
	var b strings.Builder
	who := "The model"
	if src := f.req.info.Source; src != "" {
		who = termsafe.Clean(src) // an MCP server's form request: "MCP server NAME"
	}
	title := "╭─ " + who + " asks"
	if n := len(f.req.info.Questions); n > 1 {
		title += fmt.Sprintf(" (%d/%d)", f.q+1, n)
	}
	b.WriteString(s.paint(s.yellow, title))
	if q.Header != "" {
		fmt.Fprintf(&b, " %s", s.paint(s.faint, "["+termsafe.Clean(q.Header)+"]"))
	}
	for _, l := range strings.Split(format.Wrap(termsafe.Clean(q.Question), width-2), "\n") {
		fmt.Fprintf(&b, "\n%s %s", bar, s.paint(s.bold, l))
	}
	for i, o := range f.choices() {
		mark := "  "
		if i == f.cursor {
			mark = s.paint(s.yellow, "❯ ")
		}
		if q.Kind == agent.KindChoice && q.MultiSelect {
			box := "[ ] "
			if f.picked[i] {
				box = "[x] "
			}
			mark += box
		}
		line := mark + termsafe.Clean(o.Label)
		if o.Description != "" {
			line += "  " + s.paint(s.faint, termsafe.Clean(o.Description))
		}
		fmt.Fprintf(&b, "\n%s %s", bar, line)
	}
	if q.Kind == agent.KindText || q.Kind == agent.KindFiles {
		label := "answer"
		if q.Kind == agent.KindFiles {
			label = "paths (separated by spaces)"
		}
		fmt.Fprintf(&b, "\n%s %s: %s█", bar, label, f.text)
	}
	if f.err != "" {
		fmt.Fprintf(&b, "\n%s %s", bar, s.paint(s.red, f.err))
	}
	fmt.Fprintf(&b, "\n%s %s", s.paint(s.yellow, "╰─"), formKeys(q))
	return b.String()
}

// formKeys is the key line of a question.
func formKeys(q agent.Question) string {
	switch {
	case q.Kind == agent.KindChoice && q.MultiSelect:
		return "↑↓ move  Space toggle  Enter done  Esc decline"
	case q.Kind == agent.KindChoice:
		return "↑↓ move  Enter choose  Esc decline"
	case q.Kind == agent.KindConfirm:
		return "[y] yes  [n] no  ↑↓ Enter  Esc decline"
	}
	return "Enter send  Esc decline"
}
