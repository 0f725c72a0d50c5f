package config

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMCPServersTOML(t *testing.T) {
	e := newEnv(t)
	writeFile(t, e.global(), `
mcp_tool_budget = 0.2

[mcp_servers.everything]
command = "npx"                   # stdio
args = ["-y", "@modelcontextprotocol/server-everything"]
env = { KEY = "value" }
env_vars = ["HOME"]
cwd = "srv"
startup_timeout_sec = 20
tool_timeout_sec = 60
enabled = true
enabled_tools = ["echo"]
trust_annotations = true

[mcp_servers.remote]
url = "https://example.com/mcp"
bearer_token_env_var = "REMOTE_TOKEN"
http_headers = { "X-Team" = "a" }
enabled = false
`)
	cfg, _, err := e.load(nil, "openai")
	require.NoError(t, err)
	require.InDelta(t, 0.2, cfg.MCPToolBudget, 1e-9)
	ev := cfg.MCPServers["everything"]
	require.Equal(t, "npx", ev.Command)
	require.Equal(t, []string{"-y", "@modelcontextprotocol/server-everything"}, ev.Args)
	require.Equal(t, map[string]string{"KEY": "value"}, ev.Env)
	require.Equal(t, filepath.Join(filepath.Dir(e.global()), "srv"), ev.Cwd)
	require.InDelta(t, 20, ev.StartupTimeoutSec, 1e-9)
	require.True(t, ev.IsEnabled())
	require.True(t, ev.TrustAnnotations)
	require.Equal(t, "stdio", ev.TransportName())
	require.Contains(t, ev.Source, e.global()+":4")
	rm := cfg.MCPServers["remote"]
	require.Equal(t, "http", rm.TransportName())
	require.False(t, rm.IsEnabled())
	require.Equal(t, map[string]string{"X-Team": "a"}, rm.HTTPHeaders)
}

func TestMCPServersTOMLErrors(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{"[mcp_servers.x]\ncomand = \"npx\"\n", `unknown key "comand" in mcp_servers.x (did you mean "command"?)`},
		{"[mcp_servers.x]\ncommand = 5\n", "mcp_servers.x.command has the wrong type"},
		{"[mcp_servers.x]\nargs = [\"a\"]\n", `needs command = "..." (a stdio server) or url`},
		{"[mcp_servers.x]\ncommand = \"a\"\nurl = \"https://x\"\n", "has both command and url"},
		{"[mcp_servers.x]\nurl = \"https://x\"\ntransport = \"ws\"\n", "transport must be stdio, http or sse"},
		{"mcp_tool_budget = 2\n", "must be in [0, 1]"},
	} {
		e := newEnv(t)
		writeFile(t, e.global(), tc.body)
		_, _, err := e.load(nil, "openai")
		require.ErrorContains(t, err, tc.want)
		require.ErrorContains(t, err, e.global()+":")
	}
}

func TestMCPServersNeedTrust(t *testing.T) {
	e := newEnv(t)
	writeFile(t, e.project(), "[mcp_servers.local]\ncommand = \"./server\"\n")
	writeFile(t, filepath.Join(e.ws, ".mcp.json"), `{"mcpServers": {
		"claude": {"command": "${TOOL_BIN}/srv", "args": ["--port", "${PORT:-7}"], "env": {"A": "${UNSET_VAR:-dflt}"}},
		"web": {"type": "http", "url": "https://${HOST}/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}}
	}}`)
	cfg, ws, err := e.load(nil, "openai")
	require.NoError(t, err)
	require.Empty(t, cfg.MCPServers)
	require.Len(t, ws, 2, warningsText(ws))
	require.Contains(t, warningsText(ws), "aidex trust")

	e.trust(t)
	e.vars["TOOL_BIN"], e.vars["HOST"], e.vars["TOKEN"] = "/opt/bin", "h.example", "t0k"
	cfg, ws, err = e.load(nil, "openai")
	require.NoError(t, err, warningsText(ws))
	require.Equal(t, "./server", cfg.MCPServers["local"].Command)
	c := cfg.MCPServers["claude"]
	require.Equal(t, "/opt/bin/srv", c.Command)
	require.Equal(t, []string{"--port", "7"}, c.Args)
	require.Equal(t, "dflt", c.Env["A"])
	w := cfg.MCPServers["web"]
	require.Equal(t, "https://h.example/mcp", w.URL)
	require.Equal(t, "Bearer t0k", w.HTTPHeaders["Authorization"])
}

func TestMCPJSONErrors(t *testing.T) {
	_, _, err := ParseMCPJSON("/p/.mcp.json", []byte(`{"mcpServers": {"a": {"type": "ws", "url": "x"}}}`), os.Getenv)
	require.ErrorContains(t, err, `type must be stdio, http or sse, not "ws"`)
	_, _, err = ParseMCPJSON("/p/.mcp.json", []byte(`{"servers": {}}`), os.Getenv)
	require.ErrorContains(t, err, "/p/.mcp.json")
	require.ErrorContains(t, err, "mcpServers")
}

func TestAddRemoveMCPServerKeepsComments(t *testing.T) {
	e := newEnv(t)
	const orig = "# my settings\nmodel = \"m\" # keep me\n\n[tools]\nprofile = \"full\"\n"
	writeFile(t, e.global(), orig)
	require.NoError(t, AddMCPServer(e.global(), MCPServer{Name: "everything", Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-everything"},
		Env: map[string]string{"K": "v"}}))
	require.NoError(t, AddMCPServer(e.global(), MCPServer{Name: "remote", URL: "https://example.com/mcp", HTTPHeaders: map[string]string{"X-Team": "a"}}))
	require.ErrorContains(t, AddMCPServer(e.global(), MCPServer{Name: "remote", URL: "https://x.example/mcp"}), "already in")
	cfg, _, err := e.load(nil, "openai")
	require.NoError(t, err)
	require.Equal(t, []string{"-y", "@modelcontextprotocol/server-everything"}, cfg.MCPServers["everything"].Args)
	require.Equal(t, "v", cfg.MCPServers["everything"].Env["K"])
	require.Equal(t, "a", cfg.MCPServers["remote"].HTTPHeaders["X-Team"])
	require.Equal(t, "full", cfg.Tools.Profile)

	require.NoError(t, RemoveMCPServer(e.global(), "everything"))
	require.ErrorContains(t, RemoveMCPServer(e.global(), "everything"), `no MCP server "everything"`)
	require.NoError(t, RemoveMCPServer(e.global(), "remote"))
	data, err := os.ReadFile(e.global())
	require.NoError(t, err)
	require.Equal(t, orig, string(data))
}

// Every key of Codex's [mcp_servers.NAME] is read: the honoured ones take
// effect, the others and unknown keys are one warning each naming the file and
// line, and none stops the configuration from loading.
func TestMCPServersCodexKeys(t *testing.T) {
	e := newEnv(t)
	writeFile(t, e.global(), `[mcp_servers.docs]
url = "https://example.com/mcp"
env_http_headers = { "X-Api-Key" = "DOCS_KEY" }
startup_timeout_ms = 25000
tool_timeout_sec = 90
enabled_tools = ["search"]
disabled_tools = ["delete"]
scopes = ["read", "write"]
oauth = { client_id = "aidex-pre" }
oauth_resource = "https://example.com/"
supports_parallel_tool_calls = true
default_tools_approval_mode = "approve"
experimental_environment = "remote"
colour = "blue"

[mcp_servers.docs.tools.search]
approval_mode = "approve"

[mcp_servers.local]
command = "srv"
env_vars = ["HOME", { name = "TOKEN", source = "local" }]
startup_timeout_sec = 30
startup_timeout_ms = 1000
required = true
`)
	cfg, ws, err := e.load(nil, "openai")
	require.NoError(t, err)
	d := cfg.MCPServers["docs"]
	require.Equal(t, map[string]string{"X-Api-Key": "DOCS_KEY"}, d.EnvHTTPHeaders)
	require.InDelta(t, 25, d.StartupTimeoutSec, 1e-9, "startup_timeout_ms is read as milliseconds")
	require.InDelta(t, 90, d.ToolTimeoutSec, 1e-9)
	require.Equal(t, []string{"search"}, d.EnabledTools)
	require.Equal(t, []string{"delete"}, d.DisabledTools)
	require.Equal(t, []string{"read", "write"}, d.Scopes)
	require.Equal(t, "aidex-pre", d.OAuth.ClientID)
	l := cfg.MCPServers["local"]
	require.Equal(t, []string{"HOME", "TOKEN"}, l.EnvVars)
	require.InDelta(t, 30, l.StartupTimeoutSec, 1e-9, "startup_timeout_sec wins over startup_timeout_ms, as in Codex")
	require.True(t, l.Required)
	require.False(t, d.Required)
	require.True(t, d.SupportsParallelToolCalls)
	require.False(t, l.SupportsParallelToolCalls)

	text := warningsText(ws)
	for key, line := range map[string]int{"default_tools_approval_mode": 12,
		"experimental_environment": 13, "colour": 14, "tools": 16, "oauth_resource": 10} {
		require.Contains(t, text, fmt.Sprintf("%s:%d: ", e.global(), line), "warning for %s", key)
		require.Contains(t, text, key)
	}
	require.Contains(t, text, `unknown key "colour" in mcp_servers.docs is ignored`)
	require.Contains(t, text, "[permissions]", "the approval keys name aidex's way")
	require.NotContains(t, text, "mcp_servers.local.required", "required is honoured")
	require.NotContains(t, text, "mcp_servers.docs.supports_parallel_tool_calls", "supports_parallel_tool_calls is honoured")
	for _, w := range ws {
		require.NotContains(t, w.Message, "\n", "one line each")
	}
}

// .mcp.json's keys: Claude Code's, and aidex's timeouts and tool lists (the
// keys aidex's own messages name) are honoured; an unknown key is a warning
// naming the file and line, never an error that stops every command.
func TestMCPJSONKeys(t *testing.T) {
	e := newEnv(t)
	writeFile(t, filepath.Join(e.ws, ".mcp.json"), `{
  "mcpServers": {
    "fs": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "."],
      "startup_timeout_sec": 120,
      "tool_timeout_sec": 30,
      "enabled_tools": ["read_text_file"],
      "disabledTools": [],
      "colour": "blue"
    },
    "off": {"type": "http", "url": "https://example.com/mcp", "enabled": false, "required": true,
      "oauth": {"clientId": "pre-registered", "callbackPort": 8080}}
  }
}`)
	e.trust(t)
	cfg, ws, err := e.load(nil, "openai")
	require.NoError(t, err, warningsText(ws))
	fs := cfg.MCPServers["fs"]
	require.InDelta(t, 120, fs.StartupTimeoutSec, 1e-9)
	require.InDelta(t, 30, fs.ToolTimeoutSec, 1e-9)
	require.Equal(t, []string{"read_text_file"}, fs.EnabledTools)
	off := cfg.MCPServers["off"]
	require.False(t, off.IsEnabled())
	require.True(t, off.Required)
	require.Equal(t, "pre-registered", off.OAuth.ClientID)
	text := warningsText(ws)
	file := filepath.Join(e.ws, ".mcp.json")
	require.Contains(t, text, file+":9: ")
	require.Contains(t, text, `unknown key "disabledTools" in server "fs" (did you mean "disabled_tools"?)`)
	require.Contains(t, text, file+":10: ")
	require.Contains(t, text, `"colour"`)
	require.Equal(t, 8080, off.OAuth.CallbackPort)
}
