package mcp_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/config"
	"github.com/zelvior/aidex/internal/mcp"
)

// A server whose start-up takes long is reported while it starts: that it
// is starting (with its last stderr line, control characters removed),
// that it still is, and that it is ready; a server that starts at once is
// not reported.
func TestStartingIsReportedWhileItTakesLong(t *testing.T) {
	var mu sync.Mutex
	lines := map[string][]string{}
	slow := fake(t, "slow", "slow", map[string]string{"AIDEX_MCP_FAKE_DELAY": "1500ms"})
	m := mcp.Start(context.Background(), mcp.Options{Servers: []config.MCPServer{slow}, LogDir: t.TempDir(),
		StartingAfter: 300 * time.Millisecond, StartingEvery: 500 * time.Millisecond,
		Starting: func(server, text string) {
			mu.Lock()
			defer mu.Unlock()
			lines[server] = append(lines[server], text)
		}})
	t.Cleanup(func() { _ = m.Close() })
	require.Empty(t, m.Failures())
	quick := mcp.Start(context.Background(), mcp.Options{Servers: []config.MCPServer{fake(t, "quick", "echo", nil)}, LogDir: t.TempDir(),
		StartingAfter: 20 * time.Second, Starting: func(server, text string) {
			mu.Lock()
			defer mu.Unlock()
			lines[server] = append(lines[server], text)
		}})
	t.Cleanup(func() { _ = quick.Close() })
	mu.Lock()
	defer mu.Unlock()
	require.Empty(t, lines["quick"], "a server that starts sooner than StartingAfter is not reported")
	got := lines["slow"]
	require.GreaterOrEqual(t, len(got), 3, "%q", got)
	require.Contains(t, got[0], "MCP server slow is starting (waiting up to 30s): npm warn exec installing @example/server")
	require.NotContains(t, strings.Join(got, "\n"), "\x1b")
	require.Contains(t, got[1], "MCP server slow is still starting (")
	require.Regexp(t, `^MCP server slow is ready \(started in \d+s\)$`, got[len(got)-1])
}
