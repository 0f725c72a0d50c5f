package app

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/app/apptest"
	"github.com/zelvior/aidex/internal/llm"
)

// TestConfigPricesAndBudget: [providers.X.models.Y] prices reach the
// engine's model (and so every cost), PriceOf prices other models, and
// [budget] becomes the engine's governor with the store's sums.
func TestConfigPricesAndBudget(t *testing.T) {
	home := apptest.NewHome(t, "provider = \"local\"\nmodel = \"coder\"\n[budget]\nsession_usd = 2\ndaily_usd = 5\nmax_tokens = 9000\nrun_usd = 0.5\n"+
		"[providers.local]\ntype = \"openai\"\nbase_url = \"http://127.0.0.1:9/v1\"\napi_key = \"k\"\n"+
		"[providers.local.models.coder]\ninput_price = 2\noutput_price = 8\ncache_read_price = 0.5\n"+
		"[providers.anthropic.models.\"claude-sonnet-4-6\"]\noutput_price = 99\n")
	env := home.Env
	ctx := context.Background()
	svc, err := Start(ctx, StartOptions{Options: Options{Workspace: home.WS, Flags: map[string]string{}, Getenv: func(k string) string { return env[k] }}})
	require.NoError(t, err)
	defer svc.Close()
	rt := svc.Runtime()
	mi := rt.ModelInfo()
	require.Equal(t, [4]float64{2, 8, 0.5, 0}, [4]float64{mi.InputPrice, mi.OutputPrice, mi.CacheReadPrice, mi.CacheWritePrice})
	require.InDelta(t, (1e6*2+1e6*8)/1e6, mi.Cost(llm.Usage{InputTokens: 1e6, OutputTokens: 1e6}), 1e-9)
	require.Equal(t, mi, rt.PriceOf("local/coder"))
	require.Equal(t, mi, rt.PriceOf(""))
	// A catalog model keeps the catalog's input price; the config's output price wins.
	sonnet := rt.PriceOf("anthropic/claude-sonnet-4-6")
	require.Equal(t, 99.0, sonnet.OutputPrice)
	require.Greater(t, sonnet.InputPrice, 0.0)
	require.Zero(t, rt.PriceOf("local/other").InputPrice)

	sess, err := svc.Pick(ctx, "", false)
	require.NoError(t, err)
	b := rt.engineRoom().engineBudget(engineOptions{Store: svc.Store()})
	require.Equal(t, [4]float64{0.5, 2, 5, 9000}, [4]float64{b.RunUSD, b.SessionUSD, b.DailyUSD, float64(b.MaxTokens)})
	require.NotNil(t, b.Spent)
	require.NoError(t, svc.Store().AddModelUsage(ctx, sess.ID, "local/coder", llm.Usage{InputTokens: 10}, 0.25))
	sp, err := b.Spent(ctx, sess.ID)
	require.NoError(t, err)
	require.InDelta(t, 0.25, sp.SessionUSD, 1e-9)
	require.InDelta(t, 0.25, sp.DailyUSD, 1e-9)
	require.Equal(t, 10, sp.SessionTokens)
	require.Equal(t, 0.1, rt.engineRoom().engineBudget(engineOptions{RunUSD: 0.1}).RunUSD, "Ralph's share replaces run_usd")
}
