package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/app/apptest"
	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/sharedtest"
)

// claudeSettings is a project's .claude/settings.json and
// settings.local.json with rules of every shape Claude Code's syntax has.
const claudeSettings = `{
  "model": "opus",
  "permissions": {
    "allow": [
      "Bash(npm run test:*)",
      "Read(./docs/**)",
      "WebFetch(domain:example.com)",
      "WebSearch"
    ],
    "ask": ["Bash(git push:*)", "Task(Explore)"],
    "deny": [
      "Read(./secrets/**)",
      "Edit(./.env)",
      "Bash(curl:*)",
      "mcp__github",
      "Glob(!keep.txt)"
    ],
    "defaultMode": "acceptEdits"
  }
}`

const claudeLocalSettings = `{"permissions": {"allow": ["Bash(make lint)"], "deny": ["WebSearch"]}}`

// TestClaudeSettingsPermissions: the rules of a project's Claude settings
// decide as aidex's own rules do: deny and ask rules always, allow rules
// in a trusted folder once approved (items of the review); a rule aidex
// cannot translate is a warning naming it, and an untranslatable deny or
// ask covers its whole tool.
func TestClaudeSettingsPermissions(t *testing.T) {
	script := llmtest.NewScript(t)
	home := apptest.NewHome(t, apptest.FakeProvider(script.URL, []string{"m1"}, "max_retries = 0\n"))
	for rel, text := range map[string]string{".claude/settings.json": claudeSettings, ".claude/settings.local.json": claudeLocalSettings,
		"docs/a.md": "doc", "secrets/k.txt": "k", ".env": "A=1", "keep.txt": "x"} {
		p := filepath.Join(home.WS, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	load := func() *Runtime {
		rt, err := LoadBase(Options{Workspace: home.WS, Getenv: home.Getenv})
		require.NoError(t, err)
		return rt
	}
	decide := func(rt *Runtime, tool string, args map[string]any) string { return decideCall(t, rt, tool, args) }
	type check struct {
		tool      string
		args      map[string]any // nil: tool is a command line
		untrusted string         // the decision in each state
		pending   string
		approved  string
	}
	checks := []check{
		{"npm run test -- --watch", nil, "ask", "ask", "allow"},
		{"npm run build", nil, "ask", "ask", "ask"},
		{"make lint", nil, "ask", "ask", "allow"},
		{"git push origin main", nil, "ask", "ask", "ask"},
		{"curl https://x.example", nil, "deny", "deny", "deny"},
		{"read_file", map[string]any{"path": "secrets/k.txt"}, "deny", "deny", "deny"},
		{"grep", map[string]any{"pattern": "k", "path": "secrets"}, "deny", "deny", "deny"},
		{"write_file", map[string]any{"path": ".env", "content": "B=2"}, "deny", "deny", "deny"},
		{"read_file", map[string]any{"path": "docs/a.md"}, "allow", "allow", "allow"},
		{"search_files", map[string]any{"pattern": "*.md"}, "deny", "deny", "deny"}, // Glob(!keep.txt) covers every search
		{"web_fetch", map[string]any{"url": "https://example.com/page"}, "ask", "ask", "allow"},
		{"web_fetch", map[string]any{"url": "https://other.example/page"}, "ask", "ask", "ask"},
		{"mcp__github__get_issue", map[string]any{}, "deny", "deny", "deny"},
	}
	states := []struct {
		name  string
		setup func()
		get   func(c check) string
	}{
		{"untrusted", func() {}, func(c check) string { return c.untrusted }},
		{"trusted, not approved", func() { require.NoError(t, load().Config.Paths.Trust(home.WS)) }, func(c check) string { return c.pending }},
		{"approved", func() { require.NoError(t, load().ProjectContent().ApproveAll()) }, func(c check) string { return c.approved }},
	}
	for _, st := range states {
		st.setup()
		rt := load()
		for _, c := range checks {
			require.Equal(t, st.get(c), decide(rt, c.tool, c.args), "%s: %s %v", st.name, c.tool, c.args)
		}
	}

	rt := load()
	claudeSettingsWarnings(t, rt, home.WS)
	var items []string
	for _, it := range rt.ProjectContent().Items() {
		items = append(items, it.Key()+" "+string(it.Status))
	}
	require.Contains(t, items, "allow rule Bash(npm run test:*) (.claude/settings.json) approved")
	require.Contains(t, items, "allow rule Bash(make lint) (.claude/settings.local.json) approved")

	// A change to the file waits for approval; the approved rules still count.
	require.NoError(t, os.WriteFile(filepath.Join(home.WS, ".claude", "settings.local.json"), []byte(`{"permissions": {"allow": ["Bash(make lint)", "Bash(rm:*)"]}}`), 0o644))
	rt = load()
	require.Equal(t, "ask", decide(rt, "rm -rf build", nil), "a new allow rule waits for the review")
	require.Equal(t, "allow", decide(rt, "make lint", nil))
	var pending []string
	for _, c := range rt.ProjectContent().Pending() {
		pending = append(pending, c.Name)
	}
	require.Equal(t, []string{"Bash(rm:*) (.claude/settings.local.json)"}, pending)
}

// TestClaudeRealSettingsPermissions: the permissions of a published
// project's .claude/settings.json (../shared/claude-real) translate
// exactly, each allow rule an item of the review, and decide as written
// once approved.
func TestClaudeRealSettingsPermissions(t *testing.T) {
	src := sharedtest.Require(t, "claude-real/hooks/disler-hooks-mastery/.claude/settings.json", "a real Claude settings file")
	data, err := os.ReadFile(src)
	require.NoError(t, err)
	var doc struct {
		Permissions json.RawMessage `json:"permissions"`
	}
	require.NoError(t, json.Unmarshal(data, &doc))
	script := llmtest.NewScript(t)
	home := apptest.NewHome(t, apptest.FakeProvider(script.URL, []string{"m1"}, "max_retries = 0\n"))
	p := filepath.Join(home.WS, ".claude", "settings.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(`{"permissions": `+string(doc.Permissions)+`}`), 0o644))
	load := func() *Runtime {
		rt, err := LoadBase(Options{Workspace: home.WS, Getenv: home.Getenv})
		require.NoError(t, err)
		return rt
	}
	require.NoError(t, load().Config.Paths.Trust(home.WS))
	rt := load()
	require.Len(t, rt.ProjectContent().Pending(), 12, "each allow rule is an item")
	require.NoError(t, rt.ProjectContent().ApproveAll())
	rt = load()
	for _, w := range rt.Warnings {
		require.NotContains(t, w.String(), "Claude permission rule", "every rule translates exactly")
	}
	for line, want := range map[string]string{"npm install": "allow", "mkdir -p build/out": "allow", "uv run x.py": "allow",
		"rm -rf build": "ask", "curl https://x.example": "ask"} {
		ex, err := rt.ExplainCall(line, nil)
		require.NoError(t, err)
		require.Equal(t, want, ex.Decision, line)
	}
	ex, err := rt.ExplainCall("write_file", json.RawMessage(`{"path":"notes.txt","content":"x"}`))
	require.NoError(t, err)
	require.Equal(t, "allow", ex.Decision, "Write")
}

// claudeSettingsWarnings: each rule aidex cannot translate exactly, and
// each permissions key it does not read, is a warning naming its file
// and line.
func claudeSettingsWarnings(t *testing.T, rt *Runtime, ws string) {
	t.Helper()
	var warnings []string
	for _, w := range rt.Warnings {
		warnings = append(warnings, w.String())
	}
	all := strings.Join(warnings, "\n")
	settings := filepath.Join(ws, ".claude", "settings.json")
	for _, want := range []string{
		settings + `:8: Claude permission rule "WebSearch" (allow) cannot be translated exactly (aidex has no tool like Claude's WebSearch): it allows nothing`,
		settings + `:10: Claude permission rule "Task(Explore)" (ask) cannot be translated exactly (aidex cannot match Claude's Task patterns): it covers every use of task instead`,
		settings + `:16: Claude permission rule "Glob(!keep.txt)" (deny) cannot be translated exactly (aidex's path patterns have no negation): it covers every use of search_files instead`,
		settings + `:18: permissions.defaultMode of Claude Code is not read by aidex`,
		`settings.local.json:1: Claude permission rule "WebSearch" (deny) cannot be translated exactly (aidex has no tool like Claude's WebSearch): aidex has no such tool, so it covers nothing`,
	} {
		require.Contains(t, all, want, "want %s", want)
	}
}

// decideCall is the policy's decision on tool with args (nil: tool is a
// command line).
func decideCall(t *testing.T, rt *Runtime, tool string, args map[string]any) string {
	t.Helper()
	var raw json.RawMessage
	if args != nil {
		raw, _ = json.Marshal(args)
	}
	ex, err := rt.ExplainCall(tool, raw)
	require.NoError(t, err, tool)
	return ex.Decision
}
