package web

import (
	"net/http"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// TestBrowserMultiModels ticks a second model Active in the Models panel
// and picks parallel mode; a chat message is answered by both models,
// each bubble headed by its model, with keep buttons; keeping the second
// answer marks it and leaves only it in the session.
func TestBrowserMultiModels(t *testing.T) {
	ctx := browser(t)
	model := llmtest.NewScript(t, llmtest.Turn{Text: "an answer"}, llmtest.Turn{Text: "an answer"})
	e := newEnv(t, model, "")
	do(t, ctx, "open the page", chromedp.Navigate(e.ts.URL+"/?token="+testToken))
	waitJS(t, ctx, "the page to load", `document.body.dataset.ready === '1'`)
	do(t, ctx, "open Models", chromedp.Click(chromedp.CSS(`.tabs button[data-panel="models"]`)))
	waitJS(t, ctx, "the model list", `document.querySelector('#model-list tr.model-row[data-id="m2"] input.active-toggle') !== null`)
	do(t, ctx, "tick m2 Active", chromedp.Click(chromedp.CSS(`#model-list tr.model-row[data-id="m2"] input.active-toggle`)))
	waitJS(t, ctx, "two active models", `document.querySelectorAll('#multi-bar .active-model').length === 2`)
	do(t, ctx, "pick parallel", chromedp.SetValue(chromedp.CSS("#multi-mode"), "parallel"))
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector('#multi-mode').dispatchEvent(new Event('change'))`)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the mode in the status pill", `document.querySelector('#status-model').textContent === 'parallel: m1, m2'`)
	do(t, ctx, "back to Chat", chromedp.Click(chromedp.CSS(`.tabs button[data-panel="chat"]`)))
	do(t, ctx, "send", chromedp.SetValue(chromedp.CSS("#chat-input"), "hi"), chromedp.Click(chromedp.CSS("#send")))
	waitJS(t, ctx, "the keep buttons", `document.querySelectorAll('#messages button.keep').length === 3`)
	headers, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('.msg.assistant .msg-model')].map((x) => x.textContent)`))
	if err != nil || len(headers) != 2 {
		t.Fatalf("answer headers %v (%v), want two", headers, err)
	}
	kept := headers[1]
	do(t, ctx, "keep the second", chromedp.Click(chromedp.CSS(`.msg.assistant[data-model="`+kept+`"] button.keep`)))
	waitJS(t, ctx, "the turn's end", `!document.body.classList.contains('running') && document.querySelector('.msg.assistant.kept') !== null`)
	screenshot(t, ctx, "multi-parallel-kept")
	var view struct {
		Messages []struct {
			Role  string `json:"role"`
			Model string `json:"model"`
		} `json:"messages"`
	}
	e.call(http.MethodGet, APIPrefix+"/history", nil, &view)
	var models []string
	for _, m := range view.Messages {
		if m.Role == "assistant" {
			models = append(models, m.Model)
		}
	}
	if len(models) != 1 || models[0] != kept {
		t.Fatalf("history's answers %v, want only %s", models, kept)
	}
	checkNoPageErrors(t, ctx)
}
