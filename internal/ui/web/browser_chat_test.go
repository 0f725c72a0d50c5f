package web

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// TestBrowserLongLines sends a 600-character word, gets an answer with a
// long code line and a long unbroken word, and a failing tool call whose
// error is one long path: at 1400×900 and at 420×800 the page never
// scrolls sideways, and the user's message, the answer and the Send
// button stay on the screen.
func TestBrowserLongLines(t *testing.T) {
	ctx := browser(t)
	word := strings.Repeat("x", 600)
	path := "missing/" + strings.Repeat("long_directory_name_", 20) + "/file.txt"
	code := "```go\nvar s = \"" + strings.Repeat("0123456789", 60) + "\"\n```"
	model := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"` + path + `"}`}}},
		llmtest.Turn{Text: "Here is the line:\n\n" + code + "\n\nand the word " + strings.Repeat("y", 500) + " and `" + strings.Repeat("z", 400) + "`."})
	e := newEnv(t, model, "")
	do(t, ctx, "open the page", chromedp.Navigate(e.ts.URL+"/?token="+testToken))
	waitJS(t, ctx, "the page to load", `document.body.dataset.ready === '1'`)
	do(t, ctx, "send a long word", chromedp.SetValue(chromedp.CSS("#chat-input"), word), chromedp.Click(chromedp.CSS("#send")))
	waitJS(t, ctx, "the failed tool call", `document.querySelector('.tool-card.failed .tool-output pre') !== null`)
	waitJS(t, ctx, "the answer", `document.querySelector('.msg.assistant pre') !== null && !document.body.classList.contains('running')`)
	if got, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('.tool-card.failed .tool-output pre').textContent`)); !strings.Contains(got, "long_directory_name_long_directory_name_") {
		t.Fatalf("the tool error does not show the long path: %q", got)
	}
	for _, size := range []struct {
		name string
		w, h int64
	}{{"wide", 1400, 900}, {"narrow", 420, 800}} {
		do(t, ctx, "resize to "+size.name, chromedp.EmulateViewport(size.w, size.h))
		waitJS(t, ctx, "the new width", `innerWidth === `+itoa(size.w))
		screenshot(t, ctx, "long-lines-"+size.name)
		checkFits(t, ctx, size.name)
	}
	// At 420 px the Files panel keeps its tree, above the editor.
	e.write("a.txt", "a\n")
	do(t, ctx, "open Files", chromedp.Click(chromedp.CSS(`.tabs button[data-panel="files"]`)))
	waitJS(t, ctx, "the tree shown", `(document.querySelector('#tree li.file[data-path="a.txt"] .label')?.getBoundingClientRect().width || 0) > 0`)
	do(t, ctx, "open a.txt", chromedp.Click(chromedp.CSS(`#tree li.file[data-path="a.txt"] .label`)))
	waitJS(t, ctx, "the editor", `document.querySelector('#editor').value === 'a\n' && document.scrollingElement.scrollWidth <= innerWidth`)
	screenshot(t, ctx, "long-lines-narrow-files")
	checkNoPageErrors(t, ctx)
}

// checkFits fails the test when the page scrolls sideways or when the
// Send button, the input or a message is not on the screen.
func checkFits(t *testing.T, ctx context.Context, what string) {
	t.Helper()
	const js = `(() => {
  const out = [];
  const sw = document.scrollingElement.scrollWidth;
  if (sw > innerWidth) out.push('the page is ' + sw + ' px wide in a ' + innerWidth + ' px window');
  const inside = (sel) => {
    const el = document.querySelector(sel);
    if (!el) { out.push(sel + ' missing'); return; }
    const r = el.getBoundingClientRect();
    if (r.width <= 0 || r.left < 0 || r.top < 0 || r.right > innerWidth || r.bottom > innerHeight)
      out.push(sel + ' is off the screen: ' + JSON.stringify({left: r.left, top: r.top, right: r.right, bottom: r.bottom}) + ' in ' + innerWidth + '×' + innerHeight);
  };
  inside('#send');
  inside('#chat-input');
  const box = document.querySelector('#messages').getBoundingClientRect();
  for (const m of document.querySelectorAll('#messages > *')) {
    const r = m.getBoundingClientRect();
    if (r.left < box.left - 0.5 || r.right > box.right + 0.5)
      out.push((m.className || m.tagName) + ' spans ' + r.left + '..' + r.right + ', the messages ' + box.left + '..' + box.right);
  }
  if (box.right > innerWidth + 0.5 || box.width < innerWidth * 0.9 - (document.querySelector('.sidebar').offsetWidth || 0))
    out.push('the messages span ' + box.left + '..' + box.right + ' in ' + innerWidth + ' px');
  return out.join('\n');
})()`
	got, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
	if err != nil {
		t.Fatal(err)
	}
	if got != "" {
		t.Errorf("%s: %s", what, got)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestBrowserApprovalChoices: an approval with a rule to save offers
// once, session, always and deny; one with none (a path no rule may
// name) offers only once and deny.
func TestBrowserApprovalChoices(t *testing.T) {
	ctx := browser(t)
	model := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"draft(1).txt","content":"one\n"}`}}},
		llmtest.Turn{Text: "Wrote the draft."},
		llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"notes/a.txt","content":"a\n"}`}}},
		llmtest.Turn{Text: "Wrote the note."})
	e := newEnv(t, model, "")
	do(t, ctx, "open the page", chromedp.Navigate(e.ts.URL+"/?token="+testToken))
	waitJS(t, ctx, "the page to load", `document.body.dataset.ready === '1'`)
	const choices = `[...document.querySelectorAll('.approval button')].map((b) => b.dataset.decision).join(',')`
	do(t, ctx, "ask for a write with no rule", chromedp.SetValue(chromedp.CSS("#chat-input"), "write the draft"), chromedp.Click(chromedp.CSS("#send")))
	waitJS(t, ctx, "the approval", `document.querySelector('.approval button') !== null`)
	if got, _ := chromedp.Run(ctx, chromedp.Evaluate[string](choices)); got != "once,deny" {
		t.Errorf("approval without a suggested rule offers %s, want once,deny", got)
	}
	screenshot(t, ctx, "approval-no-rule")
	do(t, ctx, "allow once", chromedp.Click(chromedp.CSS(`.approval button[data-decision="once"]`)))
	waitJS(t, ctx, "the first answer", `document.querySelector('#messages').textContent.includes('Wrote the draft.') && !document.body.classList.contains('running')`)
	do(t, ctx, "ask for a write with a rule", chromedp.SetValue(chromedp.CSS("#chat-input"), "write the note"), chromedp.Click(chromedp.CSS("#send")))
	waitJS(t, ctx, "the second approval", `document.querySelector('.approval button') !== null`)
	if got, _ := chromedp.Run(ctx, chromedp.Evaluate[string](choices)); got != "once,session,always,deny" {
		t.Errorf("approval with a suggested rule offers %s, want once,session,always,deny", got)
	}
	if got, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`[...document.querySelectorAll('.approval')].pop().textContent`)); !strings.Contains(got, "notes/**") {
		t.Errorf("the approval does not name the rule it would save: %q", got)
	}
	do(t, ctx, "allow for the session", chromedp.Click(chromedp.CSS(`.approval button[data-decision="session"]`)))
	waitJS(t, ctx, "the second answer", `document.querySelector('#messages').textContent.includes('Wrote the note.') && !document.body.classList.contains('running')`)
	if got := e.read("draft(1).txt") + e.read("notes/a.txt"); got != "one\na\n" {
		t.Errorf("files written: %q", got)
	}
	checkNoPageErrors(t, ctx)
}

// pageStubJS runs before the page's scripts: window.Notification records
// the notifications (window.__notes) and permission requests
// (window.__asks; the answer is window.__permAnswer, "granted" unless
// set); document.hidden follows window.__hidden; Date.now() returns
// window.__clock when it is set (a clock the test moves).
const pageStubJS = `(() => {
  window.__notes = []; window.__asks = 0; window.__hidden = false; window.__clock = null;
  const realNow = Date.now.bind(Date);
  Date.now = () => window.__clock ?? realNow();
  class FakeNotification {
    constructor(title, opts) { window.__notes.push({ title, body: (opts || {}).body || '' }); }
    close() {}
    static requestPermission() {
      window.__asks++;
      FakeNotification.permission = window.__permAnswer || 'granted';
      return Promise.resolve(FakeNotification.permission);
    }
  }
  FakeNotification.permission = 'default';
  window.Notification = FakeNotification;
  Object.defineProperty(Document.prototype, 'hidden', { configurable: true, get: () => !!window.__hidden });
  Object.defineProperty(Document.prototype, 'visibilityState', { configurable: true, get: () => window.__hidden ? 'hidden' : 'visible' });
})()`

// stubPage installs pageStubJS in every document the tab opens.
func stubPage(t *testing.T, ctx context.Context) {
	t.Helper()
	do(t, ctx, "stub the page", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: pageStubJS})
		return err
	}))
}

func evalJS[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return v
}

// TestBrowserNotifications: no permission prompt on page load; the first
// message sent asks once; with the tab hidden, a waiting approval and
// the end of a turn that ran longer than 10 s (a moved clock) are
// notified, a short turn is not; a refusal turns notifications off and is
// remembered after a reload.
func TestBrowserNotifications(t *testing.T) {
	ctx := browser(t)
	model := llmtest.NewScript(t,
		llmtest.Turn{Text: "Quick answer."},
		llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"made.txt","content":"made\n"}`}}},
		llmtest.Turn{Text: "I wrote made.txt."},
		llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"other.txt","content":"x\n"}`}}},
		llmtest.Turn{Text: "Denied, fine."})
	e := newEnv(t, model, "")
	stubPage(t, ctx)
	do(t, ctx, "open the page", chromedp.Navigate(e.ts.URL+"/?token="+testToken))
	waitJS(t, ctx, "the page to load", `document.body.dataset.ready === '1'`)
	if n := evalJS[int](t, ctx, `window.__asks`); n != 0 {
		t.Errorf("the page asked for notifications %d times on load", n)
	}
	// A short turn, tab hidden: permission asked, nothing notified.
	evalJS[bool](t, ctx, `window.__hidden = true, window.__clock = 1000000, true`)
	do(t, ctx, "send", chromedp.SetValue(chromedp.CSS("#chat-input"), "hi"), chromedp.Click(chromedp.CSS("#send")))
	waitJS(t, ctx, "the short answer", `document.querySelector('#messages').textContent.includes('Quick answer.') && !document.body.classList.contains('running')`)
	waitJS(t, ctx, "the choice stored", `localStorage.getItem('aidex-notify') === 'on' && document.querySelector('#notify-toggle').checked`)
	if n := evalJS[int](t, ctx, `window.__notes.length`); n != 0 {
		t.Errorf("a short turn was notified: %s", evalJS[string](t, ctx, `JSON.stringify(window.__notes)`))
	}
	// A turn with an approval, 11 s long: both notified.
	do(t, ctx, "send again", chromedp.SetValue(chromedp.CSS("#chat-input"), "write it"), chromedp.Click(chromedp.CSS("#send")))
	waitJS(t, ctx, "the approval", `document.querySelector('.approval button[data-decision="once"]') !== null`)
	waitJS(t, ctx, "the approval notified", `window.__notes.length === 1 && window.__notes[0].title === 'aidex needs your approval' && window.__notes[0].body.includes('write_file')`)
	evalJS[bool](t, ctx, `window.__clock = 1011000, true`)
	do(t, ctx, "approve", chromedp.Click(chromedp.CSS(`.approval button[data-decision="once"]`)))
	waitJS(t, ctx, "the answer", `document.querySelector('#messages').textContent.includes('I wrote made.txt.') && !document.body.classList.contains('running')`)
	waitJS(t, ctx, "the end notified", `window.__notes.length === 2 && window.__notes[1].title === 'aidex finished' && window.__notes[1].body === 'I wrote made.txt.'`)
	if n := evalJS[int](t, ctx, `window.__asks`); n != 1 {
		t.Errorf("permission asked %d times, want once", n)
	}

	// Refused: nothing is notified, and the refusal is remembered.
	evalJS[bool](t, ctx, `localStorage.removeItem('aidex-notify'), true`)
	do(t, ctx, "reload", chromedp.Reload())
	waitJS(t, ctx, "the page to load", `document.body.dataset.ready === '1'`)
	evalJS[bool](t, ctx, `window.__permAnswer = 'denied', window.__hidden = true, true`)
	do(t, ctx, "send", chromedp.SetValue(chromedp.CSS("#chat-input"), "write another"), chromedp.Click(chromedp.CSS("#send")))
	waitJS(t, ctx, "the approval", `document.querySelector('.approval button[data-decision="deny"]') !== null`)
	waitJS(t, ctx, "the refusal stored", `window.__asks === 1 && localStorage.getItem('aidex-notify') === 'off'`)
	do(t, ctx, "deny", chromedp.Click(chromedp.CSS(`.approval button[data-decision="deny"]`)))
	waitJS(t, ctx, "the answer", `document.querySelector('#messages').textContent.includes('Denied, fine.') && !document.body.classList.contains('running')`)
	if n := evalJS[int](t, ctx, `window.__notes.length`); n != 0 {
		t.Errorf("notified after a refusal: %s", evalJS[string](t, ctx, `JSON.stringify(window.__notes)`))
	}
	do(t, ctx, "reload", chromedp.Reload())
	waitJS(t, ctx, "the page to load", `document.body.dataset.ready === '1'`)
	do(t, ctx, "send", chromedp.SetValue(chromedp.CSS("#chat-input"), "hello"), chromedp.Click(chromedp.CSS("#send")))
	waitJS(t, ctx, "the answer", `document.querySelectorAll('.msg.assistant').length > 0 && !document.body.classList.contains('running')`)
	if n := evalJS[int](t, ctx, `window.__asks`); n != 0 {
		t.Errorf("asked again after a refusal (%d times)", n)
	}
	checkNoPageErrors(t, ctx)
}

// fakeChatJS makes the page's next POST /api/chat answer a stream the
// test writes: window.__sse(name, data) sends one Server-Sent Event,
// window.__sseEnd() ends the stream. The events go through the page's own
// SSE reader and event handler, and the test controls how long a wait
// lasts (TestBrowserWaitingFromTheEngine covers the real server).
const fakeChatJS = `(() => {
  const orig = window.fetch;
  window.fetch = async (url, opts) => {
    if (String(url) !== '/api/v1/chat') return orig(url, opts);
    const enc = new TextEncoder();
    let ctrl;
    const body = new ReadableStream({ start(c) { ctrl = c; } });
    window.__sse = (name, data) => ctrl.enqueue(enc.encode('event: ' + name + '\ndata: ' + JSON.stringify(data) + '\n\n'));
    window.__sseEnd = () => ctrl.close();
    return new Response(body, { status: 200, headers: { 'Content-Type': 'text/event-stream' } });
  };
  return true;
})()`

// TestBrowserWaiting: a waiting event shows "waiting for ollama/qwen3:8b
// — reading ~2,100 tokens, N s", N counted by the page from the event
// (a moved clock), and each of text, reasoning, tool_call, usage, error
// and done removes it.
func TestBrowserWaiting(t *testing.T) {
	ctx := browser(t)
	e := newEnv(t, nil, "")
	stubPage(t, ctx)
	do(t, ctx, "open the page", chromedp.Navigate(e.ts.URL+"/?token="+testToken))
	waitJS(t, ctx, "the page to load", `document.body.dataset.ready === '1'`)
	evalJS[bool](t, ctx, fakeChatJS)
	evalJS[bool](t, ctx, `window.__clock = 5000000, true`)
	do(t, ctx, "send", chromedp.SetValue(chromedp.CSS("#chat-input"), "explain this repo"), chromedp.Click(chromedp.CSS("#send")))
	waitJS(t, ctx, "the stream open", `typeof window.__sse === 'function' && document.body.classList.contains('running')`)
	const waiting = `{type: 'waiting', waiting: {provider: 'ollama', model: 'qwen3:8b', input_tokens: 2100}}`
	const line = `document.querySelector('#messages .waiting-line')?.textContent`
	evalJS[bool](t, ctx, `window.__sse('waiting', `+waiting+`), true`)
	waitJS(t, ctx, "the waiting line", line+` === 'waiting for ollama/qwen3:8b — reading ~2,100 tokens, 0 s'`)
	evalJS[bool](t, ctx, `window.__clock = 5045000, true`)
	waitJS(t, ctx, "45 s counted", line+` === 'waiting for ollama/qwen3:8b — reading ~2,100 tokens, 45 s'`)
	screenshot(t, ctx, "chat-waiting")
	evalJS[bool](t, ctx, `window.__clock = 5185000, true`)
	waitJS(t, ctx, "minutes counted", line+` === 'waiting for ollama/qwen3:8b — reading ~2,100 tokens, 3 min 5 s'`)
	for _, end := range []struct{ name, data string }{
		{"text", `{type: 'text', text: 'Hello'}`},
		{"reasoning", `{type: 'reasoning', text: 'hmm'}`},
		{"tool_call", `{type: 'tool_call', tool_call: {id: 'c1', name: 'read_file', arguments: {path: 'a.txt'}}}`},
		{"usage", `{type: 'usage', usage: {session: {input_tokens: 2100, output_tokens: 5}}}`},
		{"error", `{type: 'error', error: {message: 'the model failed', kind: 'provider'}}`},
		{"done", `{type: 'done', done: {stop_reason: 'done'}}`},
	} {
		evalJS[bool](t, ctx, `window.__sse('waiting', `+waiting+`), true`)
		waitJS(t, ctx, "the waiting line before "+end.name, `document.querySelectorAll('#messages .waiting-line').length === 1`)
		evalJS[bool](t, ctx, `window.__sse('`+end.name+`', `+end.data+`), true`)
		waitJS(t, ctx, "the waiting line gone after "+end.name, `document.querySelector('#messages .waiting-line') === null`)
	}
	// Without a token count, and cleared when the stream ends.
	evalJS[bool](t, ctx, `window.__clock = 6000000, window.__sse('waiting', {type: 'waiting', waiting: {provider: 'llamacpp', model: 'local'}}), true`)
	waitJS(t, ctx, "the line without tokens", line+` === 'waiting for llamacpp/local, 0 s'`)
	evalJS[bool](t, ctx, `window.__sseEnd(), true`)
	waitJS(t, ctx, "the run over, the line gone", `!document.body.classList.contains('running') && document.querySelector('#messages .waiting-line') === null`)
	if got := evalJS[string](t, ctx, `document.querySelector('#messages').textContent`); !strings.Contains(got, "Hello") || !strings.Contains(got, "the model failed") {
		t.Errorf("the events after the wait were not shown: %q", got)
	}
}

// TestBrowserWaitingFromTheEngine: the engine's own waiting event, through
// the real server, shows the waiting line while the scripted model holds
// its answer, and the answer's first text removes it.
func TestBrowserWaitingFromTheEngine(t *testing.T) {
	ctx := browser(t)
	hold := make(chan struct{})
	script := llmtest.NewScript(t, llmtest.Turn{Text: "Here it is.", Hold: hold})
	e := newEnv(t, script, "")
	var once sync.Once
	release := func() { once.Do(func() { close(hold) }) }
	t.Cleanup(release) // before the server closes, should the test fail early
	do(t, ctx, "open the page", chromedp.Navigate(e.ts.URL+"/?token="+testToken))
	waitJS(t, ctx, "the page to load", `document.body.dataset.ready === '1'`)
	do(t, ctx, "send", chromedp.SetValue(chromedp.CSS("#chat-input"), "explain this repo"), chromedp.Click(chromedp.CSS("#send")))
	const line = `document.querySelector('#messages .waiting-line')?.textContent || ''`
	waitJS(t, ctx, "the waiting line", `(`+line+`).startsWith('waiting for fake/m1 — reading ~')`)
	release()
	waitJS(t, ctx, "the answer", `document.querySelector('#messages').textContent.includes('Here it is.')`)
	waitJS(t, ctx, "the waiting line gone", `document.querySelector('#messages .waiting-line') === null`)
	checkNoPageErrors(t, ctx)
}
