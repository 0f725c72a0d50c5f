package web

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// A subagent's tool calls show nested in the task call's card, labelled;
// its approval is answered there (in the parent's session), and its text
// is not the answer.
func TestBrowserSubagentNested(t *testing.T) {
	ctx := browser(t)
	model := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "task", Args: `{"subagent_type":"general","description":"write notes","prompt":"write notes.txt"}`}}},
		llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"notes.txt","content":"hi\n"}`}}},
		llmtest.Turn{Text: "CHILD-ANSWER-TEXT"},
		llmtest.Turn{Text: "The subagent wrote the notes."})
	e := newEnv(t, model, "")
	do(t, ctx, "open the page", chromedp.Navigate(e.ts.URL+"/?token="+testToken))
	waitJS(t, ctx, "the page to load", `document.body.dataset.ready === '1'`)
	do(t, ctx, "ask", chromedp.SetValue(chromedp.CSS("#chat-input"), "make notes"), chromedp.Click(chromedp.CSS("#send")))
	waitJS(t, ctx, "the subagent's approval in the task card", `document.querySelector('.tool-card .sub-calls') !== null && document.querySelector('.tool-card .approval button') !== null`)
	got, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('.approval').textContent`))
	if !strings.Contains(got, "for subagent general: write notes") {
		t.Errorf("the approval does not name the subagent: %q", got)
	}
	screenshot(t, ctx, "subagent-approval")
	do(t, ctx, "allow once", chromedp.Click(chromedp.CSS(`.approval button[data-decision="once"]`)))
	waitJS(t, ctx, "the answer", `document.querySelector('#messages').textContent.includes('The subagent wrote the notes.') && !document.body.classList.contains('running')`)
	card, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`[...document.querySelectorAll('.tool-card')].map((c) => c.querySelector('.tool-name').textContent + '|' + (c.querySelector('.sub-calls')?.textContent || '')).join('\n')`))
	if !strings.Contains(card, "task|subagent general: write notes⚙ write_file notes.txt ✓") {
		t.Errorf("the task card does not nest the subagent's call: %q", card)
	}
	if n := strings.Count(card, "\n") + 1; n != 1 {
		t.Errorf("%d cards, want only the task's: %q", n, card)
	}
	text, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`[...document.querySelectorAll('.msg.assistant')].map((m) => m.textContent).join('|')`))
	if strings.Contains(text, "CHILD-ANSWER-TEXT") {
		t.Errorf("the subagent's text shows as an answer: %q", text)
	}
	if got := e.read("notes.txt"); got != "hi\n" {
		t.Errorf("notes.txt = %q", got)
	}
	screenshot(t, ctx, "subagent-done")
	checkNoPageErrors(t, ctx)
}
