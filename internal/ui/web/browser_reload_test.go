package web

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// TestBrowserReloadKeepsApproval reloads the page while an approval card
// waits: the turn is not cancelled, the reloaded page shows the card
// again, and allowing it there finishes the turn (the write happens, the
// answer streams into the reloaded page).
func TestBrowserReloadKeepsApproval(t *testing.T) {
	ctx := browser(t)
	model := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"kept.txt","content":"kept\n"}`}}},
		llmtest.Turn{Text: "Wrote it after the reload."})
	e := newEnv(t, model, "")
	do(t, ctx, "open the page", chromedp.Navigate(e.ts.URL+"/?token="+testToken))
	waitJS(t, ctx, "the page to load", `document.body.dataset.ready === '1'`)
	do(t, ctx, "ask for a write", chromedp.SetValue(chromedp.CSS("#chat-input"), "write kept.txt"), chromedp.Click(chromedp.CSS("#send")))
	waitJS(t, ctx, "the approval", `document.querySelector('.approval button[data-decision="once"]') !== null`)
	do(t, ctx, "reload", chromedp.Reload())
	waitJS(t, ctx, "the reloaded page", `document.body.dataset.ready === '1'`)
	waitJS(t, ctx, "the approval again", `document.querySelector('.approval button[data-decision="once"]') !== null`)
	if n := evalJS[int](t, ctx, `document.querySelectorAll('.approval').length`); n != 1 {
		t.Errorf("the reloaded page shows %d approval cards, want 1", n)
	}
	var st Status
	e.call(http.MethodGet, "/api/status", nil, &st)
	if !st.Running {
		t.Error("the turn is not running after the reload")
	}
	do(t, ctx, "allow once", chromedp.Click(chromedp.CSS(`.approval button[data-decision="once"]`)))
	waitJS(t, ctx, "the answer", `document.querySelector('#messages').textContent.includes('Wrote it after the reload.') && !document.body.classList.contains('running')`)
	if got := e.read("kept.txt"); got != "kept\n" {
		t.Errorf("kept.txt = %q, want the approved write", got)
	}
	var hist SessionView
	e.call(http.MethodGet, "/api/history", nil, &hist)
	if b, _ := json.Marshal(hist.Messages); strings.Contains(string(b), "cancelled") {
		t.Errorf("the reload cancelled the turn: %s", b)
	}
	checkNoPageErrors(t, ctx)
}

// TestBrowserReloadKeepsQuestion reloads the page while ask_user's form
// waits: the reloaded page shows the form again, and the pick made there
// is the tool's result.
func TestBrowserReloadKeepsQuestion(t *testing.T) {
	ctx := browser(t)
	model := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "ask_user", Args: askDBArgs}}},
		llmtest.Turn{Text: "Using your pick."})
	e := newEnv(t, model, "")
	do(t, ctx, "open the page", chromedp.Navigate(e.ts.URL+"/?token="+testToken))
	waitJS(t, ctx, "the page to load", `document.body.dataset.ready === '1'`)
	do(t, ctx, "send a message", chromedp.SetValue(chromedp.CSS("#chat-input"), "set up storage"), chromedp.Click(chromedp.CSS("#send")))
	waitJS(t, ctx, "the question form", `document.querySelector('#interactions input[value="SQLite"]') !== null`)
	do(t, ctx, "reload", chromedp.Reload())
	waitJS(t, ctx, "the reloaded page", `document.body.dataset.ready === '1'`)
	waitJS(t, ctx, "the question again", `document.querySelector('#interactions input[value="SQLite"]') !== null`)
	do(t, ctx, "pick SQLite and submit",
		chromedp.Click(chromedp.CSS(`#interactions input[value="SQLite"]`)),
		chromedp.Click(chromedp.CSS(`#interactions button[type="submit"]`)))
	waitJS(t, ctx, "the answer", `document.querySelector('#messages').textContent.includes('Using your pick.') && !document.body.classList.contains('running')`)
	if got := lastRequest(model); !strings.Contains(got, `\"Which database?\": \"SQLite\"`) {
		t.Errorf("the pick is not ask_user's result: %s", got)
	}
	checkNoPageErrors(t, ctx)
}
