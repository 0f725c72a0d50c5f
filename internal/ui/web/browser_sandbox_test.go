package web

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/sandbox"
)

// TestBrowserSandboxRerunApproval: a command the OS sandbox stopped is
// offered again without the sandbox; the approval says why (the
// sandbox's explanation) and offers only once and deny. Denied, nothing
// is written.
func TestBrowserSandboxRerunApproval(t *testing.T) {
	if c := sandbox.Probe(); !c.Available() {
		if os.Getenv("CI") != "" {
			t.Fatalf("commands cannot be sandboxed on this CI machine: %s", c.Reason)
		}
		t.Skipf("commands cannot be sandboxed here: %s (CI unset: skipping)", c.Reason)
	}
	ctx := browser(t)
	model := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "run_command", Args: `{"command":"sh w.sh"}`}}},
		llmtest.Turn{Text: "The sandbox stopped it."})
	// The script writes into .aidex, which the sandbox keeps read-only
	// (the policy cannot see inside the script; a rule allows running it).
	e := newEnv(t, model, "web_allow_shell_tools = true\n[permissions]\nallow = [\"run_command(sh w.sh)\"]\n")
	e.write("w.sh", "mkdir -p .aidex && echo x > .aidex/pwned\n")
	do(t, ctx, "open the page", chromedp.Navigate(e.ts.URL+"/?token="+testToken))
	waitJS(t, ctx, "the page to load", `document.body.dataset.ready === '1'`)
	do(t, ctx, "ask for the command", chromedp.SetValue(chromedp.CSS("#chat-input"), "run the script"), chromedp.Click(chromedp.CSS("#send")))
	waitJS(t, ctx, "the sandbox approval", `document.querySelector('.approval button') !== null`)
	box, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`[...document.querySelectorAll('.approval')].pop().textContent`))
	for _, want := range []string{"asked by sandbox", "sh w.sh", "read-only in the sandbox", "run it again without the sandbox"} {
		if !strings.Contains(box, want) {
			t.Errorf("the approval does not say %q: %q", want, box)
		}
	}
	if got, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`[...document.querySelectorAll('.approval button')].map((b) => b.dataset.decision).join(',')`)); got != "once,deny" {
		t.Errorf("the sandbox approval offers %s, want once,deny", got)
	}
	screenshot(t, ctx, "sandbox-rerun")
	do(t, ctx, "deny", chromedp.Click(chromedp.CSS(`.approval button[data-decision="deny"]`)))
	waitJS(t, ctx, "the answer", `document.querySelector('#messages').textContent.includes('The sandbox stopped it.') && !document.body.classList.contains('running')`)
	if _, err := os.Stat(filepath.Join(e.ws, ".aidex", "pwned")); err == nil {
		t.Error("the command wrote .aidex/pwned")
	}
	checkNoPageErrors(t, ctx)
}
