package config

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestModelPricesFromTables(t *testing.T) {
	e := newEnv(t)
	writeFile(t, e.global(), "[providers.local]\ntype = \"openai\"\nbase_url = \"http://127.0.0.1:8080/v1\"\n"+
		"[providers.local.models.coder]\nvision = true\ninput_price = 1.5\noutput_price = 6\n"+
		"[providers.local.models.\"tiny:1b\"]\ncache_read_price = 0.1\n")
	writeFile(t, e.project(), "[providers.local.models.coder]\noutput_price = 8\n")
	cfg, warns, err := e.load(nil, "local")
	require.NoError(t, err)
	p, ok := cfg.PriceOf("local", "coder")
	require.True(t, ok)
	require.Equal(t, 1.5, *p.Input)
	require.Nil(t, p.CacheRead)
	require.Equal(t, []string{"coder"}, cfg.Providers["local"].VisionModels)
	// The untrusted project file may not price a provider it does not define.
	require.Equal(t, 6.0, *p.Output)
	require.Contains(t, warningsText(warns), "may not price the models of provider \"local\"")
	tiny, ok := cfg.PriceOf("local", "tiny:1b")
	require.True(t, ok)
	require.Equal(t, 0.1, *tiny.CacheRead)
	require.Nil(t, tiny.Input)
	_, ok = cfg.PriceOf("local", "other")
	require.False(t, ok)

	// Trusted, the project file's price wins key by key.
	e.trust(t, "local")
	cfg, _, err = e.load(nil, "local")
	require.NoError(t, err)
	p, _ = cfg.PriceOf("local", "coder")
	require.Equal(t, 8.0, *p.Output)
	require.Equal(t, 1.5, *p.Input)
}

func TestModelPriceErrors(t *testing.T) {
	e := newEnv(t)
	for _, tt := range []struct{ file, want string }{
		{"[providers.local.models.m]\ninput_price = \"cheap\"\n", `config.toml:2: providers.local.models.m.input_price must be a number of US dollars per million tokens, not a string ("cheap")`},
		{"[providers.local.models.m]\n\noutput_price = -1\n", "config.toml:3: providers.local.models.m.output_price must be 0 or more"},
		{"[providers.local.models.m]\ninput_prise = 1\n", "a model's table takes only vision = true|false, input_price, output_price"},
		{"[providers.local.models]\nm = 3\n", "must be a table such as { vision = true } or { input_price = 0.5, output_price = 1.5 }"},
	} {
		writeFile(t, e.global(), tt.file)
		_, _, err := e.load(nil)
		require.ErrorContains(t, err, tt.want, tt.file)
	}
}

func TestBudgetTable(t *testing.T) {
	e := newEnv(t)
	writeFile(t, e.global(), "[budget]\nsession_usd = 2\ndaily_usd = 10.5\nmax_tokens = 500000\nrun_usd = 0.25\n")
	cfg, _, err := e.load(nil)
	require.NoError(t, err)
	require.Equal(t, Budget{RunUSD: 0.25, SessionUSD: 2, DailyUSD: 10.5, MaxTokens: 500000}, cfg.Budget)

	e.vars["AIDEX_BUDGET_DAILY_USD"] = "3"
	cfg, _, err = e.load(map[string]string{"budget.run_usd": "0.1"})
	require.NoError(t, err)
	require.Equal(t, 3.0, cfg.Budget.DailyUSD)
	require.Equal(t, 0.1, cfg.Budget.RunUSD)
	require.Equal(t, SourceFlag, cfg.Sources["budget.run_usd"])
	delete(e.vars, "AIDEX_BUDGET_DAILY_USD")

	// An untrusted project may not change the user's budgets.
	writeFile(t, e.project(), "[budget]\ndaily_usd = 1000\n")
	cfg, warns, err := e.load(nil)
	require.NoError(t, err)
	require.Equal(t, 10.5, cfg.Budget.DailyUSD)
	require.Contains(t, warningsText(warns), "a project file may not change your budgets")

	writeFile(t, e.global(), "[budget]\nsession_usd = -1\n")
	_, _, err = e.load(nil)
	require.ErrorContains(t, err, "budget.session_usd must be 0 (no limit) or more US dollars, not -1")
	writeFile(t, e.global(), "[budget]\nmax_tokens = -5\n")
	_, _, err = e.load(nil)
	require.ErrorContains(t, err, "budget.max_tokens")
}
