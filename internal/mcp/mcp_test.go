package mcp_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/config"
	"github.com/zelvior/aidex/internal/mcp"
	"github.com/zelvior/aidex/internal/sharedtest"
	"github.com/zelvior/aidex/internal/tools"
)

func everything(t testing.TB, name string) config.MCPServer {
	bin := sharedtest.NPMBin(t, "mcp-server-everything")
	return config.MCPServer{Name: name, Command: bin, Args: []string{"stdio"}, StartupTimeoutSec: 60, Source: "test"}
}

func start(t testing.TB, servers ...config.MCPServer) *mcp.Manager {
	t.Helper()
	m := mcp.Start(context.Background(), mcp.Options{Servers: servers, LogDir: t.TempDir(), Getenv: os.Getenv})
	t.Cleanup(func() { _ = m.Close() })
	return m
}

func TestStdioEverything(t *testing.T) {
	m := start(t, everything(t, "everything"))
	require.Empty(t, m.Failures())
	names := map[string]bool{}
	for _, ti := range m.Tools() {
		names[ti.Name] = true
	}
	require.True(t, names["mcp__everything__echo"], "tools: %v", names)
	require.True(t, names["mcp__everything__get-sum"])

	r := m.CallTool(context.Background(), "everything", "echo", json.RawMessage(`{"message":"hi there"}`))
	require.True(t, r.OK, r.Error)
	require.Equal(t, "Echo: hi there", r.Output)
	r = m.CallTool(context.Background(), "everything", "get-sum", json.RawMessage(`{"a":2,"b":40}`))
	require.True(t, r.OK, r.Error)
	require.Contains(t, r.Output, "is 42")
	r = m.CallTool(context.Background(), "everything", "get-tiny-image", json.RawMessage(`{}`))
	require.True(t, r.OK, r.Error)
	require.Len(t, r.Images, 1)
	require.Equal(t, "image/png", r.Images[0].MIME)
	require.NotEmpty(t, r.Images[0].Data)

	st := m.Status()
	require.Equal(t, mcp.StateReady, st[0].State)
	require.Positive(t, st[0].DefinitionTokens)
}

func TestFilterAndAnnotations(t *testing.T) {
	s := everything(t, "ev")
	s.EnabledTools = []string{"echo", "get-sum"}
	s.DisabledTools = []string{"echo"}
	s.TrustAnnotations = true
	m := start(t, s)
	tl := m.Tools()
	require.Len(t, tl, 1)
	require.Equal(t, "mcp__ev__get-sum", tl[0].Name)
	require.True(t, tl[0].ReadOnly)
}

func TestFailingServerIsReported(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "bad.sh")
	require.NoError(t, os.WriteFile(script, []byte("#!/bin/sh\necho 'cannot open database' >&2\nexit 3\n"), 0o755))
	m := start(t, everything(t, "good"), config.MCPServer{Name: "bad", Command: script, StartupTimeoutSec: 20, Source: "test"})
	f := m.Failures()
	require.Len(t, f, 1)
	require.Contains(t, f[0], "MCP server bad failed to start")
	require.Contains(t, f[0], "cannot open database")
	require.Contains(t, f[0], "goes on without it")
	r := m.CallTool(context.Background(), "good", "echo", json.RawMessage(`{"message":"x"}`))
	require.True(t, r.OK, r.Error)
}

func TestServersStartConcurrently(t *testing.T) {
	m := start(t, everything(t, "a"), everything(t, "b"), everything(t, "c"))
	require.Empty(t, m.Failures())
	st := m.Status()
	require.Len(t, st, 3)
	// Every start-up began before any finished: they overlapped.
	for _, x := range st {
		for _, y := range st {
			require.True(t, x.Started.Before(y.Ready), "%s started after %s was ready", x.Name, y.Name)
		}
	}
}

func TestCrashedServerRestartsOnce(t *testing.T) {
	m := start(t, everything(t, "everything"))
	require.Empty(t, m.Failures())
	// The server exits (its process group killed under it): the next call restarts it.
	require.NoError(t, mcp.KillForTest(m, "everything"))
	r := m.CallTool(context.Background(), "everything", "echo", json.RawMessage(`{"message":"back"}`))
	require.True(t, r.OK, r.Error)
	require.Equal(t, "Echo: back", r.Output)
	require.NoError(t, mcp.KillForTest(m, "everything"))
	r = m.CallTool(context.Background(), "everything", "echo", json.RawMessage(`{"message":"again"}`))
	require.False(t, r.OK)
	require.Contains(t, r.Error, "already restarted once")
}

func TestToolName(t *testing.T) {
	require.Equal(t, "mcp__git_hub__create_issue", mcp.ToolName("git.hub", "create issue"))
	long := mcp.ToolName("server", strings.Repeat("x", 100))
	require.Len(t, long, 64)
	require.NotEqual(t, long, mcp.ToolName("server", strings.Repeat("x", 99)))
}

func TestProgressAndCancel(t *testing.T) {
	progress := make(chan mcp.Progress, 100)
	m := mcp.Start(context.Background(), mcp.Options{Servers: []config.MCPServer{everything(t, "everything")}, Getenv: os.Getenv,
		Progress: func(p mcp.Progress) { progress <- p }})
	t.Cleanup(func() { _ = m.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	res := make(chan string, 1)
	go func() {
		r := m.CallTool(ctx, "everything", "trigger-long-running-operation", json.RawMessage(`{"duration":60,"steps":60}`))
		res <- r.Error
	}()
	p := <-progress // the server reports progress: the call runs
	require.Equal(t, "everything", p.Server)
	require.Equal(t, "trigger-long-running-operation", p.Tool)
	require.Positive(t, p.Total)
	cancel()
	require.Contains(t, <-res, "canceled")
	// The server is still usable after the cancellation.
	r := m.CallTool(context.Background(), "everything", "echo", json.RawMessage(`{"message":"ok"}`))
	require.True(t, r.OK, r.Error)
}

func TestResources(t *testing.T) {
	m := start(t, everything(t, "everything"))
	list, err := m.ListResources(context.Background(), "")
	require.NoError(t, err)
	require.Contains(t, list, "everything demo://resource/static/document/")
	uri := strings.Fields(strings.SplitN(list, "\n", 2)[0])[1]
	r := m.ReadResource(context.Background(), "everything", uri)
	require.True(t, r.OK, r.Error)
	require.Contains(t, r.Output, "[resource "+uri)
	r = m.ReadResource(context.Background(), "nope", uri)
	require.Equal(t, tools.CategoryNotFound, r.Category)
	_, err = m.ListResources(context.Background(), "nope")
	require.ErrorContains(t, err, `no MCP server "nope"`)
	names := map[string]bool{}
	for _, d := range m.ResourceDefs() {
		names[d.Name] = true
	}
	require.Equal(t, map[string]bool{"list_mcp_resources": true, "read_mcp_resource": true}, names)
}

// A call whose server crashed under it is not sent again to the restarted
// server (tools need not be idempotent): the model is told what happened and
// that the server is restarted at the next call, which works.
func TestCallThatCrashedItsServerIsNotResent(t *testing.T) {
	log := filepath.Join(t.TempDir(), "calls")
	m := start(t, fake(t, "crashy", "crashy", map[string]string{"AIDEX_MCP_FAKE_LOG": log}))
	require.Empty(t, m.Failures())
	r := m.CallTool(context.Background(), "crashy", "boom", json.RawMessage(`{}`))
	require.False(t, r.OK)
	require.Contains(t, r.Error, "MCP server crashy stopped during the call")
	require.Contains(t, r.Error, "not sent again")
	b, err := os.ReadFile(log)
	require.NoError(t, err)
	require.Equal(t, "boom\n", string(b), "the call reached the server more than once")
	r = m.CallTool(context.Background(), "crashy", "echo", json.RawMessage(`{"message":"back"}`))
	require.True(t, r.OK, r.Error)
	require.Equal(t, "echo: back", r.Output)
}

// A server started through a package runner (npx -y, uvx, ...) may install
// its package first (a cold npm cache takes tens of seconds): without a
// configured startup_timeout_sec its start-up may take longer than the
// default; a configured timeout is kept.
func TestPackageRunnerStartupTimeout(t *testing.T) {
	for _, c := range []struct {
		cmd  string
		args []string
		sec  float64
		want time.Duration
	}{
		{"npx", []string{"-y", "@modelcontextprotocol/server-memory"}, 0, mcp.DefaultPackageRunnerStartupTimeout},
		{"/usr/local/bin/npx", nil, 0, mcp.DefaultPackageRunnerStartupTimeout},
		{`C:\Program Files\nodejs\npx.cmd`, nil, 0, mcp.DefaultPackageRunnerStartupTimeout},
		{"npm", []string{"exec", "--yes", "pkg"}, 0, mcp.DefaultPackageRunnerStartupTimeout},
		{"pnpm", []string{"dlx", "pkg"}, 0, mcp.DefaultPackageRunnerStartupTimeout},
		{"bunx", []string{"pkg"}, 0, mcp.DefaultPackageRunnerStartupTimeout},
		{"uvx", []string{"mcp-server-git"}, 0, mcp.DefaultPackageRunnerStartupTimeout},
		{"npm", []string{"run", "serve"}, 0, mcp.DefaultStartupTimeout},
		{"node", []string{"server.js"}, 0, mcp.DefaultStartupTimeout},
		{"npx", []string{"-y", "pkg"}, 5, 5 * time.Second},
	} {
		got := mcp.StartupTimeout(config.MCPServer{Name: "s", Command: c.cmd, Args: c.args, StartupTimeoutSec: c.sec})
		require.Equal(t, c.want, got, "%s %v", c.cmd, c.args)
	}
	require.Greater(t, mcp.DefaultPackageRunnerStartupTimeout, 30*time.Second)
}
