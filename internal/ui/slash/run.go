package slash

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/ui/format"
	"github.com/zelvior/aidex/internal/ui/termsafe"
)

// costRecent is how many of the latest model responses /cost lists (aidex
// sessions show lists them all).
const costRecent = 10

// Compact is /compact [FOCUS] on live session ls: it summarises the
// older turns (focus steers the summary) and writes what it did to out,
// or that there is nothing to compact yet (fewer than 3 messages).
// Errors: the engine's, wrapped "compact: ...".
func Compact(ctx context.Context, ls *app.Session, focus string, out io.Writer) error {
	sess := ls.Info()
	before := len(sess.Messages)
	if before < 3 {
		fmt.Fprintln(out, "nothing to compact yet")
		return nil
	}
	if err := ls.Engine().Compact(ctx, sess, focus, func(agent.Event) {}); err != nil {
		return fmt.Errorf("compact: %w", err)
	}
	fmt.Fprintf(out, "compacted: %d messages → %d\n", before, len(sess.Messages))
	return nil
}

// Cost is /cost [estimate [PROMPT]] on live session ls of svc: the
// session's tokens and cost per model, per model response (the last 10)
// and per tool, then its subagents'; "estimate [PROMPT]" prices the next
// request instead. Errors: another argument (naming the accepted ones),
// the store's.
func Cost(ctx context.Context, svc *app.Service, ls *app.Session, arg string, out io.Writer) error {
	switch verb, rest, _ := strings.Cut(strings.TrimSpace(arg), " "); verb {
	case "estimate":
		return costEstimate(ctx, ls, strings.TrimSpace(rest), out)
	case "":
	default:
		return fmt.Errorf("/cost takes no argument or estimate [PROMPT], not %q", arg)
	}
	sess := ls.Info()
	b, err := svc.Breakdown(ctx, sess.ID)
	if err != nil {
		return fmt.Errorf("usage of this session: %w", err)
	}
	format.WriteBreakdown(out, b, costRecent)
	subs, err := svc.Store().Descendants(ctx, sess.ID)
	if err != nil {
		return fmt.Errorf("subagents' usage: %w", err)
	}
	if len(subs) == 0 {
		return nil
	}
	total := sess.CostUSD
	fmt.Fprintf(out, "subagents (%d):\n", len(subs))
	for _, s := range subs {
		total += s.CostUSD
		fmt.Fprintf(out, "  %s · input %d · output %d tokens · %s · %d tool calls\n",
			termsafe.Clean(s.Subagent), s.Usage.InputTokens, s.Usage.OutputTokens, format.FormatCost(s.CostUSD), s.ToolCalls)
	}
	fmt.Fprintf(out, "total with subagents: %s\n", format.FormatCost(total))
	return nil
}

// costEstimate writes the next request's estimate: the conversation, the
// queued context and prompt (may be "") with the tool definitions.
func costEstimate(ctx context.Context, ls *app.Session, prompt string, out io.Writer) error {
	var parts []llm.Part
	if prompt != "" {
		parts = []llm.Part{{Type: llm.PartText, Text: prompt}}
	}
	est, err := ls.Estimate(ctx, parts)
	if err != nil {
		return err
	}
	format.WriteEstimate(out, est)
	return nil
}
