package cli

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/sharedtest"
	"github.com/zelvior/aidex/internal/ui/chat"
)

// `aidex --web` serves the browser UI as `aidex web` does (issue 23 item
// 22): the URL line, and the API answers with the token.
func TestRootWebFlagServesWebUI(t *testing.T) {
	e := newE2E(t, llmtest.NewScript(t), "openai", "")
	out := &sharedtest.Buffer{}
	errOut := &sharedtest.Buffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- Main(Process{Chat: chat.Run, Context: ctx, Args: []string{"-w", e.ws, "--web"}, Stdin: strings.NewReader(""),
			Stdout: out, Stderr: errOut, Getenv: func(k string) string { return e.env[k] }})
	}()
	w := &webRun{out: out, errOut: errOut, cancel: cancel}
	url := w.waitURL(t)
	token := url[strings.Index(url, "token=")+len("token="):]
	base := strings.TrimSuffix(url[:strings.Index(url, "?")], "/")
	checkTokenAuth(t, base, token)
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d, stderr %q", code, errOut.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("aidex --web did not stop")
	}
}

// --full and --web choose a front end as --plain does: two at once, a
// prompt for the web UI and --full without a terminal are usage errors
// that say why (issue 23 item 22).
func TestRootFrontEndFlags(t *testing.T) {
	e := newE2E(t, llmtest.NewScript(t), "openai", "")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--web", "--plain"}, "use one of them"},
		{[]string{"--full", "--web"}, "use one of them"},
		{[]string{"--web", "-p", "hi"}, "--web serves the browser UI and takes no prompt"},
		{[]string{"--full"}, "--full needs a terminal"},
	} {
		r := e.run(context.Background(), c.args...)
		if r.code != ExitUsage || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, r.code, r.stderr, ExitUsage, c.want)
		}
	}
}

// Signup links in every front end (issue 23 item 19): `aidex providers`
// prints each provider's key page, and the line mode's /provider list and
// its key prompt name it.
func TestSignupLinksEverywhere(t *testing.T) {
	e := newE2E(t, llmtest.NewScript(t), "openai", "")
	r := e.run(context.Background(), "providers")
	if r.code != 0 || !strings.Contains(r.stdout, "get a key: https://console.groq.com/keys") {
		t.Errorf("aidex providers: exit %d, no groq signup link:\n%s", r.code, r.stdout)
	}
	var out, errb bytes.Buffer
	code := Main(Process{Chat: chat.Run, Context: context.Background(), Args: []string{"-w", e.ws, "--plain"}, Stdin: strings.NewReader("/provider\n/provider groq\n"),
		Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return e.env[k] }})
	_ = code // the key prompt meets the end of input
	if !strings.Contains(out.String(), "groq") || !strings.Contains(out.String(), "(needs a key: https://console.groq.com/keys)") {
		t.Errorf("/provider list without the signup link:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "API key for groq (get one at https://console.groq.com/keys; stored in ") {
		t.Errorf("key prompt without the signup link:\n%s", out.String())
	}
}

// plainRun runs `aidex --plain` in e's workspace with input on stdin and
// the extra environment variables.
func plainRun(e *e2e, input string, extra map[string]string) string {
	var out, errb bytes.Buffer
	Main(Process{Chat: chat.Run, Context: context.Background(), Args: []string{"-w", e.ws, "--plain"}, Stdin: strings.NewReader(input),
		Stdout: &out, Stderr: &errb, Getenv: func(k string) string {
			if v, ok := extra[k]; ok {
				return v
			}
			return e.env[k]
		}})
	return out.String()
}

// The line mode's marks and /tasks fall back to ASCII when the locale is
// not UTF-8 (issue 23 item 23), and stay as they are in a UTF-8 one.
func TestPlainASCIIWithoutUTF8Locale(t *testing.T) {
	script := func() *llmtest.Script {
		return llmtest.NewScript(t,
			llmtest.Turn{Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"a.txt"}`}}},
			llmtest.Turn{Text: "read it"})
	}
	input := "read a.txt\n/tasks add Fix the bug\n/tasks\n"
	e := newE2E(t, script(), "openai", "")
	e.write("a.txt", "hello\n")
	out := plainRun(e, input, map[string]string{"LANG": "C"})
	for _, want := range []string{"-> read_file", "  ok ", "o pending", " | "} {
		if !strings.Contains(out, want) {
			t.Errorf("LANG=C: no %q in:\n%s", want, out)
		}
	}
	if i := strings.IndexFunc(out, func(r rune) bool { return r > 0x7e }); i >= 0 {
		t.Errorf("LANG=C: non-ASCII output at %d: %q", i, out[max(0, i-40):min(len(out), i+40)])
	}
	e = newE2E(t, script(), "openai", "")
	e.write("a.txt", "hello\n")
	out = plainRun(e, input, map[string]string{"LANG": "en_US.UTF-8", "LC_ALL": ""})
	for _, want := range []string{"→ read_file", "  ✓ ", "○ pending"} {
		if !strings.Contains(out, want) {
			t.Errorf("UTF-8: no %q in:\n%s", want, out)
		}
	}
}

// `aidex config set groq_api_key KEY` sets providers.groq.api_key with a
// one-line deprecation notice (issue 23 item 21).
func TestConfigSetOldName(t *testing.T) {
	e := newCmdEnv(t, "")
	out, errOut, err := e.run(t, newConfigCmd, "set", "groq_api_key", "gsk-test")
	if err != nil {
		t.Fatal(err)
	}
	want := "aidex: groq_api_key is an old name, read as providers.groq.api_key: rename it (aidex config set providers.groq.api_key KEY)\n"
	if errOut != want {
		t.Errorf("stderr %q, want %q", errOut, want)
	}
	if !strings.HasPrefix(out, "providers.groq.api_key set in ") {
		t.Errorf("stdout %q", out)
	}
}

// The line mode asks for the Cloudflare account id and API token when
// image_provider = "cloudflare" lacks them, stores them and generates
// the image (issue 23 item 18: asked in the terminal setup).
func TestPlainAsksCloudflareImageSettings(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + strings.Repeat("\x01", 64))
	var path, auth string
	cf := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path, auth = r.URL.Path, r.Header.Get("Authorization")
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write(png)
	}))
	defer cf.Close()
	e := newE2E(t, llmtest.NewScript(t), "openai", "image_provider = \"cloudflare\"\nimage_base_url = \""+cf.URL+"/client/v4\"\n")
	out := plainRun(e, "/image a red dot -o dot\nacc42\ncf-token\n", nil)
	for _, want := range []string{"Cloudflare account ID (on the Workers AI page", "Cloudflare API token with Workers AI access", "saved the Cloudflare image settings", "saved dot.png"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	if path != "/client/v4/accounts/acc42/ai/run/@cf/black-forest-labs/flux-1-schnell" || auth != "Bearer cf-token" {
		t.Errorf("request %s with %q", path, auth)
	}
	cfg, err := os.ReadFile(filepath.Join(e.home, ".config", "aidex", "config.toml"))
	if err != nil || !strings.Contains(string(cfg), `cloudflare_account_id = "acc42"`) || !strings.Contains(string(cfg), `image_api_key = "cf-token"`) {
		t.Errorf("config file:\n%s (%v)", cfg, err)
	}
}

// The line mode asks which image provider when none is set (the AIdex
// wizard), remembers the choice in the global config file, then asks
// the chosen provider's own settings (issue 36 item 13).
func TestPlainAsksImageProvider(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + strings.Repeat("\x01", 64))
	var path string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path = r.URL.Path
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write(png)
	}))
	defer srv.Close()
	e := newE2E(t, llmtest.NewScript(t), "openai", "image_base_url = \""+srv.URL+"\"\n")
	out := plainRun(e, "/image a red dot -o dot\npollinations\n", nil)
	for _, want := range []string{"no image provider is set: pick one", "Image provider (1 pollinations, 2 openai, 3 cloudflare, 4 together",
		"saved the pollinations image settings", "saved dot.png"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	if path != "/prompt/a red dot" {
		t.Errorf("request %s", path)
	}
	cfg, err := os.ReadFile(filepath.Join(e.home, ".config", "aidex", "config.toml"))
	if err != nil || !strings.Contains(string(cfg), `image_provider = "pollinations"`) {
		t.Errorf("config file:\n%s (%v)", cfg, err)
	}
	out = plainRun(e, "/image a blue dot -o blue\n", nil)
	if !strings.Contains(out, "saved blue.png") || strings.Contains(out, "Image provider") {
		t.Errorf("the choice is not remembered:\n%s", out)
	}
}

// `aidex web --verbose` logs the request fields it ignored on stderr
// (issue 23 item 20).
func TestWebVerboseLogsIgnoredFields(t *testing.T) {
	e := newE2E(t, llmtest.NewScript(t), "openai", "")
	w := &webRun{out: &sharedtest.Buffer{}, errOut: &sharedtest.Buffer{}, done: make(chan error, 1)}
	a := newApp(Process{Chat: chat.Run, Stdout: w.out, Stderr: w.errOut, Getenv: func(k string) string { return e.env[k] }})
	a.flags.workspace, a.flags.verbose = e.ws, true
	cmd := newWebCmd(a)
	cmd.SetArgs([]string{"--port", "0"})
	ctx, cancel := context.WithCancel(context.Background())
	w.cancel = cancel
	t.Cleanup(cancel)
	go func() { w.done <- cmd.ExecuteContext(ctx) }()
	url := w.waitURL(t)
	token := url[strings.Index(url, "token=")+len("token="):]
	base := strings.TrimSuffix(url[:strings.Index(url, "?")], "/")
	req, _ := http.NewRequest(http.MethodPost, base+"/api/models/switch", strings.NewReader(`{"model":"scripted","color":"blue"}`))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("switch with an unknown field: %d", resp.StatusCode)
	}
	w.stop(t)
	if log := w.errOut.String(); !strings.Contains(log, "level=DEBUG") || !strings.Contains(log, `json: unknown field \"color\"`) {
		t.Errorf("stderr has no debug line for the ignored field:\n%s", log)
	}
}
