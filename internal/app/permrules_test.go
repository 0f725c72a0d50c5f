package app

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/catalog"
	"github.com/zelvior/aidex/internal/config"
)

// Only rules of aidex's own config files can be removed; the error for
// any other names where the rule comes from and where to change it.
func TestRemovablePermissionRules(t *testing.T) {
	cfg := &config.Config{ProjectFile: "/ws/.aidex/config.toml"}
	cfg.Paths.ConfigFile = "/home/u/.config/aidex/config.toml"
	cfg.Permissions.Allow = []config.Rule{{Text: "a", Source: config.SourceFlag}, {Text: "b", Source: "/ws/.claude/settings.json:4"},
		{Text: "c", Source: "/ws/.aidex/config.toml:2"}, {Text: "d", Source: config.SourceEnv}, {Text: "both", Source: "/ws/.aidex/config.toml:2"}}
	cfg.Permissions.Deny = []config.Rule{{Text: "both", Source: "/home/u/.config/aidex/config.toml:7"}}

	rules := PermissionRules(cfg)
	require.Equal(t, "deny", rules[0].Kind, "deny first")
	for _, c := range []struct{ kind, rule, want string }{
		{"", "a", "comes from flag, not from an aidex config file: leave out the --allow/--deny/--ask flag"},
		{"", "b", "comes from /ws/.claude/settings.json:4, not from an aidex config file: edit that file"},
		{"", "d", "unset the AIDEX_PERMISSIONS_* variable"},
		{"", "both", "a rule of several kinds: name one"},
		{"ask", "c", `no saved rule "c" of kind ask`},
	} {
		_, _, err := removablePermissionRules(cfg, c.kind, c.rule)
		require.ErrorContains(t, err, c.want, c.rule)
	}
	hits, files, err := removablePermissionRules(cfg, "deny", "both")
	require.NoError(t, err)
	require.Equal(t, []string{filepath.FromSlash("/home/u/.config/aidex/config.toml")}, files)
	require.Equal(t, "deny", hits[0].Kind)
	_, files, err = removablePermissionRules(cfg, "", "c")
	require.NoError(t, err)
	require.Equal(t, []string{filepath.FromSlash("/ws/.aidex/config.toml")}, files)
}

// A model's table sets its reasoning effort and budget for the run's
// request, over reasoning_effort and thinking_budget.
func TestRuntimeReasoningPerModel(t *testing.T) {
	budget := 4096
	cfg := &config.Config{ReasoningEffort: "low", ThinkingBudget: 1000, Providers: map[string]config.ProviderConfig{
		"openai": {Reasoning: map[string]config.ModelReasoning{"o3": {Effort: "high"}, "o4": {Budget: &budget}}}}}
	rt := &Runtime{Config: cfg, Provider: catalog.Provider{Name: "openai"}, Model: "o3"}
	e, b := rt.engineRoom().reasoning()
	require.Equal(t, "high", e)
	require.Equal(t, 1000, b)
	rt.Model = "o4"
	e, b = rt.engineRoom().reasoning()
	require.Equal(t, "low", e)
	require.Equal(t, 4096, b)
	rt.Model = "gpt-5"
	e, b = rt.engineRoom().reasoning()
	require.Equal(t, "low", e)
	require.Equal(t, 1000, b)
}
