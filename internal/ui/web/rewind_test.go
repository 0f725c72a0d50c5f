package web

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// writeScript is a model that writes notes.txt for the first prompt and
// changes it and adds new.txt for the second.
func writeScript(t *testing.T) *llmtest.Script {
	return llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"notes.txt","content":"one\n"}`}}},
		llmtest.Turn{Text: "Wrote notes.txt."},
		llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"notes.txt","content":"two\n"}`},
			{Name: "write_file", Args: `{"path":"new.txt","content":"new\n"}`}}},
		llmtest.Turn{Text: "Changed notes.txt and added new.txt."})
}

// chatOK sends a chat message and fails the test unless it ran.
func (e *env) chatOK(message string) {
	e.t.Helper()
	if status, _ := e.chat(map[string]any{"message": message}, nil); status != http.StatusOK {
		e.t.Fatalf("chat %q: %d", message, status)
	}
}

func (e *env) checkpoints(id string) CheckpointsResponse {
	e.t.Helper()
	var cps CheckpointsResponse
	if status := e.call(http.MethodGet, "/api/sessions/"+id+"/checkpoints", nil, &cps); status != http.StatusOK {
		e.t.Fatalf("checkpoints: %d", status)
	}
	return cps
}

func TestRewindAPIRestoresFilesAndConversation(t *testing.T) {
	e := newEnv(t, writeScript(t), `permission_mode = "auto-edit"`)
	e.chatOK("first change")
	e.chatOK("second change")
	var hist SessionView
	e.call(http.MethodGet, "/api/history", nil, &hist)
	cps := e.checkpoints(hist.ID)
	if cps.SessionID != hist.ID || len(cps.Checkpoints) < 2 {
		t.Fatalf("checkpoints = %+v, want at least one per prompt", cps)
	}
	var second string
	for _, cp := range cps.Checkpoints {
		if cp.Prompt == "second change" && second == "" {
			second = cp.ID
			if hist.Messages[cp.Messages].Text() != "second change" || cp.AtMessage != cp.Messages {
				t.Errorf("checkpoint messages %d, at_message %d: not the prompt's index", cp.Messages, cp.AtMessage)
			}
		}
	}
	if second == "" {
		t.Fatalf("no checkpoint before the second prompt: %+v", cps.Checkpoints)
	}

	var res RewindResponse
	if status := e.call(http.MethodPost, "/api/sessions/"+hist.ID+"/rewind", map[string]any{"checkpoint": second, "scope": "both"}, &res); status != http.StatusOK {
		t.Fatalf("rewind: %d %+v", status, res)
	}
	if res.Scope != "both" || res.Prompt != "second change" || res.Undo == "" ||
		strings.Join(res.Restored, ",") != "notes.txt" || strings.Join(res.Deleted, ",") != "new.txt" {
		t.Errorf("rewind = %+v", res)
	}
	if got := e.read("notes.txt"); got != "one\n" {
		t.Errorf("notes.txt = %q after the rewind", got)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "new.txt")); !os.IsNotExist(err) {
		t.Errorf("new.txt is still there: %v", err)
	}
	var after SessionView
	e.call(http.MethodGet, "/api/sessions/"+hist.ID, nil, &after)
	if len(after.Messages) != res.Messages || len(after.Messages) >= len(hist.Messages) {
		t.Errorf("conversation after the rewind: %d messages (result says %d, before %d)", len(after.Messages), res.Messages, len(hist.Messages))
	}

	// The rewind's own checkpoint is before no prompt of the conversation.
	for _, cp := range e.checkpoints(hist.ID).Checkpoints {
		if cp.ID == res.Undo && cp.AtMessage != -1 {
			t.Errorf("the rewind's checkpoint is at message %d, want -1", cp.AtMessage)
		}
	}

	// The rewind itself can be rewound (code only).
	if status := e.call(http.MethodPost, "/api/sessions/"+hist.ID+"/rewind", map[string]any{"checkpoint": res.Undo, "scope": "code"}, &res); status != http.StatusOK {
		t.Fatalf("undo the rewind: %d", status)
	}
	if got := e.read("notes.txt"); got != "two\n" {
		t.Errorf("notes.txt = %q after undoing the rewind", got)
	}
}

func TestRewindAPIErrors(t *testing.T) {
	e := newEnv(t, writeScript(t), `permission_mode = "auto-edit"`)
	e.chatOK("first change")
	var hist SessionView
	e.call(http.MethodGet, "/api/history", nil, &hist)
	path := "/api/sessions/" + hist.ID + "/rewind"
	// "u" is no prefix of a checkpoint id (Crockford base32 has no u).
	cases := []struct {
		path string
		body any
		want int
		msg  string
	}{
		{path, map[string]any{"checkpoint": "u", "scope": "sideways"}, http.StatusBadRequest, `scope must be "code", "conversation" or "both"`},
		{path, map[string]any{"scope": "code"}, http.StatusBadRequest, "checkpoint is empty"},
		{path, map[string]any{"checkpoint": 3}, http.StatusBadRequest, "bad JSON body"},
		{path, map[string]any{"checkpoint": "u", "extra": 1}, http.StatusNotFound, "unknown checkpoint"}, // unknown fields are ignored
		{path, map[string]any{"checkpoint": "nosuchcheckpoint"}, http.StatusNotFound, "unknown checkpoint"},
		{"/api/sessions/nosuchsession/rewind", map[string]any{"checkpoint": "u"}, http.StatusNotFound, ""},
	}
	for _, c := range cases {
		var ae apiError
		if status := e.call(http.MethodPost, c.path, c.body, &ae); status != c.want || !strings.Contains(ae.Error, c.msg) || ae.Error == "" {
			t.Errorf("POST %s %v: %d %q, want %d with %q", c.path, c.body, status, ae.Error, c.want, c.msg)
		}
	}
	var ae apiError
	if status := e.call(http.MethodGet, "/api/sessions/nosuchsession/checkpoints", nil, &ae); status != http.StatusNotFound || ae.Error == "" {
		t.Errorf("checkpoints of an unknown session: %d %q", status, ae.Error)
	}
	if got := e.read("notes.txt"); got != "one\n" {
		t.Errorf("a refused rewind changed notes.txt: %q", got)
	}
}

// The rewind endpoints are behind the token and the Origin check like
// every other: a page on another site cannot rewind the workspace.
func TestRewindAPIGuarded(t *testing.T) {
	e := newEnv(t, writeScript(t), `permission_mode = "auto-edit"`)
	e.chatOK("first change")
	var hist SessionView
	e.call(http.MethodGet, "/api/history", nil, &hist)
	cps := e.checkpoints(hist.ID)
	if len(cps.Checkpoints) == 0 {
		t.Fatal("no checkpoint")
	}
	body := map[string]any{"checkpoint": cps.Checkpoints[0].ID}
	noToken := e.req(http.MethodPost, "/api/sessions/"+hist.ID+"/rewind", body)
	noToken.Header.Del("Authorization")
	if status, _, _ := e.do(noToken); status != http.StatusUnauthorized {
		t.Errorf("rewind without the token: %d, want 401", status)
	}
	list := e.req(http.MethodGet, "/api/sessions/"+hist.ID+"/checkpoints", nil)
	list.Header.Del("Authorization")
	if status, _, _ := e.do(list); status != http.StatusUnauthorized {
		t.Errorf("checkpoints without the token: %d, want 401", status)
	}
	cross := e.req(http.MethodPost, "/api/sessions/"+hist.ID+"/rewind", body)
	cross.Header.Set("Origin", "https://evil.example")
	if status, _, _ := e.do(cross); status != http.StatusForbidden {
		t.Errorf("rewind from another origin: %d, want 403", status)
	}
	if got := e.read("notes.txt"); got != "one\n" {
		t.Errorf("a refused rewind changed notes.txt: %q", got)
	}
}

// TestBrowserRewind: a user message whose exchange changed files gets a
// Rewind button (one that only talked does not), both right after its
// run and when the chat is loaded again; the button asks what to
// restore, and "code and conversation" puts the file back, cuts the chat
// before the message and offers its prompt again in the input.
func TestBrowserRewind(t *testing.T) {
	ctx := browser(t)
	model := llmtest.NewScript(t,
		llmtest.Turn{Text: "Hello there."},
		llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"notes.txt","content":"one\n"}`}}},
		llmtest.Turn{Text: "Wrote notes.txt."})
	e := newEnv(t, model, `permission_mode = "auto-edit"`)
	do(t, ctx, "open the page", chromedp.Navigate(e.ts.URL+"/?token="+testToken))
	waitJS(t, ctx, "the page to load", `document.body.dataset.ready === '1'`)
	send := func(text, answer string) {
		do(t, ctx, "send "+text, chromedp.SetValue(chromedp.CSS("#chat-input"), text), chromedp.Click(chromedp.CSS("#send")))
		waitJS(t, ctx, "the answer "+answer, `document.querySelector('#messages').textContent.includes(`+strconv.Quote(answer)+`) && !document.body.classList.contains('running')`)
	}
	send("say hello", "Hello there.")
	send("write notes", "Wrote notes.txt.")
	const buttons = `[...document.querySelectorAll('#messages .msg.user')].map((m) => m.querySelector('.rewind-open') ? 'R' : '-').join('')`
	waitJS(t, ctx, "the Rewind button of the writing message", buttons+` === '-R'`)
	do(t, ctx, "load the page again", chromedp.Reload())
	waitJS(t, ctx, "the page to load", `document.body.dataset.ready === '1'`)
	waitJS(t, ctx, "the Rewind button from the history", buttons+` === '-R'`)
	screenshot(t, ctx, "rewind-button")

	do(t, ctx, "click Rewind", chromedp.Click(chromedp.CSS(".msg.user .rewind-open")))
	waitJS(t, ctx, "the scope question", `[...document.querySelectorAll('.rewind-ask button')].map((b) => b.dataset.scope || 'cancel').join(',') === 'both,code,conversation,cancel'`)
	screenshot(t, ctx, "rewind-ask")
	do(t, ctx, "rewind code and conversation", chromedp.Click(chromedp.CSS(`.rewind-ask button[data-scope="both"]`)))
	waitJS(t, ctx, "the rewound chat", `document.querySelector('.msg.note.rewound')?.textContent.includes('rewound to before “write notes”: deleted 1 file, conversation cut to 2 messages') &&
		document.querySelectorAll('#messages .msg.user').length === 1 && document.querySelector('#chat-input').value === 'write notes'`)
	if _, err := os.Stat(filepath.Join(e.ws, "notes.txt")); !os.IsNotExist(err) {
		t.Errorf("notes.txt was created after the checkpoint and is still there: %v", err)
	}
	if got, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('#messages').textContent`)); strings.Contains(got, "Wrote notes.txt.") {
		t.Errorf("the rewound exchange is still shown: %q", got)
	}
	screenshot(t, ctx, "rewound")
	do(t, ctx, "undo the file changes", chromedp.Click(chromedp.CSS(".msg.note.rewound .rewind-undo")))
	waitJS(t, ctx, "the undone rewind", `document.querySelector('.msg.note.rewound')?.textContent.includes('restored 1 file ──')`)
	if got := e.read("notes.txt"); got != "one\n" {
		t.Errorf("notes.txt = %q after undoing the rewind's file changes", got)
	}
	if got, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('#messages .msg.user').length`)); got != 1 {
		t.Errorf("%d user messages after undoing the file changes, want 1 (the conversation stays cut)", got)
	}
	checkNoPageErrors(t, ctx)
}

// A rewind waits for no run: while the session runs it is refused (409),
// and a session of another workspace is refused (403), listing included.
func TestRewindAPIRefusesRunningAndForeignSessions(t *testing.T) {
	model := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"notes.txt","content":"one\n"}`}}},
		llmtest.Turn{Text: "Wrote notes.txt."},
		llmtest.Turn{Text: "working...", Hang: true})
	e := newEnv(t, model, `permission_mode = "auto-edit"`)
	e.chatOK("first change")
	var hist SessionView
	e.call(http.MethodGet, "/api/history", nil, &hist)
	cp := e.checkpoints(hist.ID).Checkpoints[0].ID

	done := make(chan struct{})
	go func() {
		defer close(done)
		e.chat(map[string]any{"message": "long"}, nil)
	}()
	select {
	case <-model.Started:
	case <-time.After(10 * time.Second):
		t.Fatal("the model never started")
	}
	var ae apiError
	if status := e.call(http.MethodPost, "/api/sessions/"+hist.ID+"/rewind", map[string]any{"checkpoint": cp}, &ae); status != http.StatusConflict ||
		!strings.Contains(ae.Error, "already has a run in progress") {
		t.Errorf("rewind during a run: %d %q, want 409", status, ae.Error)
	}
	e.call(http.MethodPost, "/api/chat/stop", map[string]any{"session_id": hist.ID}, nil)
	<-done
	if got := e.read("notes.txt"); got != "one\n" {
		t.Errorf("a refused rewind changed notes.txt: %q", got)
	}

	other, err := e.srv.svc.Store().Create(context.Background(), e.home, "fake", "m1")
	if err != nil {
		t.Fatal(err)
	}
	if status := e.call(http.MethodPost, "/api/sessions/"+other.ID+"/rewind", map[string]any{"checkpoint": cp}, &ae); status != http.StatusForbidden ||
		!strings.Contains(ae.Error, "start aidex web there") {
		t.Errorf("rewind of another workspace's session: %d %q, want 403", status, ae.Error)
	}
	if status := e.call(http.MethodGet, "/api/sessions/"+other.ID+"/checkpoints", nil, &ae); status != http.StatusForbidden {
		t.Errorf("checkpoints of another workspace's session: %d, want 403", status)
	}
}
