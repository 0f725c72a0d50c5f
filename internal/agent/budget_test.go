package agent

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm"
)

type stepFn = func(context.Context, *llm.Request, *llm.Accumulator) error

// pricedEngine is newEngine with each scripted response (100 input tokens,
// 10 output) priced at $0.10.
func pricedEngine(p llm.Client, b Budget) (*Engine, *fakeTools, *memStore) {
	e, tools, store, _ := newEngine(p, &approver{d: AnswerOnce})
	e.Config.Model = ModelInfo{Provider: "p", Name: "m", InputPrice: 1000}
	e.Config.Budget = b
	return e, tools, store
}

func budgetEvents(rec *recorder) []*BudgetInfo {
	var out []*BudgetInfo
	for _, e := range rec.events {
		if e.Type == EventBudget {
			out = append(out, e.Budget)
		}
	}
	return out
}

func TestBudgetStopsAfterTheStepsToolCalls(t *testing.T) {
	p := &script{steps: []stepFn{
		func(_ context.Context, _ *llm.Request, acc *llm.Accumulator) error {
			acc.ToolCall(llm.ToolCall{ID: "1", Name: "write", Arguments: json.RawMessage(`{}`)})
			acc.ToolCall(llm.ToolCall{ID: "2", Name: "read", Arguments: json.RawMessage(`{"path":"a"}`)})
			return nil
		},
		call("3", "read", `{"path":"b"}`), say("done"),
	}}
	e, tools, store := pricedEngine(p, Budget{RunUSD: 0.10})
	rec := &recorder{}
	s := &Conversation{ID: "s1"}
	d, err := e.Run(context.Background(), s, []llm.Part{{Type: llm.PartText, Text: "go"}}, rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	if d.StopReason != StopBudget || d.Turns != 1 || d.Budget == nil || d.Budget.Limit != "run" || !d.Budget.Exhausted {
		t.Fatalf("done %+v budget %+v", d, d.Budget)
	}
	// Both calls of the step ran and their results are saved: the
	// session ends at a clean step boundary.
	if len(tools.ran) != 2 || len(p.reqs) != 1 {
		t.Fatalf("ran %v, %d requests", tools.ran, len(p.reqs))
	}
	if last := store.msgs[len(store.msgs)-1]; last.Role != llm.RoleTool || len(last.Parts) != 2 {
		t.Fatalf("last stored message %+v", last)
	}
	if got := rec.types(); got != "session,waiting,budget,tool_call,approval,approval,tool_result,tool_call,tool_result,done" {
		t.Errorf("events %s", got)
	}
	if b := budgetEvents(rec); len(b) != 1 || !strings.Contains(b[0].Message, "--max-cost reached: $0.1000 of $0.10") {
		t.Errorf("budget events %+v", b)
	}

	// A following run with a raised budget continues the session.
	e.Config.Budget = Budget{RunUSD: 1}
	d, err = e.Run(context.Background(), s, []llm.Part{{Type: llm.PartText, Text: "continue"}}, rec.emit)
	if err != nil || d.StopReason != StopDone || d.Result != "done" {
		t.Fatalf("resumed run: %+v %v", d, err)
	}
	if req := p.reqs[1]; req.Messages[len(req.Messages)-2].Role != llm.RoleTool {
		t.Errorf("the resumed request does not follow the tool results: %+v", req.Messages)
	}
}

func TestBudgetWarnsAt80Percent(t *testing.T) {
	p := &script{steps: []stepFn{call("1", "read", `{"path":"a"}`), call("2", "read", `{"path":"b"}`), call("3", "read", `{"path":"c"}`), say("done")}}
	e, tools, _ := pricedEngine(p, Budget{RunUSD: 0.25})
	rec := &recorder{}
	d, err := e.Run(context.Background(), &Conversation{ID: "s"}, []llm.Part{{Type: llm.PartText, Text: "go"}}, rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	b := budgetEvents(rec)
	if len(b) != 2 || b[0].Exhausted || b[0].Percent < 79.9 || b[0].Percent > 80.1 || !b[1].Exhausted {
		t.Fatalf("budget events %+v", b)
	}
	if !strings.Contains(b[0].Message, "--max-cost: 80% used ($0.2000 of $0.25)") {
		t.Errorf("warning %q", b[0].Message)
	}
	if d.StopReason != StopBudget || d.Turns != 3 || len(tools.ran) != 3 {
		t.Fatalf("done %+v ran %v", d, tools.ran)
	}
}

func TestBudgetUsedUpBeforeTheRun(t *testing.T) {
	p := &script{steps: []stepFn{say("never")}}
	spent := func(_ context.Context, id string) (Spending, error) {
		if id != "s" {
			t.Errorf("spent asked for %q", id)
		}
		return Spending{SessionUSD: 1.5, DailyUSD: 1.5}, nil
	}
	e, _, store := pricedEngine(p, Budget{SessionUSD: 1, Spent: spent})
	rec := &recorder{}
	d, err := e.Run(context.Background(), &Conversation{ID: "s"}, []llm.Part{{Type: llm.PartText, Text: "go"}}, rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	if d.StopReason != StopBudget || d.Turns != 0 || len(p.reqs) != 0 || len(store.msgs) != 0 {
		t.Fatalf("done %+v, %d requests, %d messages stored", d, len(p.reqs), len(store.msgs))
	}
	if d.Budget.Limit != "session" || !strings.Contains(d.Budget.Message, "budget.session_usd is used up before this run") {
		t.Errorf("budget %+v", d.Budget)
	}
}

func TestBudgetDailyAndTokens(t *testing.T) {
	spent := func(context.Context, string) (Spending, error) { return Spending{DailyUSD: 0.45}, nil }
	p := &script{steps: []stepFn{call("1", "read", `{"path":"a"}`), say("done")}}
	e, _, _ := pricedEngine(p, Budget{DailyUSD: 0.5, Spent: spent})
	rec := &recorder{}
	d, _ := e.Run(context.Background(), &Conversation{ID: "s"}, []llm.Part{{Type: llm.PartText, Text: "go"}}, rec.emit)
	b := budgetEvents(rec)
	if d.StopReason != StopBudget || len(b) != 2 || b[0].Limit != "daily" || b[0].Exhausted || !b[1].Exhausted {
		t.Fatalf("done %+v events %+v", d, b)
	}

	// Without Spent the session's own tokens count: 100 before, 110 a response.
	p = &script{steps: []stepFn{call("1", "read", `{"path":"a"}`), say("done")}}
	e, _, _ = pricedEngine(p, Budget{MaxTokens: 150})
	d, _ = e.Run(context.Background(), &Conversation{ID: "s", Usage: llm.Usage{InputTokens: 100}}, []llm.Part{{Type: llm.PartText, Text: "go"}}, (&recorder{}).emit)
	if d.StopReason != StopBudget || d.Budget.Limit != "tokens" || d.Budget.Spent != 210 || d.Budget.Unit != "tokens" {
		t.Fatalf("tokens: %+v %+v", d, d.Budget)
	}
}

// A run and its subagents are one account (issue 43): a subagent's run,
// started under the parent's context with the same limit, stops when the
// parent's and its own spending together reach it, not when its own does
// (which let a model multiply the run's limit by asking for subagents).
func TestBudgetCountsSubagents(t *testing.T) {
	loop := []stepFn{call("c1", "read", `{"path":"a"}`), call("c2", "read", `{"path":"a"}`), call("c3", "read", `{"path":"a"}`),
		call("c4", "read", `{"path":"a"}`), say("child done")}
	childClient := &script{steps: loop}
	childEng, _, _ := pricedEngine(childClient, Budget{RunUSD: 0.25}) // each response $0.10
	task := EngineTool{Spec: llm.Tool{Name: "task"}, Call: func(ctx context.Context, c EngineCall, _ json.RawMessage) ToolResultInfo {
		d, err := childEng.Run(ctx, &Conversation{ID: "child"}, []llm.Part{{Type: llm.PartText, Text: "sub"}}, func(ev Event) {
			ev.ParentToolCallID = c.ID
			c.Emit(ev)
		})
		if err != nil {
			return ToolResultInfo{Error: err.Error()}
		}
		return ToolResultInfo{OK: true, Output: string(d.StopReason)}
	}}
	p := &script{steps: []stepFn{call("1", "task", `{}`), say("done")}}
	e, _, _ := pricedEngine(p, Budget{RunUSD: 0.25})
	e.Config.EngineTools = []EngineTool{task}
	rec := &recorder{}
	d, err := e.Run(context.Background(), &Conversation{ID: "s"}, []llm.Part{{Type: llm.PartText, Text: "go"}}, rec.emit)
	if err != nil || d.StopReason != StopBudget || d.Turns != 1 {
		t.Fatalf("done %+v %v", d, err)
	}
	// The parent spent $0.10; the child's second response brings the
	// account to $0.30: it stops there, not at its own third.
	if n := len(childClient.reqs); n != 2 {
		t.Fatalf("the subagent made %d requests: it was charged to an account of its own", n)
	}
	var exhausted int
	for _, b := range budgetEvents(rec) {
		if b.Exhausted {
			exhausted++
			if b.Spent < 0.29 || b.Spent > 0.31 {
				t.Errorf("the stop reports $%.2f, want the shared account's $0.30", b.Spent)
			}
		}
	}
	if exhausted != 1 {
		t.Errorf("%d exhausted budget events, want one", exhausted)
	}
}

// The runs of one turn under ShareBudget (an architect turn's two phases,
// a multi-model turn's models) are one account.
func TestShareBudgetAcrossRunsOfATurn(t *testing.T) {
	ctx := ShareBudget(context.Background())
	first := &script{steps: []stepFn{call("1", "read", `{"path":"a"}`), say("plan")}}
	e1, _, _ := pricedEngine(first, Budget{RunUSD: 0.25})
	if _, err := e1.Run(ctx, &Conversation{ID: "s"}, []llm.Part{{Type: llm.PartText, Text: "go"}}, (&recorder{}).emit); err != nil {
		t.Fatal(err)
	}
	second := &script{steps: []stepFn{call("2", "read", `{"path":"a"}`), call("3", "read", `{"path":"a"}`), say("done")}}
	e2, _, _ := pricedEngine(second, Budget{RunUSD: 0.25})
	d, err := e2.Run(ctx, &Conversation{ID: "s"}, []llm.Part{{Type: llm.PartText, Text: "edit"}}, (&recorder{}).emit)
	if err != nil || d.StopReason != StopBudget || len(second.reqs) != 1 {
		t.Fatalf("the second run of the turn: %+v, %d requests; want a budget stop after its first ($0.30 of $0.25 with the first run's)", d, len(second.reqs))
	}
}

func TestBudgetSpentErrorFallsBack(t *testing.T) {
	spent := func(context.Context, string) (Spending, error) { return Spending{}, errors.New("database locked") }
	p := &script{steps: []stepFn{say("done")}}
	e, _, _ := pricedEngine(p, Budget{SessionUSD: 1, Spent: spent})
	rec := &recorder{}
	d, err := e.Run(context.Background(), &Conversation{ID: "s", CostUSD: 0.95}, []llm.Part{{Type: llm.PartText, Text: "go"}}, rec.emit)
	if err != nil || d.StopReason != StopDone {
		t.Fatalf("done %+v %v", d, err)
	}
	// The session's own $0.95 counts: a warning at start, used up after the answer.
	if b := budgetEvents(rec); len(b) != 2 || b[0].Limit != "session" || !b[1].Exhausted {
		t.Fatalf("events %+v", b)
	}
	if !strings.Contains(rec.types(), "error") {
		t.Errorf("no error event for the failed query: %s", rec.types())
	}
}

// TestBudgetAppliesToContinue: a multi-model turn goes on with Continue;
// a used-up session budget lets the kept answer's tool calls finish and
// stops before the next model request (it was not checked before).
func TestBudgetAppliesToContinue(t *testing.T) {
	p := &script{steps: []stepFn{say("never asked")}}
	e, tools, _ := pricedEngine(p, Budget{SessionUSD: 0.05})
	s := &Conversation{ID: "s", CostUSD: 0.10, Messages: []llm.Message{
		llm.UserText("go"),
		{Role: llm.RoleAssistant, Parts: []llm.Part{{Type: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: "1", Name: "read", Arguments: json.RawMessage(`{"path":"a"}`)}}}},
	}}
	rec := &recorder{}
	d, err := e.Continue(context.Background(), s, rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	if d.StopReason != StopBudget || len(p.reqs) != 0 {
		t.Fatalf("stop %s after %d model requests, want budget and none", d.StopReason, len(p.reqs))
	}
	if len(tools.ran) != 1 {
		t.Errorf("the kept answer's call ran %d times, want once", len(tools.ran))
	}
	if b := budgetEvents(rec); len(b) == 0 || !b[0].Exhausted || b[0].Limit != "session" {
		t.Errorf("budget events %+v", b)
	}
}
