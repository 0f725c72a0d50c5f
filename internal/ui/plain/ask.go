package plain

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/ui/notify"
	"github.com/zelvior/aidex/internal/ui/termsafe"
)

// DeclineWord is what the user types at a question of ask_user to decline
// the whole interaction.
const DeclineWord = "/decline"

// Asker puts ask_user's questions on a line-based terminal: numbered
// options (the user types the number, or several for a multi-select),
// y/n for confirm, a line of text, or paths separated by spaces. It reads
// with ReadLine (io.EOF at the end of input, which declines).
type Asker struct {
	ReadLine func(ctx context.Context) (string, error)
	Printer  *Printer
}

// Ask asks each question in turn and returns the checked answer. A reply
// that does not fit (a number out of range) is explained and asked again;
// DeclineWord or the end of input declines. Errors: ctx's.
func (a *Asker) Ask(ctx context.Context, info agent.InteractionInfo) (agent.InteractionAnswer, error) {
	ans := agent.InteractionAnswer{ID: info.ID, Answers: map[string]agent.Reply{}}
	p := a.Printer
	p.mu.Lock()
	p.newline()
	who := "the model"
	if info.Source != "" {
		who = termsafe.Clean(info.Source)
	}
	fmt.Fprintf(p.Out, "%s %s asks (%s declines):\n", p.paint(cyan, "?"), who, DeclineWord)
	p.mu.Unlock()
	for i, q := range info.Questions {
		r, declined, reason, err := a.question(ctx, i+1, q)
		if err != nil {
			return agent.InteractionAnswer{ID: info.ID, Declined: true}, err
		}
		if declined {
			return agent.InteractionAnswer{ID: info.ID, Declined: true, Reason: reason}, nil
		}
		ans.Answers[q.Question] = r
	}
	return agent.CheckAnswer(info, ans)
}

// question asks one question until its reply fits; declined when the
// user declined (reason "") or the input ended (reason says so).
func (a *Asker) question(ctx context.Context, n int, q agent.Question) (r agent.Reply, declined bool, reason string, err error) {
	p := a.Printer
	p.mu.Lock()
	head := ""
	if q.Header != "" {
		head = "[" + termsafe.Clean(q.Header) + "] "
	}
	fmt.Fprintf(p.Out, "%d. %s%s\n", n, head, termsafe.Clean(q.Question))
	for i, o := range q.Options {
		line := fmt.Sprintf("   %d) %s", i+1, termsafe.Clean(o.Label))
		if o.Description != "" {
			line += " — " + termsafe.Clean(o.Description)
		}
		fmt.Fprintln(p.Out, line)
	}
	p.mu.Unlock()
	for {
		fmt.Fprint(p.Out, promptFor(q))
		line, rerr := a.ReadLine(ctx)
		if ctx.Err() != nil {
			return r, false, "", ctx.Err()
		}
		text := strings.TrimSpace(line)
		if text == DeclineWord {
			return r, true, "", nil
		}
		if rerr != nil && text == "" {
			fmt.Fprintln(p.Out)
			return r, true, "no answer (end of input)", nil
		}
		reply, perr := parseReply(q, text)
		if perr == nil {
			return reply, false, "", nil
		}
		fmt.Fprintln(p.Out, perr.Error())
		if rerr != nil {
			return r, true, "no answer (end of input)", nil
		}
	}
}

// promptFor is the prompt of q's answer line.
func promptFor(q agent.Question) string {
	switch {
	case q.Kind == agent.KindConfirm:
		return "   [y]es/[n]o: "
	case q.Kind == agent.KindFiles:
		return "   paths (separated by spaces): "
	case q.Kind == agent.KindChoice && q.MultiSelect:
		return fmt.Sprintf("   numbers 1-%d (several: separated by spaces or commas): ", len(q.Options))
	case q.Kind == agent.KindChoice:
		return fmt.Sprintf("   number 1-%d: ", len(q.Options))
	}
	return "   answer: "
}

// parseReply reads a typed line as q's reply. Errors say what to type.
func parseReply(q agent.Question, text string) (agent.Reply, error) {
	switch q.Kind {
	case agent.KindConfirm:
		switch strings.ToLower(text) {
		case "y", "yes":
			return agent.TextReply(agent.ConfirmYes), nil
		case "n", "no":
			return agent.TextReply(agent.ConfirmNo), nil
		}
		return agent.Reply{}, errors.New("   answer y or n")
	case agent.KindFiles:
		return agent.ListReply(strings.Fields(text)...), nil
	case agent.KindChoice:
		return pickOptions(q, text)
	}
	return agent.TextReply(text), nil
}

// pickOptions reads option numbers: one, or several for a multi-select.
func pickOptions(q agent.Question, text string) (agent.Reply, error) {
	fields := strings.FieldsFunc(text, func(r rune) bool { return r == ',' || r == ' ' })
	want := fmt.Errorf("   type a number from 1 to %d", len(q.Options))
	if q.MultiSelect {
		want = fmt.Errorf("   type numbers from 1 to %d, separated by spaces or commas", len(q.Options))
	}
	if len(fields) == 0 || (!q.MultiSelect && len(fields) > 1) {
		return agent.Reply{}, want
	}
	var labels []string
	seen := map[int]bool{}
	for _, f := range fields {
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 || n > len(q.Options) {
			return agent.Reply{}, want
		}
		if !seen[n] {
			seen[n] = true
			labels = append(labels, q.Options[n-1].Label)
		}
	}
	if q.MultiSelect {
		return agent.ListReply(labels...), nil
	}
	return agent.TextReply(labels[0]), nil
}

// Asker returns the asker that puts ask_user's questions on this REPL's
// input.
func (r *REPL) Asker() agent.Asker { return &replAsker{r: r} }

// replAsker reads answers from the REPL's line channel.
type replAsker struct{ r *REPL }

func (a *replAsker) Ask(ctx context.Context, info agent.InteractionInfo) (agent.InteractionAnswer, error) {
	a.r.ring(func(n notify.Notifier) string { return n.Question() })
	as := &Asker{ReadLine: a.r.readLine, Printer: a.r.Printer}
	return as.Ask(ctx, info)
}
