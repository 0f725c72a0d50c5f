package web

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// chat posts a chat message and returns every SSE event of the answer.
func (e *env) chat(body any, each func(sseEvent)) (int, []sseEvent) {
	e.t.Helper()
	resp, err := e.client.Do(e.req(http.MethodPost, "/api/chat", body))
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		var ae apiError
		_ = json.NewDecoder(resp.Body).Decode(&ae)
		e.t.Logf("chat: %d %s", resp.StatusCode, ae.Error)
		return resp.StatusCode, nil
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		e.t.Fatalf("chat Content-Type %q", ct)
	}
	return resp.StatusCode, readSSE(e.t, resp.Body, each)
}

func TestChatStreamsEngineEvents(t *testing.T) {
	model := llmtest.NewScript(t, llmtest.Turn{Text: "Hello **there**", Reasoning: "thinking"})
	e := newEnv(t, model, "")
	status, evs := e.chat(map[string]any{"message": "hi"}, nil)
	if status != http.StatusOK {
		t.Fatalf("chat: %d", status)
	}
	got := names(evs)
	if got[0] != "session" || got[len(got)-1] != "done" || !slices.Contains(got, "text") || !slices.Contains(got, "usage") {
		t.Fatalf("events %v: want session first, text, usage, done last", got)
	}
	var text strings.Builder
	for _, ev := range evs {
		if ev.Data["type"] != ev.Name {
			t.Errorf("event %s carries type %v", ev.Name, ev.Data["type"])
		}
		if ev.Name == "text" {
			text.WriteString(ev.Data["text"].(string))
		}
	}
	if text.String() != "Hello **there**" {
		t.Errorf("streamed text %q", text.String())
	}
	done := evs[len(evs)-1].Data["done"].(map[string]any)
	if done["stop_reason"] != "done" || done["result"] != "Hello **there**" {
		t.Errorf("done = %v", done)
	}
	// The session was created, saved, and is the page's current one.
	var hist SessionView
	if e.call(http.MethodGet, "/api/history", nil, &hist) != http.StatusOK || len(hist.Messages) != 2 || hist.ID == "" {
		t.Fatalf("history = %+v", hist)
	}
	var st Status
	e.call(http.MethodGet, "/api/status", nil, &st)
	if st.SessionID != hist.ID || st.Running {
		t.Errorf("status = %+v", st)
	}
	// The model got the message.
	if reqs := model.Requests(); len(reqs) != 1 || !strings.Contains(string(reqs[0]), `"hi"`) {
		t.Errorf("model requests: %d", len(reqs))
	}
}

func TestChatEmptyMessage(t *testing.T) {
	e := newEnv(t, llmtest.NewScript(t), "")
	if status, _ := e.chat(map[string]any{"message": "  "}, nil); status != http.StatusBadRequest {
		t.Errorf("empty message: %d, want 400", status)
	}
	if status, _ := e.chat(map[string]any{"message": "x", "session_id": "nope"}, nil); status != http.StatusNotFound {
		t.Errorf("unknown session: %d, want 404", status)
	}
}

func TestChatAttachments(t *testing.T) {
	model := llmtest.NewScript(t)
	e := newEnv(t, model, "")
	status, _ := e.chat(map[string]any{"message": "see attached", "attachments": []map[string]any{{"name": "notes.md", "text": "ATTACHED-CONTENT"}}}, nil)
	if status != http.StatusOK {
		t.Fatalf("chat: %d", status)
	}
	if reqs := model.Requests(); len(reqs) != 1 || !strings.Contains(string(reqs[0]), "ATTACHED-CONTENT") {
		t.Error("the attachment did not reach the model")
	}
	big := strings.Repeat("x", maxAttachmentBytes+1)
	if status, _ := e.chat(map[string]any{"message": "x", "attachments": []map[string]any{{"name": "big.txt", "text": big}}}, nil); status != http.StatusBadRequest {
		t.Errorf("oversized attachment: %d, want 400", status)
	}
	if status, _ := e.chat(map[string]any{"message": "x", "attachments": []map[string]any{{"name": "b.bin", "data": "//79/A=="}}}, nil); status != http.StatusBadRequest {
		t.Errorf("binary attachment: %d, want 400", status)
	}
}

func TestChatApprovalAllowsWrite(t *testing.T) {
	model := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"out.txt","content":"from the model\n"}`}}},
		llmtest.Turn{Text: "wrote it"})
	e := newEnv(t, model, "")
	var approvalErr error
	var mu sync.Mutex
	status, evs := e.chat(map[string]any{"message": "write a file"}, func(ev sseEvent) {
		if ev.Name != "approval" {
			return
		}
		ap := ev.Data["approval"].(map[string]any)
		if ap["decision"] != nil {
			return
		}
		if ap["diff"] == nil || !strings.Contains(ap["diff"].(string), "+from the model") {
			t.Errorf("approval without the diff: %v", ap)
		}
		// Answer from another connection while the stream waits.
		go func() {
			var out map[string]any
			st := e.call(http.MethodPost, "/api/approvals/"+ap["id"].(string), map[string]any{"decision": "once"}, &out)
			mu.Lock()
			defer mu.Unlock()
			if st != http.StatusOK {
				approvalErr = &json.UnsupportedValueError{Str: "approval answered " + http.StatusText(st)}
			}
		}()
	})
	if status != http.StatusOK {
		t.Fatalf("chat: %d", status)
	}
	mu.Lock()
	if approvalErr != nil {
		t.Fatal(approvalErr)
	}
	mu.Unlock()
	got := names(evs)
	for _, want := range []string{"tool_call", "approval", "tool_result", "done"} {
		if !slices.Contains(got, want) {
			t.Fatalf("events %v: no %s", got, want)
		}
	}
	if e.read("out.txt") != "from the model\n" {
		t.Errorf("file = %q", e.read("out.txt"))
	}
	// The decision came back as an approval event.
	decided := false
	for _, ev := range evs {
		if ev.Name == "approval" && ev.Data["approval"].(map[string]any)["decision"] == "once" {
			decided = true
		}
	}
	if !decided {
		t.Error("no approval event with the decision")
	}
	// A second answer finds nothing waiting.
	if st := e.call(http.MethodPost, "/api/approvals/ap_call_1_0", map[string]any{"decision": "once"}, nil); st != http.StatusNotFound {
		t.Errorf("second answer: %d, want 404", st)
	}
}

func TestChatApprovalDeny(t *testing.T) {
	model := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"no.txt","content":"x"}`}}},
		llmtest.Turn{Text: "ok, not writing"})
	e := newEnv(t, model, "")
	_, evs := e.chat(map[string]any{"message": "write"}, func(ev sseEvent) {
		if ev.Name == "approval" && ev.Data["approval"].(map[string]any)["decision"] == nil {
			id := ev.Data["approval"].(map[string]any)["id"].(string)
			go func() {
				if st := e.call(http.MethodPost, "/api/approvals/"+id, map[string]any{"decision": "maybe"}, nil); st != http.StatusBadRequest {
					t.Errorf("bad decision: %d, want 400", st)
				}
				e.call(http.MethodPost, "/api/approvals/"+id, map[string]any{"decision": "deny", "reason": "not now"}, nil)
			}()
		}
	})
	for _, ev := range evs {
		if ev.Name == "tool_result" {
			res := ev.Data["tool_result"].(map[string]any)
			if res["ok"] == true || !strings.Contains(res["error"].(string), "not now") {
				t.Errorf("denied call result: %v", res)
			}
		}
	}
	if _, err := readFileErr(e, "no.txt"); err == nil {
		t.Error("a denied write happened")
	}
}

func TestChatConflictAndStop(t *testing.T) {
	model := llmtest.NewScript(t, llmtest.Turn{Text: "working...", Hang: true})
	e := newEnv(t, model, "")
	done := make(chan []sseEvent, 1)
	text := make(chan struct{})
	var once sync.Once
	go func() {
		_, evs := e.chat(map[string]any{"message": "long"}, func(ev sseEvent) {
			if ev.Name == "text" {
				once.Do(func() { close(text) })
			}
		})
		done <- evs
	}()
	// Stop only once the partial answer reached the stream (the model's
	// request starting is not enough: its text may not have arrived yet).
	select {
	case <-text:
	case <-time.After(10 * time.Second):
		t.Fatal("the model's text never arrived")
	}
	var st Status
	e.call(http.MethodGet, "/api/status", nil, &st)
	if !st.Running {
		t.Error("status does not show the run")
	}
	// A second chat on the same session: 409.
	if status, _ := e.chat(map[string]any{"message": "again", "session_id": st.SessionID}, nil); status != http.StatusConflict {
		t.Errorf("second run: %d, want 409", status)
	}
	var out map[string]any
	if e.call(http.MethodPost, "/api/chat/stop", map[string]any{"session_id": st.SessionID}, &out); out["stopped"] != true {
		t.Errorf("stop = %v", out)
	}
	select {
	case evs := <-done:
		if len(evs) == 0 || evs[len(evs)-1].Name != "done" {
			t.Fatalf("stopped stream: %v", names(evs))
		}
		if r := evs[len(evs)-1].Data["done"].(map[string]any)["stop_reason"]; r != "cancelled" {
			t.Errorf("stop reason %v", r)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the stream did not end after stop")
	}
	// The partial answer was kept.
	var hist SessionView
	e.call(http.MethodGet, "/api/history", nil, &hist)
	if b, _ := json.Marshal(hist.Messages); !strings.Contains(string(b), "working...") {
		t.Errorf("partial answer lost: %s", b)
	}
}

// TestClosedTabCancelsRun closes the chat connection mid-answer: the run
// must end (the session is free again) and keep the partial answer.
func TestClosedTabCancelsRun(t *testing.T) {
	model := llmtest.NewScript(t, llmtest.Turn{Text: "partial", Hang: true})
	e := newEnv(t, model, "")
	ctx, cancel := context.WithCancel(context.Background())
	req := e.req(http.MethodPost, "/api/chat", map[string]any{"message": "go"}).WithContext(ctx)
	resp, err := e.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	// Close the tab once the first text arrived.
	readSSE(t, resp.Body, func(ev sseEvent) {
		if ev.Name == "text" {
			cancel()
		}
	})
	resp.Body.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var st Status
		e.call(http.MethodGet, "/api/status", nil, &st)
		if !st.Running {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the run is still going after the tab closed")
		}
		time.Sleep(20 * time.Millisecond)
	}
	var hist SessionView
	e.call(http.MethodGet, "/api/history", nil, &hist)
	if b, _ := json.Marshal(hist.Messages); !strings.Contains(string(b), "partial") {
		t.Errorf("partial answer lost: %s", b)
	}
}

// TestClosedTabEndsApprovalWait closes the only page while an approval
// waits: after approval_timeout the approval is denied and the run ends.
func TestClosedTabEndsApprovalWait(t *testing.T) {
	model := llmtest.NewScript(t, llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"w.txt","content":"x"}`}}})
	e := newEnv(t, model, "approval_timeout = 1\n")
	ctx, cancel := context.WithCancel(context.Background())
	resp, err := e.client.Do(e.req(http.MethodPost, "/api/chat", map[string]any{"message": "go"}).WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	readSSE(t, resp.Body, func(ev sseEvent) {
		if ev.Name == "approval" {
			var list struct {
				Approvals []pendingView `json:"approvals"`
			}
			e.call(http.MethodGet, "/api/approvals", nil, &list)
			if len(list.Approvals) != 1 || list.Approvals[0].Approval.Tool != "write_file" {
				t.Errorf("pending approvals = %+v", list.Approvals)
			}
			cancel()
		}
	})
	resp.Body.Close()
	deadline := time.Now().Add(10 * time.Second)
	for len(e.srv.host.Approvals()) > 0 || e.srvRunning() {
		if time.Now().After(deadline) {
			t.Fatal("the approval is still waiting after the tab closed")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := readFileErr(e, "w.txt"); err == nil {
		t.Error("the write happened without approval")
	}
}

func (e *env) srvRunning() bool {
	return e.srv.host.Runs() > 0
}

func TestSeveralSessionsAtOnce(t *testing.T) {
	model := llmtest.NewScript(t)
	e := newEnv(t, model, "")
	var ids []string
	for range 3 {
		var out map[string]any
		e.call(http.MethodPost, "/api/history/clear", nil, &out)
		ids = append(ids, out["session_id"].(string))
	}
	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			status, evs := e.chat(map[string]any{"message": "hi", "session_id": id}, nil)
			if status != http.StatusOK || len(evs) == 0 || evs[len(evs)-1].Name != "done" || evs[0].Data["session_id"] != id {
				t.Errorf("session %s: %d %v", id, status, names(evs))
			}
		}()
	}
	wg.Wait()
}
