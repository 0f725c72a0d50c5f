package mcp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/config"
	"github.com/zelvior/aidex/internal/mcp"
)

// Codex's supports_parallel_tool_calls: a server without it gets one call
// at a time (a second call waits for the first), one with it gets them
// at once.
func TestParallelToolCallsOnlyWhereSupported(t *testing.T) {
	for _, parallel := range []bool{false, true} {
		entered := make(chan string, 2)
		release := make(chan struct{})
		s := sdk.NewServer(&sdk.Implementation{Name: "slow", Version: "1"}, nil)
		sdk.AddTool(s, &sdk.Tool{Name: "wait"}, func(ctx context.Context, req *sdk.CallToolRequest, in struct {
			ID string `json:"id"`
		}) (*sdk.CallToolResult, any, error) {
			entered <- in.ID
			select {
			case <-release:
			case <-ctx.Done():
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: in.ID}}}, nil, nil
		})
		srv := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil))
		m := mcp.Start(context.Background(), mcp.Options{Servers: []config.MCPServer{{Name: "slow", URL: srv.URL, Source: "test",
			SupportsParallelToolCalls: parallel}}})
		require.Empty(t, m.Failures())
		done := make(chan string, 2)
		for _, id := range []string{"a", "b"} {
			go func() { done <- m.CallTool(context.Background(), "slow", "wait", []byte(`{"id":"`+id+`"}`)).Output }()
			if id == "a" {
				<-entered // the first call is in the server before the second is made
			}
		}
		if parallel {
			<-entered // the second call reaches the server while the first waits
		} else {
			select {
			case id := <-entered:
				t.Fatalf("call %s reached the server while the first call was running (supports_parallel_tool_calls = false)", id)
			case <-time.After(300 * time.Millisecond): // a broken bound shows within it; a pass proves no more
			}
		}
		close(release)
		got := []string{<-done, <-done}
		require.ElementsMatch(t, []string{"a", "b"}, got)
		_ = m.Close()
		srv.Close()
	}
}
