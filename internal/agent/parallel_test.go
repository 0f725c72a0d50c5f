package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/zelvior/aidex/internal/llm"
)

// gateTools counts the read calls in flight; each waits until want of
// them are in flight at once (or fails after a second), so the most in
// flight is exactly the bound the engine keeps.
type gateTools struct {
	fakeTools
	want      int
	mu        sync.Mutex
	in, most  int
	timedOut  bool
	reachedCh chan struct{}
}

func (g *gateTools) Run(ctx context.Context, c *Call) (ToolResultInfo, error) {
	g.mu.Lock()
	g.in++
	g.most = max(g.most, g.in)
	if g.in >= g.want {
		select {
		case <-g.reachedCh:
		default:
			close(g.reachedCh)
		}
	}
	g.mu.Unlock()
	select {
	case <-g.reachedCh:
	case <-time.After(time.Second):
		g.mu.Lock()
		g.timedOut = true
		g.mu.Unlock()
	}
	g.mu.Lock()
	g.in--
	g.mu.Unlock()
	return ToolResultInfo{OK: true, Output: "read " + string(c.Args)}, nil
}

// TestParallelReadsBound: four read-only calls of one response run all at
// once by default (0), at most two at once with a bound of 2, and one at
// a time with 1 (off); results keep the calls' order, and the record
// shows the bound.
func TestParallelReadsBound(t *testing.T) {
	for _, tc := range []struct{ bound, most int }{{0, 4}, {2, 2}, {1, 1}} {
		t.Run(fmt.Sprint(tc.bound), func(t *testing.T) {
			p := &script{steps: []step{func(_ context.Context, _ *llm.Request, acc *llm.Accumulator) error {
				for i := range 4 {
					acc.ToolCall(llm.ToolCall{ID: fmt.Sprint(i), Name: "read", Arguments: json.RawMessage(fmt.Sprintf(`{"path":"%d"}`, i))})
				}
				return nil
			}, say("done")}}
			e, _, _, _ := newEngine(p, nil)
			g := &gateTools{want: tc.most, reachedCh: make(chan struct{})}
			e.Tools = g
			e.Config.Harness.ParallelReads = tc.bound
			d, err := e.Run(context.Background(), &Conversation{ID: "s"}, []llm.Part{{Type: llm.PartText, Text: "read"}}, (&recorder{}).emit)
			if err != nil {
				t.Fatal(err)
			}
			if g.most != tc.most || g.timedOut || d.Harness.ParallelReads != tc.bound {
				t.Fatalf("at most %d in flight (timed out %v), record %+v; want %d", g.most, g.timedOut, d.Harness, tc.most)
			}
			results := p.reqs[1].Messages[2].Parts
			for i, part := range results {
				if part.ToolResult.CallID != fmt.Sprint(i) {
					t.Errorf("result %d is call %s's", i, part.ToolResult.CallID)
				}
			}
		})
	}
}
