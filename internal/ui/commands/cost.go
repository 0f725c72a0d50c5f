package commands

import (
	"context"
	"io"

	"github.com/zelvior/aidex/internal/ui/slash"
)

// cmdCost is /cost (slash.Cost): the session's tokens and cost per
// model, per model response and per tool, then its subagents';
// "/cost estimate [PROMPT]" prices the next request instead.
func cmdCost(ctx context.Context, c *Controller, arg string, out io.Writer) (Outcome, error) {
	return Outcome{}, slash.Cost(ctx, c.svc, c.live, arg, out)
}
