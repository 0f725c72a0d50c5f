package format

import (
	"fmt"
	"io"
	"strings"

	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/session"
	"github.com/zelvior/aidex/internal/ui/termsafe"
)

// WriteEstimate prints an estimate: the first request's input tokens, then
// per model what such a request costs (input) and each thousand output
// tokens, or how to price a model aidex has no price for.
func WriteEstimate(out io.Writer, est *app.Estimate) {
	fmt.Fprintf(out, "next request: ~%d input tokens (system prompt, conversation, prompt and tool definitions; about 4 bytes a token)\n", est.InputTokens)
	for _, m := range est.Models {
		name := termsafe.Clean(m.Model)
		if m.Role == "fallback" || m.Role == "active" {
			name += " (" + m.Role + ")"
		}
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
