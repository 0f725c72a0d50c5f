package agent

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm"
)

// TestRunClosesUnansweredCallsOfResumedSession: a session saved by a run
// that died between the assistant's tool calls and their results (process
// killed, a failed save) must not make every later request invalid: the
// next run answers the calls before the new user message.
func TestRunClosesUnansweredCallsOfResumedSession(t *testing.T) {
	p := &script{steps: []func(context.Context, *llm.Request, *llm.Accumulator) error{say("hello again")}}
	e, _, store, _ := newEngine(p, nil)
	dangling := llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{
		{Type: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: "a", Name: "read", Arguments: json.RawMessage(`{"path":"x"}`)}},
		{Type: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: "b", Name: "write", Arguments: json.RawMessage(`{}`)}},
	}}
	s := &Conversation{ID: "s", Messages: []llm.Message{llm.UserText("task"), dangling}}
	if _, err := e.Run(context.Background(), s, []llm.Part{{Type: llm.PartText, Text: "go on"}}, func(Event) {}); err != nil {
		t.Fatal(err)
	}
	msgs := p.reqs[0].Messages
	if len(msgs) != 4 || msgs[2].Role != llm.RoleTool || msgs[3].Role != llm.RoleUser {
		t.Fatalf("request messages: %+v", msgs)
	}
	if got := msgs[2].Parts; len(got) != 2 || got[0].ToolResult.CallID != "a" || got[1].ToolResult.CallID != "b" || !got[0].ToolResult.IsError {
		t.Fatalf("results: %+v", got)
	}
	if len(store.msgs) < 1 || store.msgs[0].Role != llm.RoleTool {
		t.Errorf("the closing results were not saved: %+v", store.msgs)
	}
}

// failStore fails every AppendMessage after the first n.
type failStore struct {
	memStore
	n int
}

func (f *failStore) AppendMessage(ctx context.Context, id string, m llm.Message, u *llm.Usage) error {
	if f.n <= 0 {
		return errors.New("disk full")
	}
	f.n--
	return f.memStore.AppendMessage(ctx, id, m, u)
}

// TestRunAfterFailedSaveStaysValid: when saving the assistant's tool calls
// fails, the run stops; the next run on the same in-memory session must
// still send a valid conversation.
func TestRunAfterFailedSaveStaysValid(t *testing.T) {
	p := &script{steps: []func(context.Context, *llm.Request, *llm.Accumulator) error{
		call("1", "read", `{"path":"a"}`),
		say("ok"),
	}}
	e, _, _, _ := newEngine(p, nil)
	fs := &failStore{n: 1}
	e.Store = fs
	s := &Conversation{ID: "s"}
	if _, err := e.Run(context.Background(), s, []llm.Part{{Type: llm.PartText, Text: "go"}}, func(Event) {}); err == nil {
		t.Fatal("want the save error")
	}
	fs.n = 100
	if _, err := e.Run(context.Background(), s, []llm.Part{{Type: llm.PartText, Text: "again"}}, func(Event) {}); err != nil {
		t.Fatal(err)
	}
	msgs := p.reqs[1].Messages
	for i, m := range msgs {
		if m.Role == llm.RoleAssistant && len(m.ToolCalls()) > 0 {
			if i+1 >= len(msgs) || msgs[i+1].Role != llm.RoleTool {
				t.Fatalf("tool call at %d has no result: %+v", i, msgs)
			}
		}
	}
}

// TestCloseCallsReportsSaveError: a failed save of the closing results is
// reported, not dropped.
func TestCloseCallsReportsSaveError(t *testing.T) {
	same := call("1", "read", `{"path":"a"}`)
	p := &script{steps: []func(context.Context, *llm.Request, *llm.Accumulator) error{same, same, same}}
	e, _, _, _ := newEngine(p, nil)
	// user, call, result, call, result, call: the 7th save (the closing
	// result of the repeated call) fails.
	e.Store = &failStore{n: 6}
	rec := &recorder{}
	if _, err := e.Run(context.Background(), &Conversation{ID: "s"}, []llm.Part{{Type: llm.PartText, Text: "go"}}, rec.emit); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, ev := range rec.events {
		if ev.Type == EventError && strings.Contains(ev.Error.Message, "disk full") {
			found = true
		}
	}
	if !found {
		t.Errorf("save error not reported: %s", rec.types())
	}
}

// usageStore records usage saved without a message.
type usageStore struct {
	memStore
	usage llm.Usage
	cost  float64
}

func (u *usageStore) AddUsage(_ context.Context, _ string, us llm.Usage, cost float64) error {
	u.usage = u.usage.Add(us)
	u.cost += cost
	return nil
}

// TestCompactionUsageIsSaved: the summary request's tokens and cost are
// counted in the session in memory and must reach the store too, so a
// resumed session reports the same totals.
func TestCompactionUsageIsSaved(t *testing.T) {
	p := &script{steps: []func(context.Context, *llm.Request, *llm.Accumulator) error{say("SUMMARY")}}
	e, _, _, _ := newEngine(p, nil)
	st := &usageStore{}
	e.Store = st
	s := &Conversation{ID: "s", Messages: []llm.Message{llm.UserText("one"), llm.AssistantText("a"), llm.UserText("two"),
		llm.AssistantText("b"), llm.UserText("three"), llm.AssistantText("c")}}
	if err := e.Compact(context.Background(), s, "keep it short", func(Event) {}); err != nil {
		t.Fatal(err)
	}
	if s.Usage.InputTokens != 100 || st.usage != s.Usage || st.cost != s.CostUSD || st.cost == 0 {
		t.Fatalf("session usage %+v cost %v; stored %+v cost %v", s.Usage, s.CostUSD, st.usage, st.cost)
	}
}

// TestErrorResponseUsageIsSaved: usage of a response that leaves no
// message (a provider error before any text) reaches the store as well.
func TestErrorResponseUsageIsSaved(t *testing.T) {
	p := &script{steps: []func(context.Context, *llm.Request, *llm.Accumulator) error{
		func(_ context.Context, _ *llm.Request, _ *llm.Accumulator) error {
			return &llm.APIError{Kind: llm.KindServer, Status: 500, Message: "boom"}
		}}}
	e, _, _, _ := newEngine(p, nil)
	st := &usageStore{}
	e.Store = st
	s := &Conversation{ID: "s"}
	if _, err := e.Run(context.Background(), s, []llm.Part{{Type: llm.PartText, Text: "go"}}, func(Event) {}); err == nil {
		t.Fatal("want the provider error")
	}
	if st.usage != s.Usage || s.Usage.InputTokens != 100 {
		t.Fatalf("session %+v stored %+v", s.Usage, st.usage)
	}
}
