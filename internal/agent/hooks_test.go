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
	// stopFn, when set, answers the Stop point for round n (from 1).
	stopFn func(n int, active bool) HookAnswer
	stops  int
}

func (f *fakeHooks) rec(s string) {
	f.mu.Lock()
	f.calls = append(f.calls, s)
	f.mu.Unlock()
}
func (f *fakeHooks) BeforeTool(_ context.Context, _ *Conversation, c *Call) HookAnswer {
	f.rec("before " + c.Name + string(c.Args))
	return f.before
}
func (f *fakeHooks) Permission(_ context.Context, _ *Conversation, c *Call) HookAnswer {
	f.rec("permission " + c.Name)
	return f.permission
}
func (f *fakeHooks) AfterTool(_ context.Context, _ *Conversation, c *Call, res ToolResultInfo) HookAnswer {
	f.rec(fmt.Sprintf("after %s ok=%v", c.Name, res.OK))
	return f.after
}
func (f *fakeHooks) Stop(_ context.Context, _ *Conversation, active bool) HookAnswer {
	f.rec(fmt.Sprintf("stop active=%v", active))
	if f.stopFn != nil {
		f.mu.Lock()
		f.stops++
		n := f.stops
		f.mu.Unlock()
		return f.stopFn(n, active)
	}
	return f.stop
}
func (f *fakeHooks) Compact(_ context.Context, _ *Conversation, trigger, focus string) HookAnswer {
	f.rec("compact " + trigger + " " + focus)
	return HookAnswer{Messages: []string{"compacting"}}
}
func (f *fakeHooks) Notify(_ context.Context, _ *Conversation, kind, message string) {
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
	done, err := e.Run(context.Background(), &Conversation{ID: "s"}, []llm.Part{{Type: llm.PartText, Text: "go"}}, rec.emit)
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

func TestHooksStopContinuesAndPostToolFeedback(t *testing.T) {
	p := steps(call("1", "read", `{"path":"a"}`), say("first"), say("second"), say("third"))
	e, _, store, _ := newEngine(p, nil)
	h := &fakeHooks{stopFn: func(n int, _ bool) HookAnswer {
		if n == 1 {
			return HookAnswer{Block: true, Reason: "tests are failing"}
		}
		return HookAnswer{}
	}, after: HookAnswer{Block: true, Reason: "lint warning", Context: "see docs"}}
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

// A Stop hook keeps the run going round after round, as in Claude Code
// (stop_hook_active true from the second round on); each round counts
// toward the turn limit, so a hook that never lets go ends there.
func TestHooksStopRoundAfterRound(t *testing.T) {
	for _, tc := range []struct {
		name     string
		blocks   int // rounds the hook blocks (-1: every round)
		maxTurns int
		result   string
		stop     StopReason
		requests int
	}{
		{"blocks three rounds, then lets go", 3, 10, "r4", StopDone, 4},
		{"blocks once", 1, 10, "r2", StopDone, 2},
		{"never lets go: the turn limit ends it", -1, 3, "r3", StopMaxTurns, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := steps(say("r1"), say("r2"), say("r3"), say("r4"), say("r5"))
			e, _, _, _ := newEngine(p, nil)
			e.Config.MaxTurns = tc.maxTurns
			var actives []bool
			e.Hooks = &fakeHooks{stopFn: func(n int, active bool) HookAnswer {
				actives = append(actives, active)
				if tc.blocks < 0 || n <= tc.blocks {
					return HookAnswer{Block: true, Reason: fmt.Sprintf("round %d: keep going", n)}
				}
				return HookAnswer{}
			}}
			done, _ := runWith(t, e)
			if done.Result != tc.result || done.StopReason != tc.stop || len(p.reqs) != tc.requests {
				t.Fatalf("result %q stop %s after %d requests, want %q %s %d", done.Result, done.StopReason, len(p.reqs), tc.result, tc.stop, tc.requests)
			}
			for i, a := range actives {
				if a != (i > 0) {
					t.Errorf("round %d: stop_hook_active %v", i+1, a)
				}
			}
			if last := p.reqs[len(p.reqs)-1].Messages; len(p.reqs) > 1 && !strings.Contains(last[len(last)-1].Text(), fmt.Sprintf("round %d: keep going", len(p.reqs)-1)) {
				t.Errorf("the last continuation does not carry its round's reason: %q", last[len(last)-1].Text())
			}
		})
	}
}

// A call a hook refused is a hook's denial: listed with the hook as its
// source, not counted among the policy's denials (a headless run exits 0).
func TestHooksDenialIsTheHooks(t *testing.T) {
	for _, tc := range []struct {
		name string
		h    *fakeHooks
		tool string
		rule string
	}{
		{"PreToolUse block", &fakeHooks{before: HookAnswer{Block: true, Reason: "not that file", Rule: "PreToolUse hook \"x\"", Source: "/s.json"}}, "read", "PreToolUse hook \"x\""},
		{"PreToolUse deny", &fakeHooks{before: HookAnswer{Decision: Deny, Reason: "no", Rule: "PreToolUse hook \"x\"", Source: "/s.json"}}, "read", "PreToolUse hook \"x\""},
		{"PermissionRequest deny", &fakeHooks{permission: HookAnswer{Decision: Deny, Reason: "no", Rule: "PermissionRequest hook \"y\"", Source: "/s.json"}}, "write", "PermissionRequest hook \"y\""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, tools, _, _ := newEngine(steps(call("1", tc.tool, `{"path":"a"}`), say("ok")), nil)
			e.Hooks = tc.h
			done, rec := runWith(t, e)
			if len(tools.ran) != 0 || done.Denials != 0 || done.HookDenials != 1 {
				t.Fatalf("ran %v, denials %d, hook denials %d", tools.ran, done.Denials, done.HookDenials)
			}
			var d *DenialInfo
			for _, ev := range rec.events {
				if ev.Type == EventToolResult && ev.ToolResult.Denial != nil {
					d = ev.ToolResult.Denial
				}
			}
			if d == nil || d.Tool != tc.tool || d.Decision != Deny || d.Rule != tc.rule || d.Source != "/s.json" {
				t.Errorf("denial = %+v", d)
			}
		})
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
	if len(tools.ran) != 0 || done.HookDenials != 1 || !strings.Contains(store.msgs[2].Parts[0].ToolResult.Content, "not that file") {
		t.Errorf("ran %v, hook denials %d", tools.ran, done.HookDenials)
	}
}

func TestHooksPreCompactManual(t *testing.T) {
	e, _, _, _ := newEngine(steps(say("SUMMARY")), nil)
	h := &fakeHooks{}
	e.Hooks = h
	e.Config.Model.ContextWindow = 100
	s := &Conversation{ID: "s", Messages: []llm.Message{llm.UserText("a"), llm.AssistantText("b"), llm.UserText("c"),
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
	s := &Conversation{ID: "s"}
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
	s = &Conversation{ID: "s"}
	if _, err := e.Run(context.Background(), s, []llm.Part{{Type: llm.PartText, Text: "go"}}, func(Event) {}); err != nil {
		t.Fatal(err)
	}
	if len(s.Todos) != 1 || s.Todos[0].Content != "b" || h.calls[1] != "after todo_write ok=true" {
		t.Errorf("todos %v, calls %v", s.Todos, h.calls)
	}
}
