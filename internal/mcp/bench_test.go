package mcp_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zelvior/aidex/internal/sharedtest"
)

// BenchmarkMCPStdioCall measures a call of the reference server's echo tool
// through aidex's manager (restart check, progress token, timeout, result
// conversion) against the same call on a bare go-sdk session: the difference
// is aidex's overhead per call (the issue allows 2 ms).
func BenchmarkMCPStdioCall(b *testing.B) {
	args := json.RawMessage(`{"message":"bench"}`)
	b.Run("aidex", func(b *testing.B) {
		m := start(b, everything(b, "everything"))
		if f := m.Failures(); len(f) > 0 {
			b.Fatal(f)
		}
		ctx := context.Background()
		b.ResetTimer()
		for b.Loop() {
			if r := m.CallTool(ctx, "everything", "echo", args); !r.OK {
				b.Fatal(r.Error)
			}
		}
	})
	b.Run("server", func(b *testing.B) {
		bin := sharedtest.NPMBin(b, "mcp-server-everything")
		ctx := context.Background()
		c := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil)
		sess, err := c.Connect(ctx, &sdk.CommandTransport{Command: exec.Command(bin, "stdio")}, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer sess.Close()
		b.ResetTimer()
		for b.Loop() {
			if _, err := sess.CallTool(ctx, &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "bench"}}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
