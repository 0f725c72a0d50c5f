package commands

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/zelvior/aidex/internal/app/multi"
)

// multiUsage is the synopsis of /multi.
const multiUsage = "/multi [list | add PROVIDER/MODEL [effort=E] [budget=N] | remove MODEL | single|round-robin|sequential|parallel]"

// cmdMulti shows or changes the session's conversation mode and active
// models: "/multi" and "/multi list" show them, "/multi add SPEC" and
// "/multi remove MODEL" change the list, "/multi MODE" sets the mode.
func cmdMulti(ctx context.Context, c *Controller, arg string, out io.Writer) (Outcome, error) {
	verb, rest, _ := strings.Cut(strings.TrimSpace(arg), " ")
	rest = strings.TrimSpace(rest)
	switch verb {
	case "", "list":
	case "add":
		m, err := c.live.AddModel(ctx, rest)
		if err != nil {
			return Outcome{}, err
		}
		fmt.Fprintf(out, "added %s\n", m)
	case "remove", "rm":
		if rest == "" {
			return Outcome{}, fmt.Errorf("which model? %s", multiUsage)
		}
		if err := c.live.RemoveModel(rest); err != nil {
			return Outcome{}, err
		}
		fmt.Fprintf(out, "removed %s\n", rest)
	default:
		mode, err := multi.ParseMode(verb)
		if err != nil {
			return Outcome{}, fmt.Errorf("%w\nusage: %s", err, multiUsage)
		}
		if err := c.live.SetMultiMode(mode); err != nil {
			return Outcome{}, err
		}
	}
	WriteMulti(out, c.Multi(), c.Runtime().Provider.Name+"/"+c.Runtime().Model)
	return Outcome{}, nil
}

// WriteMulti writes the conversation mode and the active models (current
// is the session's model, which answers in single mode).
func WriteMulti(out io.Writer, m multi.Setting, current string) {
	fmt.Fprintf(out, "mode: %s\n", m.Mode)
	if len(m.Models) == 0 {
		fmt.Fprintf(out, "active models: none (the session's model %s answers; /multi add PROVIDER/MODEL adds one)\n", current)
		return
	}
	if !m.Active() {
		fmt.Fprintf(out, "the session's model %s answers (/multi round-robin, sequential or parallel uses the list)\n", current)
	}
	fmt.Fprintln(out, "active models:")
	for i, a := range m.Models {
		fmt.Fprintf(out, "  %d. %s\n", i+1, a)
	}
}

// Multi returns the session's conversation mode and active models.
func (c *Controller) Multi() multi.Setting { return c.live.Multi() }

// MultiLabel is the status line's note of a multi-model session: the
// mode and the active models' names ("parallel: a1, a2, c1"), "" when the
// session's model answers alone.
func (c *Controller) MultiLabel() string {
	m := c.live.Multi()
	if !m.Active() {
		return ""
	}
	names := make([]string, len(m.Models))
	for i, a := range m.Models {
		names[i] = a.ID[strings.LastIndex(a.ID, "/")+1:]
	}
	return string(m.Mode) + ": " + strings.Join(names, ", ")
}
