package longsession

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/session"
)

// scriptedModel answers every other request with one read_file call and
// the others with text, without looking at the request: the model costs
// nothing, so a run measures the engine alone.
type scriptedModel struct{ n int }

func (m *scriptedModel) Generate(_ context.Context, _ *llm.Request, h llm.Handler) (*llm.Response, error) {
	m.n++
	u := llm.Usage{InputTokens: 1000, OutputTokens: 20}
	if m.n%2 == 1 {
		c := llm.ToolCall{ID: fmt.Sprintf("call_b%d", m.n), Name: "read_file", Arguments: json.RawMessage(fmt.Sprintf(`{"path":"f%d.go"}`, m.n))}
		return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{{Type: llm.PartToolCall, ToolCall: &c}}}, Usage: u}, nil
	}
	if h != nil {
		h(llm.Event{Type: llm.EventText, Text: "done"})
	}
	return &llm.Response{Message: llm.AssistantText("done"), Usage: u}, nil
}

// noopTools offers one read-only tool whose result is a fixed 4 KiB text.
type noopTools struct{ out string }

func (noopTools) Specs() []llm.Tool {
	return []llm.Tool{{Name: "read_file", Description: "Read a file.", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}}
}

func (noopTools) Prepare(name string, args json.RawMessage) (*agent.Call, *agent.ToolResultInfo) {
	return &agent.Call{Name: name, Args: args, Kind: kind.Read, ReadOnly: true}, nil
}

func (t noopTools) Run(context.Context, *agent.Call) (agent.ToolResultInfo, error) {
	return agent.ToolResultInfo{OK: true, Output: t.out}, nil
}

// turnsPerRun is how many model requests one benchmarked run makes: a
// tool call, then the answer.
const turnsPerRun = 2

// cutEvery is how many runs the turn benchmark lets the session grow by
// before cutting it back to its size.
const cutEvery = 25

// BenchmarkTurn measures the engine's overhead per model turn (everything
// but the model and the tools, which cost nothing here) in a session of
// 10, 500 and 2,000 messages, without a store and with the SQLite store
// (each message one fsynced transaction). One op is a run of two turns
// (a tool call with a 4 KiB result, then the answer); us/turn is reported.
// The session is cut back to its size every cutEvery ops (untimed), so it
// stays within [n, n+4·cutEvery) messages as a live one grows.
func BenchmarkTurn(b *testing.B) {
	for _, n := range []int{10, 500, 2000} {
		for _, withStore := range []bool{false, true} {
			name := fmt.Sprintf("msgs=%d/store=%v", n, map[bool]string{false: "none", true: "sqlite"}[withStore])
			b.Run(name, func(b *testing.B) { benchTurn(b, n, withStore) })
		}
	}
}

func benchTurn(b *testing.B, n int, withStore bool) {
	ctx := context.Background()
	eng := &agent.Engine{Client: &scriptedModel{}, Tools: noopTools{out: Result(1)},
		Config: agent.Config{Model: agent.ModelInfo{Provider: "fake", Name: "scripted", ContextWindow: 2_000_000}, System: "You are a coding agent."}}
	sess := &agent.Conversation{ID: "s_bench", Workspace: "/w", Messages: Messages(n)}
	var store *session.Store
	if withStore {
		var err error
		store, err = session.Open(ctx, b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		defer store.Close()
		if sess, err = Write(ctx, store, "/w", n); err != nil {
			b.Fatal(err)
		}
		eng.Store = store
	}
	input := []llm.Part{{Type: llm.PartText, Text: "next"}}
	emit := func(agent.Event) {}
	b.ReportAllocs()
	b.ResetTimer()
	i := 0
	for b.Loop() {
		if _, err := eng.Run(ctx, sess, input, emit); err != nil {
			b.Fatal(err)
		}
		if i++; i%cutEvery != 0 {
			continue
		}
		b.StopTimer()
		sess.Messages = sess.Messages[:n] // keeps the capacity, as a live session's slice has
		if store != nil {
			if err := store.TruncateMessages(ctx, sess.ID, n); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*turnsPerRun), "us/turn")
}
