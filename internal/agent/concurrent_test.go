package agent

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/llm"
)

// TestConcurrentEngineToolsRunInParallel: t2 and t3, calls of a
// Concurrent engine tool next to each other in one response, each wait
// for the other to start; run one after the other they would wait until
// the timeout, which fails the test. t1 before a write keeps its order.
func TestConcurrentEngineToolsRunInParallel(t *testing.T) {
	var started sync.WaitGroup
	started.Add(2)
	both := make(chan struct{})
	go func() { started.Wait(); close(both) }()
	tool := EngineTool{Spec: llm.Tool{Name: "task", Parameters: json.RawMessage(`{"type":"object"}`)}, Concurrent: true,
		Call: func(ctx context.Context, c EngineCall, _ json.RawMessage) ToolResultInfo {
			c.Emit(Event{Type: EventText, Text: "child of " + c.ID, ParentToolCallID: c.ID})
			if c.ID == "t1" {
				return ToolResultInfo{OK: true, Output: "answer of t1"}
			}
			started.Done()
			select {
			case <-both:
				return ToolResultInfo{OK: true, Output: "answer of " + c.ID}
			case <-time.After(20 * time.Second):
				return ToolResultInfo{Error: "the other task call never started: the calls ran one after the other"}
			}
		}}
	p := &script{steps: []func(context.Context, *llm.Request, *llm.Accumulator) error{
		func(_ context.Context, _ *llm.Request, acc *llm.Accumulator) error {
			for _, id := range []string{"t1", "w1", "t2", "t3"} {
				name := "task"
				if id == "w1" {
					name = "write"
				}
				acc.ToolCall(llm.ToolCall{ID: id, Name: name, Arguments: json.RawMessage(`{}`)})
			}
			acc.Finish("tool_calls")
			return nil
		},
		say("ok"),
	}}
	e, _, _, _ := newEngine(p, &approver{d: AnswerOnce})
	e.Config.EngineTools = []EngineTool{tool}
	rec := &recorder{}
	_, err := e.Run(context.Background(), &Conversation{ID: "s"}, []llm.Part{{Type: llm.PartText, Text: "go"}}, rec.emit)
	require.NoError(t, err)
	var order []string
	for _, ev := range rec.events {
		if ev.Type == EventToolResult {
			require.True(t, ev.ToolResult.OK, "%+v", ev.ToolResult)
			order = append(order, ev.ToolResult.ID)
		}
	}
	require.Len(t, order, 4)
	require.Equal(t, []string{"t1", "w1"}, order[:2], "calls around a non-concurrent call keep their order")
	require.ElementsMatch(t, []string{"t2", "t3"}, order[2:])
	last := p.reqs[1].Messages[len(p.reqs[1].Messages)-1]
	require.Len(t, last.Parts, 4)
}
