package commands

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/session"
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
	WriteBreakdown(out, b, costRecent)
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
	WriteEstimate(out, est)
	return nil
}

// WriteEstimate prints an estimate: the first request's input tokens, then
// per model what such a request costs (input) and each thousand output
// tokens, or how to price a model aidex has no price for.
func WriteEstimate(out io.Writer, est *app.Estimate) {
	fmt.Fprintf(out, "next request: ~%d input tokens (system prompt, conversation, prompt and tool definitions; about 4 bytes a token)\n", est.InputTokens)
	for _, m := range est.Models {
		name := termsafe.Clean(m.Model)
		if !m.Known {
			provider, model, _ := strings.Cut(m.Model, "/")
			fmt.Fprintf(out, "  %s: price unknown (set input_price and output_price in [providers.%s.models.%q])\n", name, termsafe.Clean(provider), termsafe.Clean(model))
			continue
		}
		fmt.Fprintf(out, "  %s: %s per turn for the input + %s per 1,000 output tokens ($%g / $%g per million tokens)\n",
			name, FormatCost(m.InputUSD), FormatCost(m.OutputPer1kUSD), m.InputPrice, m.OutputPrice)
	}
}

// WriteBreakdown prints a session's usage and cost: the totals, then per
// model, per model response (the latest recent ones; 0: all) and per tool.
func WriteBreakdown(out io.Writer, b *session.Breakdown, recent int) {
	u := b.Usage
	fmt.Fprintf(out, "input %d · output %d · cache read %d · cache write %d tokens · %s\n",
		u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheWriteTokens, FormatCost(b.CostUSD))
	if len(b.Models) > 0 {
		fmt.Fprintln(out, "by model:")
		for _, m := range b.Models {
			fmt.Fprintf(out, "  %s · %d responses · %s · %s\n", modelName(m.Model), m.Requests, usageText(m.Usage), FormatCost(m.CostUSD))
		}
	}
	reqs := b.Requests
	if len(reqs) > 0 {
		head := "by turn (model response):"
		if recent > 0 && len(reqs) > recent {
			head = fmt.Sprintf("by turn (the last %d of %d model responses; aidex sessions show %s lists all):", recent, len(reqs), b.SessionID)
			reqs = reqs[len(reqs)-recent:]
		}
		fmt.Fprintln(out, head)
		for _, r := range reqs {
			fmt.Fprintf(out, "  #%d · prompt %d · %s · %s · %s\n", r.Seq, r.Exchange, modelName(r.Model), usageText(r.Usage), FormatCost(r.CostUSD))
		}
	}
	if len(b.Tools) > 0 {
		fmt.Fprintln(out, "by tool (its results' tokens, about 4 bytes a token, times the later requests that carried them):")
		for _, t := range b.Tools {
			fmt.Fprintf(out, "  %s · %d results · %d tokens · carried %d tokens · ~%s\n",
				termsafe.Clean(t.Tool), t.Calls, t.ResultTokens, t.CarriedTokens, FormatCost(t.CostUSD))
		}
	}
}

// modelName is a ledger model id for display ("" was not recorded).
func modelName(m string) string {
	if m == "" {
		return "(model not recorded)"
	}
	return termsafe.Clean(m)
}

// usageText is "input N · output N tokens" (cache read when any).
func usageText(u llm.Usage) string {
	s := fmt.Sprintf("input %d · output %d tokens", u.InputTokens, u.OutputTokens)
	if u.CacheReadTokens > 0 {
		s += fmt.Sprintf(" (%d cached)", u.CacheReadTokens)
	}
	return s
}
