package catalog

import (
	"context"
	"testing"
)

func TestChooseDefaultFirstKeyWins(t *testing.T) {
	c := mustLoad(t)
	probed := false
	probe := func(context.Context, string) bool { probed = true; return true }

	got := c.ChooseDefault(context.Background(), envMap(map[string]string{
		"OPENAI_API_KEY": "o", "ANTHROPIC_API_KEY": "a", "GROQ_API_KEY": "g",
	}), probe)
	require.Equal(t, Choice{
		Provider: "anthropic", Model: "claude-sonnet-4-6",
		Reason: "using anthropic (claude-sonnet-4-6): found ANTHROPIC_API_KEY; choose another with --provider or `aidex providers`",
	}, got)
	require.False(t, probed, "no local probe when a key is set")

	got = c.ChooseDefault(context.Background(), envMap(map[string]string{"GROQ_API_KEY": "g", "MISTRAL_API_KEY": "m"}), probe)
	require.Equal(t, "groq", got.Provider)
	require.Equal(t, "openai/gpt-oss-120b", got.Model)
}

func TestChooseDefaultAlternateVariable(t *testing.T) {
	got := mustLoad(t).ChooseDefault(context.Background(), envMap(map[string]string{"GOOGLE_API_KEY": "k"}), nil)
	require.Equal(t, "gemini", got.Provider)
	require.Equal(t, "gemini-2.5-flash", got.Model)
	require.Contains(t, got.Reason, "found GOOGLE_API_KEY")
}

func TestChooseDefaultConfigKey(t *testing.T) {
	c, err := mustLoad(t).WithOverrides(map[string]Override{"cerebras": {APIKey: "k"}})
	require.NoError(t, err)
	got := c.ChooseDefault(context.Background(), nil, nil)
	require.Equal(t, "cerebras", got.Provider)
	require.Contains(t, got.Reason, "found config api_key")
}

func TestChooseDefaultOllamaWhenItAnswers(t *testing.T) {
	c := mustLoad(t)
	var gotURL string
	probe := func(_ context.Context, u string) bool { gotURL = u; return true }
	got := c.ChooseDefault(context.Background(), envMap(nil), probe)
	require.Equal(t, "http://localhost:11434", gotURL)
	require.Equal(t, "ollama", got.Provider)
	require.Equal(t, "qwen2.5-coder:7b", got.Model)
	require.Equal(t, "no API key found: using ollama at http://localhost:11434 (local, model qwen2.5-coder:7b); "+
		"set ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY, or run `aidex providers`", got.Reason)

	c2, err := c.WithOverrides(map[string]Override{"ollama": {BaseURL: "http://gpu:11434"}})
	require.NoError(t, err)
	c2.ChooseDefault(context.Background(), nil, probe)
	require.Equal(t, "http://gpu:11434", gotURL, "the probe gets the configured ollama_base_url")
}

func TestChooseDefaultKeyFreeFallback(t *testing.T) {
	c := mustLoad(t)
	want := Choice{
		Provider: "pollinations", Model: "openai",
		Reason: "no API key found: using pollinations (key-free, no signup); " +
			"set ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY, or run `aidex providers`",
		Keyless: true,
	}
	noOllama := func(context.Context, string) bool { return false }
	require.Equal(t, want, c.ChooseDefault(context.Background(), envMap(nil), noOllama))
	require.Equal(t, want, c.ChooseDefault(context.Background(), nil, nil), "nil probe skips ollama")

	// GITHUB_TOKEN is usually set for git, so it does not pick GitHub Models.
	got := c.ChooseDefault(context.Background(), envMap(map[string]string{"GITHUB_TOKEN": "ghp_x"}), noOllama)
	require.Equal(t, "pollinations", got.Provider)
	// A blank key is no key.
	got = c.ChooseDefault(context.Background(), envMap(map[string]string{"OPENAI_API_KEY": " "}), noOllama)
	require.Equal(t, "pollinations", got.Provider)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	called := false
	got = c.ChooseDefault(ctx, nil, func(context.Context, string) bool { called = true; return true })
	require.Equal(t, "pollinations", got.Provider)
	require.False(t, called, "a cancelled context skips the probe")
}
