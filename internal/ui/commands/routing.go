package commands

import (
	"context"
	"fmt"
	"io"
	"strings"
)

// SetArchitect turns architect mode on (architect plans, editor edits;
// editor "" for the main model) or off (architect "off") for this
// session's next runs. Errors: a model whose provider has no key, the
// engine's rebuild.
func (c *Controller) SetArchitect(ctx context.Context, architect, editor string) error {
	if _, err := c.svc.SetArchitect(ctx, architect, editor); err != nil {
		return err
	}
	return c.live.Refresh(ctx)
}

// cmdArchitect shows architect mode, or sets it: "/architect MODEL
// [EDITOR]" or "/architect off".
func cmdArchitect(ctx context.Context, c *Controller, arg string, out io.Writer) (Outcome, error) {
	if fields := strings.Fields(arg); len(fields) > 0 {
		if len(fields) > 2 || fields[0] == "off" && len(fields) > 1 {
			return Outcome{}, fmt.Errorf("usage: /architect [ARCHITECT_MODEL [EDITOR_MODEL]] or /architect off")
		}
		editor := ""
		if len(fields) == 2 {
			editor = fields[1]
		}
		if err := c.SetArchitect(ctx, fields[0], editor); err != nil {
			return Outcome{}, err
		}
	}
	architect, editor, on := c.Runtime().Architect()
	if !on {
		fmt.Fprintln(out, "architect mode: off (/architect MODEL [EDITOR] turns it on)")
		return Outcome{}, nil
	}
	fmt.Fprintf(out, "architect mode: %s plans with read-only tools, then %s makes the edits\n", architect, editor)
	return Outcome{}, nil
}

// writeSummary writes the small model's summary of the conversation
// (app.Session.Summarize) after /summary's figures; a failure is a line,
// not an error (the figures stand).
func writeSummary(ctx context.Context, c *Controller, out io.Writer) {
	if len(c.Session().Messages) == 0 {
		return
	}
	text, model, err := c.live.Summarize(ctx)
	if err != nil {
		fmt.Fprintf(out, "\nno summary: %v\n", err)
		return
	}
	fmt.Fprintf(out, "\nsummary (%s):\n%s\n", model, strings.TrimSpace(text))
}
