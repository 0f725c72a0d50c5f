package web

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// postSSE posts body to path and reads the SSE response, calling each for
// every event; it returns the status and the events.
func (e *env) postSSE(path string, body any, each func(sseEvent)) (int, []sseEvent) {
	e.t.Helper()
	resp, err := e.client.Do(e.req(http.MethodPost, path, body))
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	return resp.StatusCode, readSSE(e.t, resp.Body, each)
}

// follow subscribes to a session's events (GET path) and returns, once
// the subscription stands, a channel that gets the events up to the
// first done.
func (e *env) follow(path string) <-chan []sseEvent {
	e.t.Helper()
	followed := make(chan []sseEvent, 1)
	subscribed := make(chan struct{})
	go func() {
		resp, err := e.client.Do(e.req(http.MethodGet, path, nil))
		if err != nil {
			e.t.Error(err)
			close(subscribed)
			followed <- nil
			return
		}
		defer resp.Body.Close()
		var got []sseEvent
		readSSE(e.t, resp.Body, func(ev sseEvent) {
			got = append(got, ev)
			switch ev.Name {
			case "subscribed":
				close(subscribed)
			case "done":
				followed <- got
				resp.Body.Close()
			}
		})
	}()
	<-subscribed
	return followed
}

// TestRemoteControlSession drives a session the way a script does, only
// through /api/v1: create it, follow its events from a second connection,
// prompt it, approve the edit it asks for, and see the follower get the
// same events; then cancel a turn that waits for the model.
func TestRemoteControlSession(t *testing.T) {
	hold := make(chan struct{})
	defer close(hold)
	model := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"out.txt","content":"remote\n"}`}}},
		llmtest.Turn{Text: "wrote it"},
		llmtest.Turn{Hold: hold, Text: "never"})
	e := newEnv(t, model, "")
	var created struct {
		SessionID string `json:"session_id"`
	}
	if st := e.call(http.MethodPost, "/api/v1/sessions", map[string]any{}, &created); st != http.StatusCreated || created.SessionID == "" {
		t.Fatalf("create: %d %+v", st, created)
	}
	base := "/api/v1/sessions/" + created.SessionID
	followed := e.follow(base + "/events")
	status, evs := e.postSSE(base+"/messages", map[string]any{"message": "write a file"}, func(ev sseEvent) {
		ap, ok := ev.Data["approval"].(map[string]any)
		if ev.Name != "approval" || !ok || ap["decision"] != nil {
			return
		}
		go func() {
			if st := e.call(http.MethodPost, "/api/v1/approvals/"+ap["id"].(string), map[string]any{"decision": "once", "session_id": created.SessionID}, nil); st != http.StatusOK {
				t.Errorf("approve: %d", st)
			}
		}()
	})
	if status != http.StatusOK || e.read("out.txt") != "remote\n" {
		t.Fatalf("prompt: %d, events %v", status, names(evs))
	}
	fol := names(<-followed)
	for _, want := range []string{"tool_call", "approval", "tool_result", "done"} {
		if !slices.Contains(fol, want) {
			t.Fatalf("the follower got %v: no %s", fol, want)
		}
	}
	_, evs = e.postSSE(base+"/messages", map[string]any{"message": "wait"}, func(ev sseEvent) {
		if ev.Name == "waiting" {
			go func() {
				var out map[string]any
				if st := e.call(http.MethodPost, base+"/cancel", map[string]any{}, &out); st != http.StatusOK || out["stopped"] != true {
					t.Errorf("cancel: %d %v", st, out)
				}
			}()
		}
	})
	last := evs[len(evs)-1]
	if last.Name != "done" || last.Data["done"].(map[string]any)["stop_reason"] != "cancelled" {
		t.Fatalf("cancelled turn ended with %v", last)
	}
}

// TestUnversionedAPIPathsAreDeprecatedAliases: /api/X answers as
// /api/v1/X, marked deprecated with a link to its successor.
func TestUnversionedAPIPathsAreDeprecatedAliases(t *testing.T) {
	e := newEnv(t, nil, "")
	st, _, h := e.do(e.req(http.MethodGet, "/api/status", nil))
	if st != http.StatusOK || h.Get("Deprecation") != "true" || !strings.Contains(h.Get("Link"), "</api/v1/status>") {
		t.Fatalf("GET /api/status: %d, Deprecation %q, Link %q", st, h.Get("Deprecation"), h.Get("Link"))
	}
	st, _, h = e.do(e.req(http.MethodGet, "/api/v1/status", nil))
	if st != http.StatusOK || h.Get("Deprecation") != "" {
		t.Fatalf("GET /api/v1/status: %d, Deprecation %q", st, h.Get("Deprecation"))
	}
	if st, _, _ := e.do(e.req(http.MethodPost, "/api/sessions", map[string]any{})); st != http.StatusNotFound && st != http.StatusMethodNotAllowed {
		t.Fatalf("POST /api/sessions (new in v1, no alias): %d", st)
	}
}

// TestRemoteControlRefusesOtherSessions: prompting or following a
// session of another workspace is refused (403), an unknown one is 404.
func TestRemoteControlRefusesOtherSessions(t *testing.T) {
	e := newEnv(t, nil, "")
	other, err := e.srv.svc.Store().Create(context.Background(), t.TempDir(), "fake", "m1")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		method, path string
		want         int
	}{
		{http.MethodPost, "/api/v1/sessions/" + other.ID + "/messages", http.StatusForbidden},
		{http.MethodGet, "/api/v1/sessions/" + other.ID + "/events", http.StatusForbidden},
		{http.MethodPost, "/api/v1/sessions/nosuchsession/messages", http.StatusNotFound},
		{http.MethodGet, "/api/v1/sessions/nosuchsession/events", http.StatusNotFound},
	} {
		var body any
		if c.method == http.MethodPost {
			body = map[string]any{"message": "hi"}
		}
		// The status only: an SSE stream that was wrongly opened is
		// not read to its (never coming) end.
		resp, err := e.client.Do(e.req(c.method, c.path, body))
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("%s %s: %d, want %d", c.method, c.path, resp.StatusCode, c.want)
		}
	}
}
