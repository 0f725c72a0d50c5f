package web

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// waitIdle waits until no run is in progress (10 s).
func waitIdle(t *testing.T, e *env) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for e.srvRunning() {
		if time.Now().After(deadline) {
			t.Fatal("the run is still going")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestApprovalTimeoutDeniesNotCancels closes the only page while an
// approval waits: after approval_timeout the call is denied and the turn
// goes on (the model hears the denial and answers), instead of the turn
// being cancelled.
func TestApprovalTimeoutDeniesNotCancels(t *testing.T) {
	model := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"w.txt","content":"x"}`}}},
		llmtest.Turn{Text: "Fine, I will not write it."})
	e := newEnv(t, model, "approval_timeout = 1\n")
	ctx, cancel := context.WithCancel(context.Background())
	resp, err := e.client.Do(e.req(http.MethodPost, "/api/chat", map[string]any{"message": "go"}).WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	readSSE(t, resp.Body, func(ev sseEvent) {
		if ev.Name == "approval" {
			cancel()
		}
	})
	resp.Body.Close()
	waitIdle(t, e)
	if last := lastRequest(model); !strings.Contains(last, "approval_timeout") {
		t.Errorf("the model was not told that the approval timed out: %s", last)
	}
	var hist SessionView
	e.call(http.MethodGet, "/api/history", nil, &hist)
	b, _ := json.Marshal(hist.Messages)
	if !strings.Contains(string(b), "Fine, I will not write it.") || strings.Contains(string(b), "cancelled") {
		t.Errorf("the turn did not go on after the denial: %s", b)
	}
	if _, err := readFileErr(e, "w.txt"); err == nil {
		t.Error("the write happened without approval")
	}
}

// TestFollowerAnswersAfterTabClosed: a second client follows the session,
// the tab that started the turn closes while an approval waits, and the
// follower's answer finishes the turn (the follower sees its end).
func TestFollowerAnswersAfterTabClosed(t *testing.T) {
	model := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"w.txt","content":"x"}`}}},
		llmtest.Turn{Text: "Written."})
	e := newEnv(t, model, "")
	var out map[string]any
	e.call(http.MethodPost, "/api/v1/sessions", nil, &out)
	id := out["session_id"].(string)
	fctx, fcancel := context.WithCancel(context.Background())
	defer fcancel()
	follow, err := e.client.Do(e.req(http.MethodGet, "/api/v1/sessions/"+id+"/events", nil).WithContext(fctx))
	if err != nil {
		t.Fatal(err)
	}
	defer follow.Body.Close()
	followed := make(chan []sseEvent, 1)
	go func() {
		followed <- readSSE(t, follow.Body, func(ev sseEvent) {
			if ev.Name == "done" {
				fcancel()
			}
		})
	}()
	ctx, cancel := context.WithCancel(context.Background())
	resp, err := e.client.Do(e.req(http.MethodPost, "/api/v1/sessions/"+id+"/messages", map[string]any{"message": "go"}).WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	var apID string
	readSSE(t, resp.Body, func(ev sseEvent) {
		if ev.Name == "approval" && apID == "" {
			apID = ev.Data["approval"].(map[string]any)["id"].(string)
			cancel()
		}
	})
	resp.Body.Close()
	time.Sleep(100 * time.Millisecond) // the server notices the closed tab
	if st := e.call(http.MethodPost, "/api/v1/approvals/"+apID, map[string]any{"decision": "once", "session_id": id}, nil); st != http.StatusOK {
		t.Fatalf("answer from the follower: %d", st)
	}
	var names []string
	select {
	case evs := <-followed:
		for _, ev := range evs {
			names = append(names, ev.Name)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the follower did not see the turn end")
	}
	if got := strings.Join(names, ","); !strings.Contains(got, "tool_result") || !strings.HasSuffix(got, "done") {
		t.Errorf("the follower saw %s, want the tool result and done", got)
	}
	if e.read("w.txt") != "x" {
		t.Error("the approved write did not happen")
	}
}

// TestFollowReplay reconnects a follower with ?after=SEQ (and with
// Last-Event-ID): it first gets the events after SEQ it missed, each
// with its id; a bad SEQ is a 400.
func TestFollowReplay(t *testing.T) {
	model := llmtest.NewScript(t, llmtest.Turn{Text: "hello there"})
	e := newEnv(t, model, "")
	var out map[string]any
	e.call(http.MethodPost, "/api/v1/sessions", nil, &out)
	id := out["session_id"].(string)
	if st, _ := e.chat(map[string]any{"message": "hi", "session_id": id}, nil); st != http.StatusOK {
		t.Fatalf("chat: %d", st)
	}
	replay := func(header bool) []sseEvent {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		path := "/api/v1/sessions/" + id + "/events?after=1"
		req := e.req(http.MethodGet, path, nil)
		if header {
			req = e.req(http.MethodGet, "/api/v1/sessions/"+id+"/events", nil)
			req.Header.Set("Last-Event-ID", "1")
		}
		resp, err := e.client.Do(req.WithContext(ctx))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		return readSSE(t, resp.Body, func(ev sseEvent) {
			if ev.Name == "done" {
				cancel()
			}
		})
	}
	for _, header := range []bool{false, true} {
		evs := replay(header)
		var names []string
		for _, ev := range evs {
			names = append(names, ev.Name)
		}
		got := strings.Join(names, ",")
		if !strings.HasPrefix(got, "subscribed,") || !strings.Contains(got, "text") || !strings.HasSuffix(got, "done") {
			t.Errorf("replay (Last-Event-ID %v): %s, want subscribed, the turn's events, done", header, got)
		}
	}
	if st := e.call(http.MethodGet, "/api/v1/sessions/"+id+"/events?after=x", nil, nil); st != http.StatusBadRequest {
		t.Errorf("after=x: %d, want 400", st)
	}
}
