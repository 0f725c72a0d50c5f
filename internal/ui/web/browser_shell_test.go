package web

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// Shell tools are off in the web UI by default, and the page says so
// where it matters: Settings names the state and the config key to set
// by hand; a model's call of run_command gets a result saying it is off in
// the web UI, and the chat shows how to turn shell tools on (issue 30
// item 11).
func TestBrowserShellToolsOffSaysHow(t *testing.T) {
	ctx := browser(t)
	model := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "run_command", Args: `{"command":"go test ./..."}`}}},
		llmtest.Turn{Text: "I could not run the tests."})
	e := newEnv(t, model, "")
	do(t, ctx, "open the page", chromedp.Navigate(e.ts.URL+"/?token="+testToken))
	waitJS(t, ctx, "the page to load", `document.body.dataset.ready === '1'`)
	do(t, ctx, "ask for the tests", chromedp.SetValue(chromedp.CSS("#chat-input"), "run the tests"), chromedp.Click(chromedp.CSS("#send")))
	waitJS(t, ctx, "the answer", `document.querySelector('.msg.assistant') !== null && !document.body.classList.contains('running')`)
	reqs := model.Requests()
	if len(reqs) < 2 || !strings.Contains(string(reqs[1]), "run_command is off in the web UI") || !strings.Contains(string(reqs[1]), "web_allow_shell_tools = true") {
		t.Fatalf("the tool result the model got does not say run_command is off in the web UI and how to turn it on:\n%s", reqs[len(reqs)-1])
	}
	note, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('.shell-off')?.textContent || ''`))
	if !strings.Contains(note, "web_allow_shell_tools = true") || !strings.Contains(note, e.home) {
		t.Errorf("the chat's note on shell tools: %q", note)
	}
	do(t, ctx, "open Settings", chromedp.Click(chromedp.CSS(`.tabs button[data-panel="settings"]`)))
	settings, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('#shell-tools-state')?.textContent || ''`))
	if !strings.Contains(settings, "Off") || !strings.Contains(settings, "web_allow_shell_tools = true") {
		t.Errorf("Settings on shell tools: %q", settings)
	}
	checkNoPageErrors(t, ctx)
}
