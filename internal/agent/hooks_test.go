package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/zelvior/aidex/internal/llm"
)

func TestHookVerdictNeverLoosensMoreThanTheModesAsk(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    Verdict
		hook Decision
		want Decision
	}{
		{"allow skips the mode's ask", Verdict{Decision: Ask, Rule: "mode ask", ModeOnly: true}, Allow, Allow},
		{"allow skips the mode's ask headless", Verdict{Decision: Deny, Unasked: true, ModeOnly: true}, Allow, Allow},
		{"allow does not skip an ask rule", Verdict{Decision: Ask, Rule: "run_command(git *)"}, Allow, Ask},
		{"allow does not skip a protected path headless", Verdict{Decision: Deny, Unasked: true, Rule: "protected path"}, Allow, Deny},
		{"allow does not beat a deny rule", Verdict{Decision: Deny, Rule: "run_command(rm *)"}, Allow, Deny},
		{"allow does not beat a deny marked mode-only", Verdict{Decision: Deny, Rule: "mode plan", ModeOnly: true}, Allow, Deny},
		{"ask turns an allow into an ask", Verdict{Decision: Allow, Rule: "mode yolo"}, Ask, Ask},
		{"ask keeps a deny", Verdict{Decision: Deny, Rule: "run_command(rm *)"}, Ask, Deny},
		{"no opinion", Verdict{Decision: Ask, ModeOnly: true}, "", Ask},
	} {
		if got := hookVerdict(tc.v, tc.hook, "why").Decision; got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}

// fakeHooks answers each point from its fields and records the calls.
type fakeHooks struct {
	mu                       sync.Mutex
	calls                    []string
	before, permission, stop HookAnswer
	after                    HookAnswer
	notified                 chan string
}

func (f *fakeHooks) rec(s string) {
	f.mu.Lock()
	f.calls = append(f.calls, s)
	f.mu.Unlock()
}
func (f *fakeHooks) BeforeTool(_ context.Context, _ *Session, c *Call) HookAnswer {
	f.rec("before " + c.Name + string(c.Args))
	return f.before
}
func (f *fakeHooks) Permission(_ context.Context, _ *Session, c *Call) HookAnswer {
	f.rec("permission " + c.Name)
	return f.permission
}
func (f *fakeHooks) AfterTool(_ context.Context, _ *Session, c *Call, res ToolResultInfo) HookAnswer {
	f.rec(fmt.Sprintf("after %s ok=%v", c.Name, res.OK))
	return f.after
}
func (f *fakeHooks) Stop(_ context.Context, _ *Session, active bool) HookAnswer {
	f.rec(fmt.Sprintf("stop active=%v", active))
	return f.stop
}
func (f *fakeHooks) Compact(_ context.Context, _ *Session, trigger, focus string) HookAnswer {
	f.rec("compact " + trigger + " " + focus)
	return HookAnswer{Messages: []string{"compacting"}}
}
func (f *fakeHooks) Notify(_ context.Context, _ *Session, kind, message string) {
	if f.notified != nil {
		f.notified <- kind // in the background: not in calls, whose order it would change
	}
}

func steps(fs ...func(context.Context, *llm.Request, *llm.Accumulator) error) *script {
	return &script{steps: fs}
}

func runWith(t *testing.T, e *Engine) (*DoneInfo, *recorder) {
	t.Helper()
	rec := &recorder{}
	done, err := e.Run(context.Background(), &Session{ID: "s"}, []llm.Part{{Type: llm.PartText, Text: "go"}}, rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	return done, rec
}

func TestHooksPermissionRequestAnswersTheApproval(t *testing.T) {
	for _, tc := range []struct {
		decision Decision
		ran      int
		asked    int
	}{{Allow, 1, 0}, {Deny, 0, 0}, {"", 1, 1}} {
		a := &approver{d: AnswerOnce}
		e, tools, store, _ := newEngine(steps(call("1", "write", `{}`), say("ok")), a)
		h := &fakeHooks{permission: HookAnswer{Decision: tc.decision, Reason: "policy bot"}, notified: make(chan string, 1)}
		e.Hooks = h
		runWith(t, e)
		if tc.asked > 0 {
			if kind := <-h.notified; kind != "permission_prompt" { // the run waited for the user
				t.Errorf("notification %q", kind)
			}
		} else if len(h.notified) > 0 {
			t.Errorf("a notification without an approval")
		}
		if len(tools.ran) != tc.ran || a.asked != tc.asked {
			t.Errorf("%q: ran %v, asked %d", tc.decision, tools.ran, a.asked)
		}
		if tc.decision == Deny && !strings.Contains(store.msgs[2].Parts[0].ToolResult.Content, "policy bot") {
			t.Errorf("the model was not told the hook's reason: %q", store.msgs[2].Parts[0].ToolResult.Content)
		}
		want := "before write{} permission write"
		if tc.ran > 0 {
			want += " after write ok=true"
		}
		if got := strings.Join(h.calls[:len(h.calls)-1], " "); got != want {
			t.Errorf("%q: hook calls %q, want %q", tc.decision, got, want)
		}
	}
}

func TestHooksPermissionRequestAllowCannotApproveWhatNoRuleMay(t *testing.T) {
	a := &approver{d: AnswerDeny}
	e, tools, _, pol := newEngine(steps(call("1", "write", `{}`), say("ok")), a)
	pol.noRule = true // as a protected path: no rule may allow it
	e.Hooks = &fakeHooks{permission: HookAnswer{Decision: Allow}}
	_, rec := runWith(t, e)
	if len(tools.ran) != 0 || a.asked != 1 {
		t.Fatalf("ran %v, asked %d: the hook's allow approved a call no rule may allow", tools.ran, a.asked)
	}
	found := false
	for _, ev := range rec.events {
		found = found || (ev.Type == EventError && strings.Contains(ev.Error.Message, "needs your approval"))
	}
	if !found {
		t.Error("the user was not told why the hook's allow was not obeyed")
	}
}

func TestHooksContinueFalseEndsTheRun(t *testing.T) {
	e, tools, _, _ := newEngine(steps(call("1", "read", `{"path":"a"}`), say("never")), nil)
	e.Hooks = &fakeHooks{after: HookAnswer{Stop: true, StopReason: "budget spent"}}
	done, rec := runWith(t, e)
	if done.StopReason != StopHook || len(tools.ran) != 1 {
		t.Fatalf("stop %s, ran %v", done.StopReason, tools.ran)
	}
	var msg string
	for _, ev := range rec.events {
		if ev.Type == EventError && ev.Error.Kind == "hook" {
			msg = ev.Error.Message
		}
	}
	if !strings.Contains(msg, "budget spent") {
		t.Errorf("the user was not told why: %q", msg)
	}
}

func TestHooksStopContinuesOnceAndPostToolFeedback(t *testing.T) {
	p := steps(call("1", "read", `{"path":"a"}`), say("first"), say("second"), say("third"))
	e, _, store, _ := newEngine(p, nil)
	h := &fakeHooks{stop: HookAnswer{Block: true, Reason: "tests are failing"}, after: HookAnswer{Block: true, Reason: "lint warning", Context: "see docs"}}
	e.Hooks = h
	done, _ := runWith(t, e)
	if done.Result != "second" || len(p.reqs) != 3 {
		t.Fatalf("result %q after %d requests", done.Result, len(p.reqs))
	}
	if got := strings.Join(h.calls, ","); !strings.HasSuffix(got, "stop active=false,stop active=true") {
		t.Errorf("calls %s", got)
	}
	res := store.msgs[2].Parts[0].ToolResult.Content
	if !strings.Contains(res, "ran read") || !strings.Contains(res, "PostToolUse hook feedback: lint warning") || !strings.Contains(res, "see docs") {
		t.Errorf("tool result = %q", res)
	}
	if last := p.reqs[2].Messages[len(p.reqs[2].Messages)-1].Text(); !strings.Contains(last, "tests are failing") {
		t.Errorf("the continuation does not carry the reason: %q", last)
	}
}

func TestHooksBeforeToolRewriteAndBlock(t *testing.T) {
	e, tools, store, _ := newEngine(steps(call("1", "read", `{"path":"a"}`), say("ok")), nil)
	e.Hooks = &fakeHooks{before: HookAnswer{Args: json.RawMessage(`{"path":"b"}`)}}
	runWith(t, e)
	if len(tools.ran) != 1 || tools.ran[0] != `read{"path":"b"}` {
		t.Errorf("ran %v", tools.ran)
	}
	e, tools, store, _ = newEngine(steps(call("1", "read", `{"path":"a"}`), say("ok")), nil)
	e.Hooks = &fakeHooks{before: HookAnswer{Block: true, Reason: "not that file"}}
	done, _ := runWith(t, e)
	if len(tools.ran) != 0 || done.Denials != 1 || !strings.Contains(store.msgs[2].Parts[0].ToolResult.Content, "not that file") {
		t.Errorf("ran %v, denials %d", tools.ran, done.Denials)
	}
}

func TestHooksPreCompactManual(t *testing.T) {
	e, _, _, _ := newEngine(steps(say("SUMMARY")), nil)
	h := &fakeHooks{}
	e.Hooks = h
	e.Config.Model.ContextWindow = 100
	s := &Session{ID: "s", Messages: []llm.Message{llm.UserText("a"), llm.AssistantText("b"), llm.UserText("c"),
		llm.AssistantText("d"), llm.UserText("e"), llm.AssistantText("f")}}
	rec := &recorder{}
	if err := e.Compact(context.Background(), s, "keep the plan", rec.emit); err != nil {
		t.Fatal(err)
	}
	if len(h.calls) != 1 || h.calls[0] != "compact manual keep the plan" {
		t.Errorf("calls %v", h.calls)
	}
	if len(rec.events) == 0 || rec.events[0].Error == nil || rec.events[0].Error.Message != "compacting" {
		t.Errorf("the hook's message was not shown: %+v", rec.events)
	}
}

func TestHooksSeeEngineTools(t *testing.T) {
	todo := `{"todos":[{"content":"a","status":"pending"}]}`
	e, _, store, _ := newEngine(steps(call("1", "todo_write", todo), say("ok")), nil)
	h := &fakeHooks{before: HookAnswer{Decision: Deny, Reason: "no plans today"}}
	e.Hooks = h
	s := &Session{ID: "s"}
	if _, err := e.Run(context.Background(), s, []llm.Part{{Type: llm.PartText, Text: "go"}}, func(Event) {}); err != nil {
		t.Fatal(err)
	}
	if len(s.Todos) != 0 || !strings.Contains(store.msgs[2].Parts[0].ToolResult.Content, "no plans today") {
		t.Errorf("todos %v, result %q", s.Todos, store.msgs[2].Parts[0].ToolResult.Content)
	}
	if h.calls[0] != "before todo_write"+todo {
		t.Errorf("calls %v", h.calls)
	}
	e, _, _, _ = newEngine(steps(call("1", "todo_write", todo), say("ok")), nil)
	h = &fakeHooks{before: HookAnswer{Args: json.RawMessage(`{"todos":[{"content":"b","status":"pending"}]}`)}}
	e.Hooks = h
	s = &Session{ID: "s"}
	if _, err := e.Run(context.Background(), s, []llm.Part{{Type: llm.PartText, Text: "go"}}, func(Event) {}); err != nil {
		t.Fatal(err)
	}
	if len(s.Todos) != 1 || s.Todos[0].Content != "b" || h.calls[1] != "after todo_write ok=true" {
		t.Errorf("todos %v, calls %v", s.Todos, h.calls)
	}
}
