package app

import (
	"context"
	"testing"
	"time"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app/multi"
	"github.com/zelvior/aidex/internal/llm"
)

// BenchmarkMultiModes times one user turn of three models whose answers
// each take 100 ms at the server, in each mode: round-robin asks one
// model, sequential three one after the other, parallel three at once
// (ideally one answer's time plus aidex's overhead).
func BenchmarkMultiModes(b *testing.B) {
	for _, mode := range []multi.Mode{multi.RoundRobin, multi.Sequential, multi.Parallel} {
		b.Run(string(mode), func(b *testing.B) {
			live, ms := multiSession(b, mode, SessionOptions{})
			ms.hold = func() error { time.Sleep(100 * time.Millisecond); return nil }
			ctx := context.Background()
			b.ResetTimer()
			for range b.N {
				if _, err := live.Run(ctx, []llm.Part{{Type: llm.PartText, Text: "q"}}, func(agent.Event) {}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
