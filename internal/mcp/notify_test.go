package mcp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/config"
)

// A server's tools/list_changed makes the manager list the tools again; a
// cancelled call reaches the server as notifications/cancelled (its handler's
// context ends).
func TestListChangedAndCancelled(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "dyn", Version: "1"}, nil)
	started, cancelled := make(chan struct{}), make(chan struct{})
	sdk.AddTool(srv, &sdk.Tool{Name: "wait", Description: "waits"}, func(ctx context.Context, _ *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
		close(started)
		<-ctx.Done()
		close(cancelled)
		return nil, nil, ctx.Err()
	})
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	t.Cleanup(hs.Close)
	m := start(t, config.MCPServer{Name: "dyn", URL: hs.URL, Source: "test"})
	require.Empty(t, m.Failures())
	require.Len(t, m.Tools(), 1)
	gen := m.Generation()

	sdk.AddTool(srv, &sdk.Tool{Name: "added", Description: "new"}, func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "hi"}}}, nil, nil
	})
	require.Eventually(t, func() bool { return m.Generation() != gen && len(m.Tools()) == 2 }, 10*time.Second, 10*time.Millisecond,
		"the tool list was not refreshed after tools/list_changed")
	require.Equal(t, "hi", m.CallTool(context.Background(), "dyn", "added", nil).Output)

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan string, 1)
	go func() { done <- m.CallTool(ctx, "dyn", "wait", json.RawMessage(`{}`)).Error }()
	<-started
	cancel()
	select {
	case <-cancelled:
	case <-time.After(10 * time.Second):
		t.Fatal("the server's handler was not cancelled: no notifications/cancelled")
	}
	require.Contains(t, <-done, "canceled")
}
