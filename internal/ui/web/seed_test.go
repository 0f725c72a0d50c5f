package web

import (
	"bytes"
	"encoding/base64"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// GET /api/status says whether safe_mode is on and whether the provider
// in use has a key (issue 23 item 20).
func TestStatusSafeModeAndKey(t *testing.T) {
	e := newEnv(t, nil, "safe_mode = false\n")
	var st map[string]any
	if e.call(http.MethodGet, "/api/status", nil, &st) != http.StatusOK {
		t.Fatal("status failed")
	}
	if st["safe_mode"] != false || st["has_key"] != true {
		t.Errorf("safe_mode/has_key = %v/%v, want false/true (%v)", st["safe_mode"], st["has_key"], st)
	}
	e2 := newEnv(t, nil, "")
	st = nil
	e2.call(http.MethodGet, "/api/status", nil, &st)
	if st["safe_mode"] != true {
		t.Errorf("default safe_mode = %v, want true", st["safe_mode"])
	}
}

// Unknown fields in a request body are ignored and logged at debug level,
// not refused (issue 23 item 20).
func TestUnknownBodyFieldsIgnored(t *testing.T) {
	model := llmtest.NewScript(t)
	e := newEnv(t, model, "")
	var logs bytes.Buffer
	e.srv.opts.Log = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	if status, _ := e.chat(map[string]any{"message": "hi", "client_version": "9"}, nil); status != http.StatusOK {
		t.Fatalf("chat with an unknown field: %d, want 200", status)
	}
	if len(model.Requests()) != 1 {
		t.Errorf("the model got %d requests, want 1", len(model.Requests()))
	}
	var out map[string]any
	if code := e.call(http.MethodPost, "/api/models/switch", map[string]any{"model": "m2", "extra": true}, &out); code != http.StatusOK || out["model"] != "m2" {
		t.Errorf("switch with an unknown field: %d %v", code, out)
	}
	if !strings.Contains(logs.String(), "client_version") || !strings.Contains(logs.String(), "POST /api/chat") {
		t.Errorf("debug log does not name the field and endpoint: %q", logs.String())
	}
	if code := e.call(http.MethodPost, "/api/models/switch", map[string]any{"model": 3}, nil); code != http.StatusBadRequest {
		t.Errorf("a wrongly typed known field: %d, want 400", code)
	}
}

// commandOut posts msg to the chat and returns the command event's data,
// or the error event's message; it fails when anything else streams.
func (e *env) commandOut(msg string) (out map[string]any, errMsg string) {
	e.t.Helper()
	status, evs := e.chat(map[string]any{"message": msg}, nil)
	if status != http.StatusOK {
		e.t.Fatalf("%s: status %d", msg, status)
	}
	for _, ev := range evs {
		switch ev.Name {
		case "command":
			out = ev.Data
		case "error":
			errMsg, _ = ev.Data["error"].(map[string]any)["message"].(string)
		case "done":
		default:
			e.t.Errorf("%s: unexpected event %s", msg, ev.Name)
		}
	}
	if len(evs) == 0 || evs[len(evs)-1].Name != "done" {
		e.t.Errorf("%s: the stream does not end with done: %v", msg, names(evs))
	}
	return out, errMsg
}

// The web chat runs the safe subset of the slash commands in the server
// and never sends them to the model; the unsafe ones are refused with the
// reason (issue 23 item 11).
func TestChatSlashCommands(t *testing.T) {
	model := llmtest.NewScript(t)
	e := newEnv(t, model, "")
	out, msg := e.commandOut("/model m2")
	if msg != "" || out["output"] != "model: fake/m2" || out["status"] != true {
		t.Errorf("/model m2: %v %q", out, msg)
	}
	var st Status
	e.call(http.MethodGet, "/api/status", nil, &st)
	if st.Model != "m2" {
		t.Errorf("status model after /model m2: %q", st.Model)
	}
	if out, _ := e.commandOut("/model"); !strings.Contains(out["output"].(string), "* m2") {
		t.Errorf("/model lists: %v", out)
	}
	if out, _ := e.commandOut("/help"); !strings.Contains(out["output"].(string), "/compact") {
		t.Errorf("/help: %v", out)
	}
	if out, _ := e.commandOut("/cost"); !strings.Contains(out["output"].(string), "input 0") {
		t.Errorf("/cost: %v", out)
	}
	if out, _ := e.commandOut("/tasks"); !strings.Contains(out["output"].(string), "no Ralph tasks") {
		t.Errorf("/tasks: %v", out)
	}
	if out, _ := e.commandOut("/compact"); out["output"] != "nothing to compact yet" {
		t.Errorf("/compact: %v", out)
	}
	if out, _ := e.commandOut("/provider"); !strings.Contains(out["output"].(string), "provider: fake") {
		t.Errorf("/provider: %v", out)
	}
	if out, msg := e.commandOut("/mode plan"); out["output"] != "permission mode: plan" {
		t.Errorf("/mode plan: %v %q", out, msg)
	}
	if out, msg := e.commandOut("/mode ask"); out["output"] != "permission mode: ask" {
		t.Errorf("/mode ask: %v %q", out, msg)
	}
	for _, wide := range []string{"/mode yolo", "/mode auto-edit"} {
		if _, msg := e.commandOut(wide); !strings.Contains(msg, "wider than this server's permission mode") {
			t.Errorf("%s: %q", wide, msg)
		}
	}
	for cmd, want := range map[string]string{"/config model x": "/config is not available", "/load a.txt": "/load is not available",
		"/export x.md": "/export is not available", "/edit": "/edit is not available", "!rm -rf x": "!command"} {
		if _, msg := e.commandOut(cmd); !strings.Contains(msg, want) {
			t.Errorf("%s: %q, want %q", cmd, msg, want)
		}
	}
	before := st.SessionID
	out, _ = e.commandOut("/clear")
	e.call(http.MethodGet, "/api/status", nil, &st)
	if out["cleared"] != true || out["session_id"] == before || st.SessionID != out["session_id"] {
		t.Errorf("/clear: %v, status session %q (was %q)", out, st.SessionID, before)
	}
	if st.PermissionMode != "ask" {
		t.Errorf("mode %q after the refused widenings", st.PermissionMode)
	}
	for _, r := range model.Requests() {
		if len(r) > 0 { // the model list of /model is a GET
			t.Errorf("a command reached the model: %s", r)
		}
	}
}

// A server started in auto-edit may narrow to plan and widen back to
// auto-edit, never to yolo.
func TestChatModeCeiling(t *testing.T) {
	e := newEnv(t, llmtest.NewScript(t), "permission_mode = \"auto-edit\"\n")
	for _, c := range []struct{ cmd, out string }{{"/mode plan", "permission mode: plan"}, {"/mode auto-edit", "permission mode: auto-edit"}, {"/mode", "permission mode: auto-edit"}} {
		if out, msg := e.commandOut(c.cmd); out["output"] != c.out {
			t.Errorf("%s: %v %q", c.cmd, out, msg)
		}
	}
	if _, msg := e.commandOut("/mode yolo"); !strings.Contains(msg, "wider") {
		t.Errorf("/mode yolo: %q", msg)
	}
}

// In the page, "/model m2" shows the command's output and the new model
// in the status bar, and no answer from the model (issue 23 item 11);
// "/clear" empties the chat.
func TestBrowserSlashCommand(t *testing.T) {
	ctx := browser(t)
	model := llmtest.NewScript(t)
	e := newEnv(t, model, "")
	do(t, ctx, "open the page", chromedp.Navigate(e.ts.URL+"/?token="+testToken))
	waitJS(t, ctx, "the page to load", `document.body.dataset.ready === '1'`)
	do(t, ctx, "send /model m2", chromedp.SetValue(chromedp.CSS("#chat-input"), "/model m2"), chromedp.Click(chromedp.CSS("#send")))
	waitJS(t, ctx, "the command output", `document.querySelector('.msg.command-output pre')?.textContent === 'model: fake/m2' && !document.body.classList.contains('running')`)
	waitJS(t, ctx, "the status bar", `document.querySelector('#status-model').textContent === 'fake/m2'`)
	if n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('.msg.assistant, .msg.error').length`)); n != 0 {
		t.Errorf("%d answers or errors shown for a command", n)
	}
	do(t, ctx, "send /config", chromedp.SetValue(chromedp.CSS("#chat-input"), "/config model x"), chromedp.Click(chromedp.CSS("#send")))
	waitJS(t, ctx, "the refusal", `[...document.querySelectorAll('.msg.error')].some((m) => m.textContent.includes('/config is not available in the web chat'))`)
	do(t, ctx, "send /clear", chromedp.SetValue(chromedp.CSS("#chat-input"), "/clear"), chromedp.Click(chromedp.CSS("#send")))
	waitJS(t, ctx, "the cleared chat", `document.querySelectorAll('.msg.command-output').length === 1 && document.querySelector('.msg.command-output pre').textContent.startsWith('new session ') && !document.querySelector('.msg.error')`)
	for _, r := range model.Requests() {
		if len(r) > 0 {
			t.Errorf("a command reached the model: %s", r)
		}
	}
	checkNoPageErrors(t, ctx)
}

// groqServer serves a Groq-shaped live model list that lacks the
// catalog's default model; it returns the config lines that point groq
// at it with a key.
func groqServer(t *testing.T) string {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/models" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte(`{"object":"list","data":[{"id":"whisper-large-v3"},{"id":"qwen/qwen3-32b"},{"id":"llama-3.3-70b-versatile"}]}`))
	}))
	t.Cleanup(ts.Close)
	return "\n[providers.groq]\nbase_url = \"" + ts.URL + "/v1\"\napi_key = \"gsk-test\"\n"
}

// Switching provider without a model picks that provider's default live
// model, never the model configured for another provider (issue 23 item
// 17): the catalog default is gone from the live list, so the next
// catalog model the list has.
func TestProviderSwitchPicksLiveDefault(t *testing.T) {
	e := newEnv(t, nil, groqServer(t))
	var out map[string]any
	if code := e.call(http.MethodPost, "/api/provider/switch", map[string]any{"provider": "groq"}, &out); code != http.StatusOK {
		t.Fatalf("switch: %d %v", code, out)
	}
	if out["provider"] != "groq" || out["model"] != "llama-3.3-70b-versatile" {
		t.Errorf("switch to groq: %v, want model llama-3.3-70b-versatile (not m1 of provider fake)", out)
	}
	// Back to fake: its configured model again.
	e.call(http.MethodPost, "/api/provider/switch", map[string]any{"provider": "fake"}, &out)
	if out["model"] != "m1" {
		t.Errorf("back to fake: %v", out)
	}
	cmd, msg := e.commandOut("/provider groq")
	if cmd["output"] != "provider: groq · model llama-3.3-70b-versatile" {
		t.Errorf("/provider groq: %v %q", cmd, msg)
	}
}

// The Settings panel's "Use" button switches to the provider's live
// default model (issue 23 item 17).
func TestBrowserProviderUsePicksLiveDefault(t *testing.T) {
	ctx := browser(t)
	e := newEnv(t, nil, groqServer(t))
	do(t, ctx, "open Settings", chromedp.Navigate(e.ts.URL+"/?token="+testToken+"#settings"))
	waitJS(t, ctx, "the page to load", `document.body.dataset.ready === '1'`)
	waitJS(t, ctx, "the groq card", `document.querySelector('.provider-card[data-name="groq"] button') !== null`)
	do(t, ctx, "click Use", chromedp.Click(chromedp.CSS(`.provider-card[data-name="groq"] button`)))
	waitJS(t, ctx, "the status bar", `document.querySelector('#status-model').textContent === 'groq/llama-3.3-70b-versatile'`)
	checkNoPageErrors(t, ctx)
}

// Web Settings can set Cloudflare Workers AI (the account id and the
// token), and POST /api/image then generates through it (issue 23 item
// 18; the service is an httptest stand-in).
func TestImageCloudflareThroughSettings(t *testing.T) {
	var path, auth string
	cf := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path, auth = r.URL.Path, r.Header.Get("Authorization")
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"success":true,"result":{"image":"` + base64.StdEncoding.EncodeToString(pngBytes()) + `"}}`))
	}))
	defer cf.Close()
	e := newEnv(t, nil, "")
	var provs struct {
		Providers []ImageProvider `json:"providers"`
	}
	e.call(http.MethodGet, "/api/image-providers", nil, &provs)
	i := slices.IndexFunc(provs.Providers, func(p ImageProvider) bool { return p.Name == "cloudflare" })
	if i < 0 || !provs.Providers[i].NeedsAccountID || !provs.Providers[i].RequiresKey {
		t.Fatalf("no cloudflare image provider needing an account id: %+v", provs.Providers)
	}
	values := map[string]string{"image_provider": "cloudflare", "cloudflare_account_id": "acc42", "image_api_key": "cf-token", "image_base_url": cf.URL + "/client/v4"}
	if code := e.call(http.MethodPost, "/api/config", map[string]any{"values": values}, nil); code != http.StatusOK {
		t.Fatalf("saving the Cloudflare settings: %d", code)
	}
	var cfg map[string]any
	e.call(http.MethodGet, "/api/image-providers", nil, &cfg)
	if got := cfg["configured"].(map[string]any)["cloudflare_account_id"]; got != "acc42" {
		t.Errorf("configured account id %v", got)
	}
	var img imageAnswer
	if code := e.call(http.MethodPost, "/api/image", map[string]any{"prompt": "a red dot"}, &img); code != http.StatusOK {
		t.Fatalf("image: %d %s", code, img.Error)
	}
	if img.Provider != "cloudflare" || img.MIME != "image/png" || path != "/client/v4/accounts/acc42/ai/run/@cf/black-forest-labs/flux-1-schnell" || auth != "Bearer cf-token" {
		t.Errorf("image %+v via %s (%s)", img, path, auth)
	}
}

// A field the endpoint does not take is ignored, never applied: a Ralph
// task added with "status": "done" is pending.
func TestRalphAddIgnoresStatus(t *testing.T) {
	e := newEnv(t, llmtest.NewScript(t), "")
	e.addTask(map[string]any{"title": "x", "status": "done"})
	if v := e.ralph(); len(v.Tasks) != 1 || v.Tasks[0].Status != "pending" {
		t.Errorf("tasks %+v, want one pending", v.Tasks)
	}
}
