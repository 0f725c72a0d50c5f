package config

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// RemoveRule takes one rule out of a [permissions] list and keeps the
// rest of the file (comments, other keys) as it was.
func TestRemoveRule(t *testing.T) {
	e := newEnv(t)
	writeFile(t, e.global(), "# mine\nmodel = \"m\"\n\n[permissions]\nallow = [\n  \"run_command(go test *)\", # tests\n  \"read_file\",\n]\ndeny = [\"run_command(git push *)\"]\n")
	require.NoError(t, RemoveRule(e.global(), "allow", "run_command(go test *)"))
	data, err := os.ReadFile(e.global())
	require.NoError(t, err)
	require.Contains(t, string(data), "# mine\nmodel = \"m\"")
	require.Contains(t, string(data), `allow = ["read_file"]`)
	require.Contains(t, string(data), `deny = ["run_command(git push *)"]`)

	err = RemoveRule(e.global(), "allow", "nope")
	require.ErrorContains(t, err, `has no allow rule "nope" (it has: read_file)`)
	require.ErrorContains(t, RemoveRule(e.global(), "ask", "x"), "has no ask rules")
	require.ErrorContains(t, RemoveRule(e.global(), "maybe", "x"), "allow, deny or ask")
	require.NoError(t, RemoveRule(e.global(), "deny", "run_command(git push *)"))
	cfg, _, err := e.load(nil)
	require.NoError(t, err)
	require.Empty(t, cfg.Permissions.Deny)
	require.Len(t, cfg.Permissions.Allow, 1)
}

// [providers.NAME.models.MODEL] effort and budget set one model's
// reasoning (iptic-memex's per-model settings); bad values name the key.
func TestModelTableReasoning(t *testing.T) {
	e := newEnv(t)
	writeFile(t, e.global(), "reasoning_effort = \"low\"\n[providers.openai.models.o3]\neffort = \"high\"\ninput_price = 2.0\n[providers.anthropic.models.claude-opus-4-6]\nbudget = 16000\n")
	cfg, _, err := e.load(nil, "openai", "anthropic")
	require.NoError(t, err)
	r, ok := cfg.ReasoningOf("openai", "o3")
	require.True(t, ok)
	require.Equal(t, "high", r.Effort)
	_, priced := cfg.PriceOf("openai", "o3")
	require.True(t, priced, "prices in the same table still apply")
	r, ok = cfg.ReasoningOf("anthropic", "claude-opus-4-6")
	require.True(t, ok)
	require.Equal(t, 16000, *r.Budget)
	_, priced = cfg.PriceOf("anthropic", "claude-opus-4-6")
	require.False(t, priced, "a reasoning-only table prices nothing")
	_, ok = cfg.ReasoningOf("openai", "gpt-5")
	require.False(t, ok)

	writeFile(t, e.global(), "[providers.openai.models.gpt-5]\nedit_format = \"patch\"\n")
	cfg, _, err = e.load(nil, "openai")
	require.NoError(t, err)
	r, ok = cfg.ReasoningOf("openai", "gpt-5")
	require.True(t, ok)
	require.Equal(t, "patch", r.EditFormat, "a model's edit format in its table")

	writeFile(t, e.global(), "[providers.openai.models.o3]\neffort = \"extreme\"\nbudget = -1\nedit_format = \"diff\"\n")
	_, _, err = e.load(nil, "openai")
	require.ErrorContains(t, err, "providers.openai.models.o3.effort must be one of minimal, low, medium, high")
	require.ErrorContains(t, err, "providers.openai.models.o3.budget must be a number of thinking tokens")
	require.ErrorContains(t, err, `providers.openai.models.o3.edit_format must be one of replace, hashline, patch, not a string ("diff")`)
}
