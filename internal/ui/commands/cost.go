package commands

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/ui/format"
	"github.com/zelvior/aidex/internal/ui/termsafe"
)

// costRecent is how many of the latest model responses /cost lists (aidex
// sessions show lists them all).
const costRecent = 10

// cmdCost is /cost: the session's tokens and cost per model, per model
// response and per tool, then its subagents'; "/cost estimate [PROMPT]"
// prices the next request instead.
func cmdCost(ctx context.Context, c *Controller, arg string, out io.Writer) (Outcome, error) {
	if verb, rest, _ := strings.Cut(strings.TrimSpace(arg), " "); verb == "estimate" {
		return Outcome{}, costEstimate(ctx, c, strings.TrimSpace(rest), out)
	} else if verb != "" {
		return Outcome{}, fmt.Errorf("/cost takes no argument or estimate [PROMPT], not %q", arg)
	}
	b, err := c.svc.Breakdown(ctx, c.Session().ID)
	if err != nil {
		return Outcome{}, fmt.Errorf("usage of this session: %w", err)
	}
	format.WriteBreakdown(out, b, costRecent)
	subs, err := c.Store().Descendants(ctx, c.Session().ID)
	if err != nil {
		return Outcome{}, fmt.Errorf("subagents' usage: %w", err)
	}
	if len(subs) == 0 {
		return Outcome{}, nil
	}
	total := c.Session().CostUSD
	fmt.Fprintf(out, "subagents (%d):\n", len(subs))
	for _, s := range subs {
		total += s.CostUSD
		fmt.Fprintf(out, "  %s · input %d · output %d tokens · %s · %d tool calls\n",
			termsafe.Clean(s.Subagent), s.Usage.InputTokens, s.Usage.OutputTokens, FormatCost(s.CostUSD), s.ToolCalls)
	}
	fmt.Fprintf(out, "total with subagents: %s\n", FormatCost(total))
	return Outcome{}, nil
}

// costEstimate prints the next request's estimate: the conversation, the
// queued context and prompt (may be "") with the tool definitions.
func costEstimate(ctx context.Context, c *Controller, prompt string, out io.Writer) error {
	var parts []llm.Part
	if prompt != "" {
		parts = []llm.Part{{Type: llm.PartText, Text: prompt}}
	}
	est, err := c.live.Estimate(ctx, parts)
	if err != nil {
		return err
	}
	format.WriteEstimate(out, est)
	return nil
}
