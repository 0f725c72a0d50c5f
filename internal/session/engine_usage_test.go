package session

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/llm"
)

// summaryProvider answers every request with a summary and fixed usage.
type summaryProvider struct{}

func (summaryProvider) Generate(_ context.Context, _ *llm.Request, h llm.Handler) (*llm.Response, error) {
	acc := llm.NewAccumulator(h)
	acc.Text("SUMMARY")
	acc.Finish("stop")
	acc.Usage(llm.Usage{InputTokens: 1000, OutputTokens: 50})
	return acc.Response(), nil
}

// TestCompactionUsageReachesStore: the tokens and cost of a compaction's
// summary request, counted by the engine, are saved too, so a reloaded
// session shows the totals the run reported.
func TestCompactionUsageReachesStore(t *testing.T) {
	s, dir := openTest(t)
	ctx := context.Background()
	sess := newSession(t, s, dir)
	model := agent.ModelInfo{Provider: "p", Name: "m", InputPrice: 3, OutputPrice: 15}
	for _, m := range []llm.Message{llm.UserText("one"), llm.AssistantText("a"), llm.UserText("two"),
		llm.AssistantText("b"), llm.UserText("three"), llm.AssistantText("c")} {
		require.NoError(t, s.AppendMessage(ctx, sess.ID, m, nil))
		sess.Messages = append(sess.Messages, m)
	}
	e := &agent.Engine{Client: summaryProvider{}, Store: s.Priced(model.Cost), Config: agent.Config{Model: model}}
	require.NoError(t, e.Compact(ctx, sess, "short", func(agent.Event) {}))
	require.Equal(t, 1000, sess.Usage.InputTokens)
	loaded, err := s.Load(ctx, sess.ID)
	require.NoError(t, err)
	require.Equal(t, sess.Usage, loaded.Usage)
	require.InDelta(t, sess.CostUSD, loaded.CostUSD, 1e-12)
	require.NotZero(t, loaded.CostUSD)
	// The ledger has the summary's usage with its model, for the daily
	// budget and the per-model breakdown.
	b, err := s.Breakdown(ctx, sess.ID, nil)
	require.NoError(t, err)
	require.Equal(t, []ModelCost{{Model: "p/m", Requests: 1, Usage: sess.Usage, CostUSD: sess.CostUSD}}, b.Models)
}
