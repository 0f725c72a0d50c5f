package longsession

import (
	"context"
	"testing"

	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/session"
)

// Messages(n) has exactly n messages, every tool call answered by the next
// message with a result of ResultBytes, and Write stores them as the
// workspace's latest session.
func TestMessagesAndWrite(t *testing.T) {
	for _, n := range []int{1, 2, 3, 10, 11, 500, 2000} {
		msgs := Messages(n)
		if len(msgs) != n {
			t.Fatalf("Messages(%d) has %d messages", n, len(msgs))
		}
		for i, m := range msgs {
			calls := m.ToolCalls()
			if len(calls) == 0 {
				continue
			}
			if i+1 >= n || msgs[i+1].Role != llm.RoleTool || msgs[i+1].Parts[0].ToolResult.CallID != calls[0].ID {
				t.Fatalf("Messages(%d): the call of message %d is not answered by the next", n, i)
			}
			if got := len(msgs[i+1].Parts[0].ToolResult.Content); got != ResultBytes {
				t.Fatalf("Messages(%d): result of %d bytes, want %d", n, got, ResultBytes)
			}
		}
	}
	ctx := context.Background()
	store, err := session.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if _, err := Write(ctx, store, "/w", 2000); err != nil {
		t.Fatal(err)
	}
	latest, err := store.Latest(ctx, "/w")
	if err != nil {
		t.Fatal(err)
	}
	if len(latest.Messages) != 2000 || latest.Messages[1999].Text() != "Done with step 200: the handlers now return their errors." {
		t.Fatalf("stored %d messages, the last %q", len(latest.Messages), latest.Messages[len(latest.Messages)-1].Text())
	}
}
