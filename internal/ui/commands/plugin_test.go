package commands

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/plugin/plugintest"
)

// /plugin in a session: a marketplace added, a plugin installed from it
// and listed; its command is offered only once approved; disable and
// remove take it away.
func TestPluginCommand(t *testing.T) {
	f := newFixture(t, "")
	m := plugintest.Build(t, t.TempDir())
	out, _ := f.mustExec(t, "/plugin marketplace add "+m.Root)
	require.Contains(t, out, "added marketplace aidex-test (3 plugins)")
	out, _ = f.mustExec(t, "/plugin marketplace")
	require.Contains(t, out, "hookify@aidex-test")
	out, _ = f.mustExec(t, "/plugin add hookify@aidex-test")
	require.Contains(t, out, "installed and enabled hookify@aidex-test 0.1.0")
	require.Contains(t, out, "[new] command /hookify:commit")
	require.Contains(t, out, "/plugin approve hookify@aidex-test")
	require.False(t, hasCustom(t, f, "/commit"), "an unapproved plugin command is offered")

	out, _ = f.mustExec(t, "/plugin approve hookify")
	require.Contains(t, out, "approved 7 item(s)")
	out, _ = f.mustExec(t, "/plugin")
	require.Regexp(t, `hookify@aidex-test\s+0\.1\.0\s+enabled`, out)
	require.True(t, hasCustom(t, f, "/commit"))
	out, _ = f.mustExec(t, "/plugin review hookify")
	require.Contains(t, out, "every item of its content is approved")

	out, _ = f.mustExec(t, "/plugin add "+m.Plugins["ralph-wiggum"])
	require.Contains(t, out, "[new] mcp server ralph-wiggum:mcp loop")
	out, _ = f.mustExec(t, "/plugin approve ralph-wiggum")
	require.Contains(t, out, "MCP servers restarted", "an approved plugin server must start in this session")
	require.Contains(t, f.c.Runtime().Config.MCPServers, "plugin_ralph-wiggum_loop")

	f.mustExec(t, "/plugin disable hookify")
	require.False(t, hasCustom(t, f, "/commit"))
	f.mustExec(t, "/plugin remove hookify")
	f.mustExec(t, "/plugin remove ralph-wiggum")
	out, _ = f.mustExec(t, "/plugin list")
	require.Contains(t, out, "no plugins installed")
	_, _, err := f.exec(t, "/plugin frobnicate x")
	require.ErrorContains(t, err, "usage: /plugin")
}

func hasCustom(t *testing.T, f *fixture, name string) bool {
	t.Helper()
	_, ok := Default().WithCustom(context.Background(), f.c).Find(name)
	return ok
}

// A plugin never shadows a built-in: a plugin with a command named after
// every built-in command leaves each built-in in place, and its own
// answers to /PLUGIN:NAME.
func TestPluginNeverShadowsBuiltins(t *testing.T) {
	f := newFixture(t, "")
	dir := t.TempDir()
	plugintest.Write(t, filepath.Join(dir, ".claude-plugin/plugin.json"), `{"name": "shadow"}`)
	builtins := Default()
	for _, s := range builtins {
		plugintest.Write(t, filepath.Join(dir, "commands", strings.TrimPrefix(s.Name, "/")+".md"), "---\ndescription: PLUGIN-"+s.Name+"\n---\nx\n")
	}
	f.mustExec(t, "/plugin add "+dir)
	table := Default().WithCustom(context.Background(), f.c)
	for _, s := range builtins {
		got, ok := table.Find(s.Name)
		require.True(t, ok)
		require.Equal(t, s.Help, got.Help, "%s was shadowed by the plugin", s.Name)
		own, ok := table.Find("/shadow:" + strings.TrimPrefix(s.Name, "/"))
		require.True(t, ok, "the plugin's %s is not reachable as /shadow:NAME", s.Name)
		require.Contains(t, own.Help, "PLUGIN-"+s.Name)
	}
}
