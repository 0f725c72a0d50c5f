// Package plugintest builds test plugins and a test marketplace from the
// real Claude Code content of ../shared/claude-real (hooks.json files of
// Anthropic's hookify, ralph-wiggum and explanatory-output-style plugins,
// hookify's agent, a skill and commands), with plugin.json files written
// to Claude Code's fields, for the tests of several packages.
package plugintest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/sharedtest"
)

// Market is a built marketplace: Root its folder (with
// .claude-plugin/marketplace.json, name "aidex-test"), Plugins the folder
// of each plugin by name (hookify, ralph-wiggum, explanatory-output-style),
// all below Root/plugins.
type Market struct {
	Root    string
	Plugins map[string]string
}

// Name is the test marketplace's name.
const Name = "aidex-test"

// Build writes the test marketplace into dir. The hook scripts the real
// hooks.json files run (not part of claude-real) are small shell scripts:
// each appends its plugin's name and event to $AIDEX_PLUGIN_HOOK_LOG.
// ralph-wiggum also has an MCP server in .mcp.json
// (${CLAUDE_PLUGIN_ROOT}/server.sh).
func Build(t testing.TB, dir string) Market {
	t.Helper()
	real := sharedtest.Require(t, "claude-real", "real Claude Code content for plugins")
	m := Market{Root: dir, Plugins: map[string]string{}}
	hookify := m.plugin(t, "hookify", `{
  "name": "hookify",
  "version": "0.1.0",
  "description": "Easily create hooks to prevent unwanted behaviors",
  "author": {"name": "Anthropic", "email": "support@anthropic.com"}
}`)
	copyFile(t, filepath.Join(real, "hooks/hookify/hooks/hooks.json"), filepath.Join(hookify, "hooks/hooks.json"))
	copyFile(t, filepath.Join(real, "agents/conversation-analyzer.md"), filepath.Join(hookify, "agents/conversation-analyzer.md"))
	copyFile(t, filepath.Join(real, "skills/writing-rules/SKILL.md"), filepath.Join(hookify, "skills/writing-rules/SKILL.md"))
	copyFile(t, filepath.Join(real, "commands/commit.md"), filepath.Join(hookify, "commands/commit.md"))
	copyFile(t, filepath.Join(real, "commands/code-review.md"), filepath.Join(hookify, "commands/code-review.md"))
	for _, r := range []string{"dangerous-rm", "console-log-warning"} {
		copyFile(t, filepath.Join(real, "hooks/hookify/examples", r+".local.md"), filepath.Join(hookify, "examples", r+".local.md"))
	}
	for _, ev := range []string{"pretooluse", "posttooluse", "stop", "userpromptsubmit"} {
		write(t, filepath.Join(hookify, "hooks", ev+".py"), "import os\nopen(os.environ['AIDEX_PLUGIN_HOOK_LOG'], 'a').write('hookify "+ev+"\\n')\n", 0o644)
	}
	ralph := m.plugin(t, "ralph-wiggum", `{
  "name": "ralph-wiggum",
  "version": "1.0.0",
  "description": "Self-referential loops",
  "author": {"name": "Anthropic"}
}`)
	copyFile(t, filepath.Join(real, "hooks/ralph-wiggum/hooks/hooks.json"), filepath.Join(ralph, "hooks/hooks.json"))
	write(t, filepath.Join(ralph, "hooks/stop-hook.sh"), "#!/bin/sh\necho \"ralph-wiggum Stop $CLAUDE_PLUGIN_ROOT\" >> \"$AIDEX_PLUGIN_HOOK_LOG\"\n", 0o755)
	write(t, filepath.Join(ralph, ".mcp.json"), `{"mcpServers": {"loop": {"command": "${CLAUDE_PLUGIN_ROOT}/server.sh", "args": ["--root", "${CLAUDE_PLUGIN_ROOT}"]}}}`, 0o644)
	write(t, filepath.Join(ralph, "server.sh"), "#!/bin/sh\nexit 0\n", 0o755)
	expl := m.plugin(t, "explanatory-output-style", `{
  "name": "explanatory-output-style",
  "version": "1.0.0",
  "description": "Adds educational insights",
  "author": {"name": "Anthropic"}
}`)
	copyFile(t, filepath.Join(real, "hooks/explanatory-output-style/hooks/hooks.json"), filepath.Join(expl, "hooks/hooks.json"))
	write(t, filepath.Join(expl, "hooks-handlers/session-start.sh"), "#!/bin/sh\necho \"explanatory-output-style SessionStart\" >> \"$AIDEX_PLUGIN_HOOK_LOG\"\n", 0o755)
	write(t, filepath.Join(dir, ".claude-plugin/marketplace.json"), `{
  "name": "`+Name+`",
  "owner": {"name": "aidex tests", "email": "tests@example.com"},
  "metadata": {"description": "Plugins built from Anthropic's"},
  "plugins": [
    {"name": "hookify", "source": "./plugins/hookify", "description": "Create hooks", "version": "0.1.0"},
    {"name": "ralph-wiggum", "source": "./plugins/ralph-wiggum", "description": "Loops"},
    {"name": "explanatory-output-style", "source": "./plugins/explanatory-output-style", "category": "learning"}
  ]
}`, 0o644)
	return m
}

func (m Market) plugin(t testing.TB, name, manifest string) string {
	dir := filepath.Join(m.Root, "plugins", name)
	write(t, filepath.Join(dir, ".claude-plugin/plugin.json"), manifest, 0o644)
	m.Plugins[name] = dir
	return dir
}

// GitRepo makes dir a git repository with everything in it committed and
// returns a file:// URL of a bare clone of it (no network needed).
func GitRepo(t testing.TB, dir string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not on PATH")
	}
	gitIn(t, dir, "init", "-q", "-b", "main")
	gitIn(t, dir, "add", "-A")
	gitIn(t, dir, "commit", "-q", "-m", "plugin")
	bare := filepath.Join(t.TempDir(), "repo.git")
	gitIn(t, dir, "clone", "-q", "--bare", dir, bare)
	gitIn(t, dir, "remote", "add", "origin", bare)
	return "file://" + filepath.ToSlash(bare)
}

// gitIn runs git in dir with no system or global config.
func gitIn(t testing.TB, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %s: %v: %s", strings.Join(args, " "), err, out)
	}
}

// GitCommit commits everything in dir (a GitRepo) and pushes it to the
// bare clone GitRepo made.
func GitCommit(t testing.TB, dir string) {
	t.Helper()
	for _, args := range [][]string{{"add", "-A"}, {"commit", "-q", "-m", "update"}, {"push", "-q", "origin", "main"}} {
		gitIn(t, dir, args...)
	}
}

// Write writes data to path, making its folders.
func Write(t testing.TB, path, data string) { write(t, path, data, 0o644) }

func write(t testing.TB, path, data string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), mode); err != nil {
		t.Fatal(err)
	}
}

func copyFile(t testing.TB, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	write(t, to, string(data), 0o644)
}
