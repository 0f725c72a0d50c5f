package web

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// TestBrowserAskUser: a scripted ask_user shows its form in the
// interactions panel (not in the chat log); the test picks an option and
// submits, and the run resumes with it: the next model request carries the
// pick as ask_user's result. A second question is cancelled: the model is
// told the user declined.
func TestBrowserAskUser(t *testing.T) {
	ctx := browser(t)
	model := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "ask_user", Args: `{"questions":[{"question":"Which database?","header":"DB","options":[{"label":"Postgres","description":"a server"},{"label":"SQLite","description":"embedded"}]},{"question":"Which extras?","multi_select":true,"options":[{"label":"auth"},{"label":"cache"},{"label":"queue"}]}]}`}}},
		llmtest.Turn{Text: "Set up with your picks."},
		llmtest.Turn{Calls: []llmtest.Call{{Name: "ask_user", Args: `{"questions":[{"question":"Delete the logs?","kind":"confirm"}]}`}}},
		llmtest.Turn{Text: "Left the logs alone."})
	e := newEnv(t, model, "")
	do(t, ctx, "open the page", chromedp.Navigate(e.ts.URL+"/?token="+testToken))
	waitJS(t, ctx, "the page to load", `document.body.dataset.ready === '1'`)
	do(t, ctx, "send a message", chromedp.SetValue(chromedp.CSS("#chat-input"), "set up storage"), chromedp.Click(chromedp.CSS("#send")))
	waitJS(t, ctx, "the question form", `!document.querySelector('#interactions').hidden && document.querySelector('#interactions .interaction') !== null`)
	if in := evalJS[bool](t, ctx, `document.querySelector('#messages').contains(document.querySelector('.interaction'))`); in {
		t.Error("the question form is inside the chat log")
	}
	if got := evalJS[string](t, ctx, `document.querySelector('#interactions').textContent`); !strings.Contains(got, "Which database?") || !strings.Contains(got, "embedded") {
		t.Errorf("the form shows %q", got)
	}
	screenshot(t, ctx, "ask-user")
	do(t, ctx, "submit without an answer", chromedp.Click(chromedp.CSS(`#interactions button[type="submit"]`)))
	waitJS(t, ctx, "the missing-answer note", `document.querySelector('.ia-error').textContent.includes('Which database?')`)
	do(t, ctx, "pick SQLite, auth and queue, and submit",
		chromedp.Click(chromedp.CSS(`#interactions input[value="SQLite"]`)),
		chromedp.Click(chromedp.CSS(`#interactions input[value="auth"]`)),
		chromedp.Click(chromedp.CSS(`#interactions input[value="queue"]`)),
		chromedp.Click(chromedp.CSS(`#interactions button[type="submit"]`)))
	waitJS(t, ctx, "the run to resume and end", `document.querySelector('#messages').textContent.includes('Set up with your picks.') && !document.body.classList.contains('running')`)
	if shown := evalJS[bool](t, ctx, `document.querySelector('#interactions').hidden`); !shown {
		t.Error("the interactions panel stays open after the answer")
	}
	reqs := model.Requests()
	if got := string(reqs[1]); !strings.Contains(got, `\"Which database?\": \"SQLite\"`) || !strings.Contains(got, `\"Which extras?\": \"auth\", \"queue\"`) {
		t.Errorf("the picks are not ask_user's result: %s", got)
	}
	do(t, ctx, "ask again", chromedp.SetValue(chromedp.CSS("#chat-input"), "tidy up"), chromedp.Click(chromedp.CSS("#send")))
	waitJS(t, ctx, "the confirm form", `document.querySelector('#interactions input[value="yes"]') !== null`)
	do(t, ctx, "cancel", chromedp.Click(chromedp.CSS(`#interactions button.danger`)))
	waitJS(t, ctx, "the run to end", `document.querySelector('#messages').textContent.includes('Left the logs alone.') && !document.body.classList.contains('running')`)
	if got := string(model.Requests()[3]); !strings.Contains(got, "The user declined to answer") {
		t.Errorf("Cancel did not decline: %s", got)
	}
	checkNoPageErrors(t, ctx)
}
