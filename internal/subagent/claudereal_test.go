package subagent

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/sharedtest"
)

// TestClaudeRealAgents loads every agent file of
// ../shared/claude-real/agents (Anthropic's plugin agents and others',
// unchanged, team/ included) from a trusted project's .claude/agents, as
// Claude Code does: each is listed with its description and prompt, its
// tools mapped, and the read-only validator loses the writing tools.
func TestClaudeRealAgents(t *testing.T) {
	src := sharedtest.Require(t, "claude-real/agents", "real Claude Code agents")
	ws := t.TempDir()
	dst := filepath.Join(ws, ".claude", "agents")
	files := sharedtest.CopyTree(t, src, dst)
	set := Load(Dirs{Workspace: ws, Trusted: true})
	for _, w := range set.Warnings {
		t.Log(w)
		require.NotContains(t, w, "skipped", "no agent is left out")
	}
	for _, rel := range files {
		t.Run(rel, func(t *testing.T) {
			var def Definition
			for _, d := range set.Defs {
				if d.Source == filepath.Join(dst, rel) {
					def = d
				}
			}
			require.NotEmpty(t, def.Name, "%s is not loaded (loaded: %v; warnings: %v)", rel, set.Names(), set.Warnings)
			require.NotEmpty(t, def.Description)
			require.NotEmpty(t, def.Prompt)
			require.NotContains(t, def.Description, `\n`, "escaped newlines are read as newlines")
		})
	}
	get := func(name string) Definition {
		d, ok := set.Get(name)
		require.True(t, ok, name)
		return d
	}
	require.Contains(t, get("agent-creator").Description, "<example>")
	require.Equal(t, "sonnet", get("agent-creator").Model, "a key after a multi-line description is read")
	require.Equal(t, []string{"write_file", "read_file"}, get("agent-creator").Tools)
	require.Equal(t, []string{"read_file", "grep"}, get("conversation-analyzer").Tools)
	v := get("validator")
	for _, tool := range []string{"write_file", "edit_file", "append_file", "find_replace_in_files"} {
		require.True(t, slices.Contains(v.Disallowed, tool), "the read-only validator loses %s: %v", tool, v.Disallowed)
	}
	require.True(t, strings.HasSuffix(get("builder").Source, filepath.Join("team", "builder.md")), "agents in subfolders are found")
	require.Equal(t, []string{"write_file", "web_fetch", "mcp__firecrawl-mcp__firecrawl_scrape", "mcp__firecrawl-mcp__firecrawl_search", "edit_file"}, get("meta-agent").Tools)
}
