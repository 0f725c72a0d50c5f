package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/llm"
)

// script is a fake provider answering with one scripted response per call.
type script struct {
	mu    sync.Mutex
	steps []func(ctx context.Context, req *llm.Request, acc *llm.Accumulator) error
	reqs  []*llm.Request
}

func (s *script) Generate(ctx context.Context, req *llm.Request, h llm.Handler) (*llm.Response, error) {
	s.mu.Lock()
	cp := *req
	cp.Messages = append([]llm.Message(nil), req.Messages...)
	s.reqs = append(s.reqs, &cp)
	n := len(s.reqs)
	s.mu.Unlock()
	acc := llm.NewAccumulator(h)
	if n > len(s.steps) {
		return acc.Response(), errors.New("script exhausted")
	}
	err := s.steps[n-1](ctx, req, acc)
	acc.Usage(llm.Usage{InputTokens: 100, OutputTokens: 10})
	return acc.Response(), err
}

func say(text string) func(context.Context, *llm.Request, *llm.Accumulator) error {
	return func(_ context.Context, _ *llm.Request, acc *llm.Accumulator) error {
		acc.Text(text)
		acc.Finish("stop")
		return nil
	}
}

func call(id, name, args string) func(context.Context, *llm.Request, *llm.Accumulator) error {
	return func(_ context.Context, _ *llm.Request, acc *llm.Accumulator) error {
		acc.ToolCall(llm.ToolCall{ID: id, Name: name, Arguments: json.RawMessage(args)})
		acc.Finish("tool_calls")
		return nil
	}
}

// fakeTools knows "read" (read-only) and "write" (a write) and records runs.
type fakeTools struct {
	mu  sync.Mutex
	ran []string
}

func (f *fakeTools) Specs() []llm.Tool {
	return []llm.Tool{{Name: "read", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)},
		{Name: "write", Parameters: json.RawMessage(`{"type":"object"}`)}}
}

func (f *fakeTools) Prepare(name string, args json.RawMessage) (*Call, *ToolResultInfo) {
	switch name {
	case "read":
		return &Call{Name: name, Args: args, Kind: kind.Read, ReadOnly: true}, nil
	case "write":
		return &Call{Name: name, Args: args, Kind: kind.Write, Preview: "--- a\n+++ b\n"}, nil
	case "exec":
		var a struct{ Command string }
		_ = json.Unmarshal(args, &a)
		return &Call{Name: name, Args: args, Kind: kind.Exec, Command: a.Command}, nil
	}
	return nil, &ToolResultInfo{Error: "unknown tool " + name, Category: "not_found"}
}

func (f *fakeTools) Run(ctx context.Context, c *Call) (ToolResultInfo, error) {
	f.mu.Lock()
	f.ran = append(f.ran, c.Name+string(c.Args))
	f.mu.Unlock()
	if string(c.Args) == `{"path":"broken"}` {
		return ToolResultInfo{}, errors.New("no checkpoint store configured")
	}
	return ToolResultInfo{OK: true, Output: "ran " + c.Name}, nil
}

// policy allows reads and asks for everything else; with noRule it
// suggests no rule (as for a line no rule may allow).
type policy struct {
	remembered []string
	noRule     bool
}

func (p *policy) Check(c *Call) Verdict {
	if c.ReadOnly {
		return Verdict{Decision: "allow"}
	}
	if p.noRule {
		return Verdict{Decision: "ask", Rule: "shell analysis"}
	}
	return Verdict{Decision: "ask", Rule: "mode ask", Suggested: c.Name + "(*)"}
}

func (p *policy) Remember(d Answer, rule string) error {
	p.remembered = append(p.remembered, string(d)+":"+rule)
	return nil
}

type approver struct {
	d      Answer
	reason string
	asked  int
}

func (a *approver) Approve(ctx context.Context, req ApprovalInfo) (Answer, string, error) {
	a.asked++
	return a.d, a.reason, nil
}

type memStore struct {
	msgs     []llm.Message
	replaced int
	todos    []Todo
}

func (m *memStore) AppendMessage(_ context.Context, _ string, msg llm.Message, _ *llm.Usage) error {
	m.msgs = append(m.msgs, msg)
	return nil
}
func (m *memStore) ReplaceMessages(_ context.Context, _ string, msgs []llm.Message) error {
	m.msgs = append([]llm.Message(nil), msgs...)
	m.replaced++
	return nil
}
func (m *memStore) SaveTodos(_ context.Context, _ string, t []Todo) error { m.todos = t; return nil }

type recorder struct {
	mu     sync.Mutex
	events []Event
}

func (r *recorder) emit(e Event) { r.mu.Lock(); r.events = append(r.events, e); r.mu.Unlock() }
func (r *recorder) types() string {
	var parts []string
	for _, e := range r.events {
		if e.Type != EventUsage {
			parts = append(parts, string(e.Type))
		}
	}
	return strings.Join(parts, ",")
}

func newEngine(p llm.Client, a Approver) (*Engine, *fakeTools, *memStore, *policy) {
	tools, store, pol := &fakeTools{}, &memStore{}, &policy{}
	e := &Engine{Client: p, Tools: tools, Policy: pol, Store: store, Config: Config{Model: ModelInfo{Name: "m", InputPrice: 1, OutputPrice: 2}, TextToolCalls: true}}
	if a != nil {
		e.Approver = a
	}
	return e, tools, store, pol
}

func TestRunToolLoop(t *testing.T) {
	p := &script{steps: []func(context.Context, *llm.Request, *llm.Accumulator) error{
		func(_ context.Context, _ *llm.Request, acc *llm.Accumulator) error {
			acc.Text("looking")
			acc.ToolCall(llm.ToolCall{ID: "1", Name: "read", Arguments: json.RawMessage(`{"path":"a"}`)})
			acc.ToolCall(llm.ToolCall{ID: "2", Name: "read", Arguments: json.RawMessage(`{"path":"b"}`)})
			acc.ToolCall(llm.ToolCall{ID: "3", Name: "write", Arguments: json.RawMessage(`{}`)})
			return nil
		},
		say("all done"),
	}}
	ap := &approver{d: AnswerSession}
	e, tools, store, pol := newEngine(p, ap)
	rec := &recorder{}
	s := &Conversation{ID: "s1"}
	done, err := e.Run(context.Background(), s, []llm.Part{{Type: llm.PartText, Text: "fix it"}}, rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	if done.StopReason != StopDone || done.Result != "all done" || done.Turns != 2 {
		t.Fatalf("done %+v", done)
	}
	if len(tools.ran) != 3 || ap.asked != 1 || len(pol.remembered) != 1 || pol.remembered[0] != "session:write(*)" {
		t.Fatalf("ran %v asked %d remembered %v", tools.ran, ap.asked, pol.remembered)
	}
	// user, assistant, tool results, assistant
	if len(store.msgs) != 4 || store.msgs[2].Role != llm.RoleTool || len(store.msgs[2].Parts) != 3 {
		t.Fatalf("stored %+v", store.msgs)
	}
	if store.msgs[2].Parts[2].ToolResult.CallID != "3" {
		t.Errorf("results out of call order: %+v", store.msgs[2].Parts)
	}
	if got := rec.types(); !strings.HasPrefix(got, "session,waiting,text,tool_call,tool_call,tool_call,approval,approval") || !strings.HasSuffix(got, "waiting,text,done") {
		t.Errorf("events %s", got)
	}
	if s.CostUSD <= 0 || s.Usage.InputTokens != 200 {
		t.Errorf("usage %+v cost %v", s.Usage, s.CostUSD)
	}
	// the second request carries the tool results
	if last := p.reqs[1].Messages[len(p.reqs[1].Messages)-1]; last.Role != llm.RoleTool {
		t.Errorf("second request ends with %s", last.Role)
	}
}

func TestRunDeniedWithoutApprover(t *testing.T) {
	p := &script{steps: []func(context.Context, *llm.Request, *llm.Accumulator) error{call("1", "write", `{}`), say("could not")}}
	e, tools, store, _ := newEngine(p, nil)
	done, err := e.Run(context.Background(), &Conversation{ID: "s"}, []llm.Part{{Type: llm.PartText, Text: "go"}}, func(Event) {})
	if err != nil || done.Denials != 1 || len(tools.ran) != 0 {
		t.Fatalf("done %+v err %v ran %v", done, err, tools.ran)
	}
	res := store.msgs[2].Parts[0].ToolResult
	if !res.IsError || !strings.Contains(res.Content, "no one can be asked") || !strings.Contains(res.Content, "--allow 'write(*)'") {
		t.Errorf("denial text: %q", res.Content)
	}
}

// A headless denial of a command no allow rule can allow suggests no rule,
// never the bare tool (which would allow every command), and the
// tool_result carries the denial's facts.
func TestRunDeniedCommandSuggestsNoBareRule(t *testing.T) {
	p := &script{steps: []func(context.Context, *llm.Request, *llm.Accumulator) error{call("1", "exec", `{"command":"rm -rf build"}`), say("could not")}}
	e, _, store, pol := newEngine(p, nil)
	pol.noRule = true
	var denial *DenialInfo
	_, err := e.Run(context.Background(), &Conversation{ID: "s"}, []llm.Part{{Type: llm.PartText, Text: "go"}}, func(ev Event) {
		if ev.Type == EventToolResult {
			denial = ev.ToolResult.Denial
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	res := store.msgs[2].Parts[0].ToolResult.Content
	if !strings.Contains(res, "no --allow rule can allow it") || strings.Contains(res, "--allow '") {
		t.Errorf("denial text: %q", res)
	}
	if denial == nil || denial.Tool != "exec" || denial.Command != "rm -rf build" || denial.Decision != Ask ||
		denial.Rule != "shell analysis" || denial.Allow != "" {
		t.Errorf("denial: %+v", denial)
	}
}

func TestRunUserDenialReason(t *testing.T) {
	p := &script{steps: []func(context.Context, *llm.Request, *llm.Accumulator) error{call("1", "write", `{}`), say("ok")}}
	e, tools, store, _ := newEngine(p, &approver{d: AnswerDeny, reason: "use a branch"})
	if _, err := e.Run(context.Background(), &Conversation{ID: "s"}, []llm.Part{{Type: llm.PartText, Text: "go"}}, func(Event) {}); err != nil {
		t.Fatal(err)
	}
	if len(tools.ran) != 0 || !strings.Contains(store.msgs[2].Parts[0].ToolResult.Content, "use a branch") {
		t.Errorf("ran %v result %+v", tools.ran, store.msgs[2].Parts[0].ToolResult)
	}
}

func TestRunLoopDetection(t *testing.T) {
	steps := []func(context.Context, *llm.Request, *llm.Accumulator) error{}
	for i := 0; i < 5; i++ {
		steps = append(steps, call(fmt.Sprint(i), "read", `{"path": "x"}`))
	}
	p := &script{steps: steps}
	e, tools, _, _ := newEngine(p, nil)
	done, err := e.Run(context.Background(), &Conversation{ID: "s"}, []llm.Part{{Type: llm.PartText, Text: "go"}}, func(Event) {})
	if err != nil || done.StopReason != StopLoop || len(tools.ran) != 2 || !strings.Contains(done.Result, "read") {
		t.Fatalf("done %+v err %v ran %d", done, err, len(tools.ran))
	}
}

func TestRunMaxTurns(t *testing.T) {
	steps := []func(context.Context, *llm.Request, *llm.Accumulator) error{}
	for i := 0; i < 5; i++ {
		steps = append(steps, call(fmt.Sprint(i), "read", fmt.Sprintf(`{"path":"%d"}`, i)))
	}
	e, _, _, _ := newEngine(&script{steps: steps}, nil)
	e.Config.MaxTurns = 3
	done, err := e.Run(context.Background(), &Conversation{ID: "s"}, []llm.Part{{Type: llm.PartText, Text: "go"}}, func(Event) {})
	if err != nil || done.StopReason != StopMaxTurns || done.Turns != 3 {
		t.Fatalf("done %+v err %v", done, err)
	}
}

func TestRunCancelKeepsPartialText(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	p := &script{steps: []func(context.Context, *llm.Request, *llm.Accumulator) error{
		func(ctx context.Context, _ *llm.Request, acc *llm.Accumulator) error {
			acc.Text("half an ans")
			cancel()
			return ctx.Err()
		}}}
	e, _, store, _ := newEngine(p, nil)
	done, err := e.Run(ctx, &Conversation{ID: "s"}, []llm.Part{{Type: llm.PartText, Text: "go"}}, func(Event) {})
	if !errors.Is(err, context.Canceled) || done.StopReason != StopCancelled {
		t.Fatalf("err %v done %+v", err, done)
	}
	if len(store.msgs) != 2 || store.msgs[1].Text() != "half an ans" {
		t.Fatalf("partial not kept: %+v", store.msgs)
	}
}

func TestRunProviderErrorKeepsSession(t *testing.T) {
	p := &script{steps: []func(context.Context, *llm.Request, *llm.Accumulator) error{
		call("1", "read", `{"path":"a"}`),
		func(_ context.Context, _ *llm.Request, acc *llm.Accumulator) error {
			return &llm.APIError{Kind: llm.KindServer, Status: 500, Message: "boom"}
		}}}
	e, _, store, _ := newEngine(p, nil)
	rec := &recorder{}
	done, err := e.Run(context.Background(), &Conversation{ID: "s"}, []llm.Part{{Type: llm.PartText, Text: "go"}}, rec.emit)
	if err == nil || done.StopReason != StopError || len(store.msgs) != 3 {
		t.Fatalf("err %v done %+v msgs %d", err, done, len(store.msgs))
	}
	if !strings.Contains(rec.types(), "error,done") {
		t.Errorf("events %s", rec.types())
	}
}

func TestRunTextToolCalls(t *testing.T) {
	p := &script{steps: []func(context.Context, *llm.Request, *llm.Accumulator) error{
		say(`Let me look.<tool_call>{"name": "read", "arguments": {"path": "a"}}</tool_call>`),
		say("done"),
	}}
	e, tools, store, _ := newEngine(p, nil)
	done, err := e.Run(context.Background(), &Conversation{ID: "s"}, []llm.Part{{Type: llm.PartText, Text: "go"}}, func(Event) {})
	if err != nil || done.Result != "done" || len(tools.ran) != 1 || tools.ran[0] != `read{"path": "a"}` && tools.ran[0] != `read{"path":"a"}` {
		t.Fatalf("done %+v ran %v", done, tools.ran)
	}
	if m := store.msgs[2]; m.Role != llm.RoleUser || !strings.Contains(m.Text(), "<tool_response") {
		t.Errorf("text results: %+v", m)
	}
}

// Two runs on one session (a sequential multi-model turn's models, or two
// turns) write the same text call: their ids differ, so hooks and the
// store tell the calls apart.
func TestTextCallIDsUniqueInSession(t *testing.T) {
	text := `<tool_call>{"name": "read", "arguments": {"path": "a"}}</tool_call>`
	p := &script{steps: []func(context.Context, *llm.Request, *llm.Accumulator) error{say(text), say("done"), say(text), say("done")}}
	e, _, _, _ := newEngine(p, nil)
	s, rec := &Conversation{ID: "s"}, &recorder{}
	for range 2 {
		if _, err := e.Run(context.Background(), s, []llm.Part{{Type: llm.PartText, Text: "go"}}, rec.emit); err != nil {
			t.Fatal(err)
		}
	}
	seen := map[string]bool{}
	for _, ev := range rec.events {
		if ev.Type == EventToolCall {
			if seen[ev.ToolCall.ID] {
				t.Fatalf("tool call id %s used twice in the session", ev.ToolCall.ID)
			}
			seen[ev.ToolCall.ID] = true
		}
	}
	if len(seen) != 2 {
		t.Fatalf("want 2 text calls, got %v", seen)
	}
}

func TestRunMalformedArgumentsGoBack(t *testing.T) {
	p := &script{steps: []func(context.Context, *llm.Request, *llm.Accumulator) error{call("1", "read", `{"path":`), say("sorry")}}
	e, tools, store, _ := newEngine(p, nil)
	if _, err := e.Run(context.Background(), &Conversation{ID: "s"}, []llm.Part{{Type: llm.PartText, Text: "go"}}, func(Event) {}); err != nil {
		t.Fatal(err)
	}
	if len(tools.ran) != 0 || !strings.Contains(store.msgs[2].Parts[0].ToolResult.Content, "validation") {
		t.Errorf("ran %v result %+v", tools.ran, store.msgs[2].Parts[0].ToolResult)
	}
}

func TestTodoWrite(t *testing.T) {
	p := &script{steps: []func(context.Context, *llm.Request, *llm.Accumulator) error{
		call("1", "todo_write", `{"todos":[{"content":"a","status":"completed"},{"content":"b","status":"pending"}]}`),
		call("2", "todo_write", `{"todos":[{"content":"a","status":"bogus"}]}`),
		say("ok")}}
	e, _, store, _ := newEngine(p, nil)
	s := &Conversation{ID: "s"}
	if _, err := e.Run(context.Background(), s, []llm.Part{{Type: llm.PartText, Text: "go"}}, func(Event) {}); err != nil {
		t.Fatal(err)
	}
	if len(s.Todos) != 2 || len(store.todos) != 2 {
		t.Fatalf("todos %+v", s.Todos)
	}
	if r := store.msgs[4].Parts[0].ToolResult; !r.IsError || !strings.Contains(r.Content, "bogus") {
		t.Errorf("bad status accepted: %+v", r)
	}
}

func TestCompactionOnSmallWindow(t *testing.T) {
	big := strings.Repeat("x", 6000)
	p := &script{steps: []func(context.Context, *llm.Request, *llm.Accumulator) error{
		call("1", "read", `{"path":"1"}`),
		call("2", "read", `{"path":"2"}`),
		say("SUMMARY: read 1-3"),
		say("finished"),
	}}
	e, _, store, _ := newEngine(p, nil)
	e.Config.Model.ContextWindow = 1500
	s := &Conversation{ID: "s", Messages: []llm.Message{llm.UserText("old task " + big), llm.AssistantText("old answer")}}
	done, err := e.Run(context.Background(), s, []llm.Part{{Type: llm.PartText, Text: "new task"}}, func(Event) {})
	if err != nil || done.Result != "finished" {
		t.Fatalf("done %+v err %v", done, err)
	}
	if store.replaced == 0 {
		t.Fatal("no compaction happened")
	}
	found := false
	for _, m := range s.Messages {
		if strings.Contains(m.Text(), "SUMMARY: read 1-3") {
			found = true
		}
	}
	if !found {
		t.Errorf("summary not in session: %d messages", len(s.Messages))
	}
}

func TestRunBusy(t *testing.T) {
	e := &Engine{}
	if err := e.acquire("x"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Run(context.Background(), &Conversation{ID: "x"}, nil, func(Event) {}); !errors.Is(err, ErrBusy) {
		t.Fatalf("want ErrBusy, got %v", err)
	}
}

func TestBuildSystemPromptKeepsBraces(t *testing.T) {
	p := BuildSystemPrompt(PromptInput{Workspace: "/w", Instructions: []InstructionFile{{Path: "/w/AGENTS.md", Content: "use {{.X}} and {}"}}, Append: "extra {x}"})
	if !strings.Contains(p, "use {{.X}} and {}") || !strings.HasSuffix(p, "extra {x}") || !strings.Contains(p, "- Workspace: /w") {
		t.Errorf("prompt: %s", p)
	}
}

func BenchmarkEngineTurn(b *testing.B) {
	step := func(_ context.Context, _ *llm.Request, acc *llm.Accumulator) error {
		acc.ToolCall(llm.ToolCall{ID: "1", Name: "read", Arguments: json.RawMessage(`{"path":"a"}`)})
		return nil
	}
	b.ReportAllocs()
	for b.Loop() {
		p := &script{steps: []func(context.Context, *llm.Request, *llm.Accumulator) error{step, say("done")}}
		e := &Engine{Client: p, Tools: &fakeTools{}, Policy: &policy{}}
		_, _ = e.Run(context.Background(), &Conversation{ID: "s"}, []llm.Part{{Type: llm.PartText, Text: "go"}}, func(Event) {})
	}
}

func TestRevealInvisible(t *testing.T) {
	in := "ok\u200b text\U000E0041\U000E0042 \u202eevil\u200d👍"
	got := RevealInvisible(in)
	want := "ok<U+200B> text<U+E0041><U+E0042> <U+202E>evil\u200d👍"
	if got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	if s := "plain text ünïcode"; RevealInvisible(s) != s {
		t.Error("plain text changed")
	}
}

// An infrastructure failure in a tool aborts the turn: the run returns the
// error, the user sees it as a fatal error event, the session keeps the
// results (the model's copy says only that aidex failed), and later calls
// of the same response do not run.
func TestRunAbortsOnInfrastructureFailure(t *testing.T) {
	p := &script{steps: []func(context.Context, *llm.Request, *llm.Accumulator) error{
		func(_ context.Context, _ *llm.Request, acc *llm.Accumulator) error {
			acc.ToolCall(llm.ToolCall{ID: "1", Name: "read", Arguments: json.RawMessage(`{"path":"broken"}`)})
			acc.ToolCall(llm.ToolCall{ID: "2", Name: "write", Arguments: json.RawMessage(`{}`)})
			return nil
		},
		say("never asked"),
	}}
	e, tools, store, _ := newEngine(p, &approver{d: AnswerOnce})
	rec := &recorder{}
	done, err := e.Run(context.Background(), &Conversation{ID: "s1"}, []llm.Part{{Type: llm.PartText, Text: "go"}}, rec.emit)
	if !errors.Is(err, errInfrastructure) || !strings.Contains(err.Error(), "no checkpoint store configured") {
		t.Fatalf("err = %v, want the infrastructure failure", err)
	}
	if done == nil || done.StopReason != StopError || len(p.reqs) != 1 {
		t.Fatalf("done %+v after %d requests", done, len(p.reqs))
	}
	if len(tools.ran) != 1 {
		t.Errorf("ran %v: the call after the failure must not run", tools.ran)
	}
	if got := rec.types(); !strings.HasSuffix(got, "tool_result,tool_result,error,done") {
		t.Errorf("events %s", got)
	}
	if len(store.msgs) != 3 || store.msgs[2].Role != llm.RoleTool || len(store.msgs[2].Parts) != 2 {
		t.Fatalf("stored %+v", store.msgs)
	}
	if c := store.msgs[2].Parts[0].ToolResult.Content; strings.Contains(c, "checkpoint") || !strings.Contains(c, "aidex failed") {
		t.Errorf("the model's result %q must not carry the internal error", c)
	}
}

// TestWaitingBeforeFirstText: each model request is announced by a waiting
// event — provider, model, the request's estimated size — emitted when the
// request is sent, before anything of its answer.
func TestWaitingBeforeFirstText(t *testing.T) {
	rec := &recorder{}
	var atSend []EventType
	p := &script{steps: []func(context.Context, *llm.Request, *llm.Accumulator) error{
		func(ctx context.Context, req *llm.Request, acc *llm.Accumulator) error {
			rec.mu.Lock()
			for _, e := range rec.events {
				atSend = append(atSend, e.Type)
			}
			rec.mu.Unlock()
			return say("hello")(ctx, req, acc)
		},
	}}
	e, _, _, _ := newEngine(p, nil)
	e.Config.Model.Provider, e.Config.System = "ollama", strings.Repeat("x", 4000)
	if _, err := e.Run(context.Background(), &Conversation{ID: "s1"}, []llm.Part{{Type: llm.PartText, Text: strings.Repeat("y", 400)}}, rec.emit); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(atSend) != "[session waiting]" {
		t.Errorf("events before the request was sent: %v, want [session waiting]", atSend)
	}
	w := rec.events[1]
	if w.Type != EventWaiting || w.Waiting == nil || w.SessionID != "s1" {
		t.Fatalf("second event %+v, want waiting", w)
	}
	// 4,400 bytes of prompt (1,100 tokens at 4 bytes a token) and the
	// definitions of the tools (todo_write and two fakes).
	if w.Waiting.Provider != "ollama" || w.Waiting.Model != "m" || w.Waiting.InputTokens < 1150 || w.Waiting.InputTokens > 1500 {
		t.Errorf("waiting %+v, want ollama/m and the prompt plus the tools, about 1,250 input tokens", *w.Waiting)
	}
	if rec.events[2].Type != EventText {
		t.Errorf("third event %s, want text", rec.events[2].Type)
	}
	data, _ := json.Marshal(w)
	if want := `{"type":"waiting","session_id":"s1","waiting":{"provider":"ollama","model":"m","input_tokens":`; !strings.HasPrefix(string(data), want) {
		t.Errorf("JSON %s, want %s...", data, want)
	}
}

// TestRunLabelsModel: the assistant messages a run adds and the events of
// the model's work carry the model's "PROVIDER/MODEL" id.
func TestRunLabelsModel(t *testing.T) {
	p := &script{steps: []func(context.Context, *llm.Request, *llm.Accumulator) error{
		call("1", "read", `{"path":"a"}`), say("done"),
	}}
	e, _, store, _ := newEngine(p, nil)
	e.Config.Model.Provider = "prov"
	rec := &recorder{}
	if _, err := e.Run(context.Background(), &Conversation{ID: "s"}, []llm.Part{{Type: llm.PartText, Text: "go"}}, rec.emit); err != nil {
		t.Fatal(err)
	}
	for _, m := range store.msgs {
		want := ""
		if m.Role == llm.RoleAssistant {
			want = "prov/m"
		}
		if m.Model != want {
			t.Errorf("%s message labelled %q, want %q", m.Role, m.Model, want)
		}
	}
	seen := map[EventType]bool{}
	for _, ev := range rec.events {
		if ev.Type.fromModel() {
			seen[ev.Type] = true
			if ev.Model != "prov/m" {
				t.Errorf("%s event labelled %q", ev.Type, ev.Model)
			}
		} else if ev.Model != "" {
			t.Errorf("%s event labelled %q, want none", ev.Type, ev.Model)
		}
	}
	for _, ty := range []EventType{EventWaiting, EventText, EventToolCall, EventToolResult, EventUsage} {
		if !seen[ty] {
			t.Errorf("no %s event", ty)
		}
	}
}
