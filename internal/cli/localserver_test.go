package cli

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// keylessServer is an OpenAI-compatible server that needs no key: it
// lists models on GET /v1/models and answers chats with the script. It
// records the Authorization headers it got.
type keylessServer struct {
	*httptest.Server
	script *llmtest.Script
	mu     sync.Mutex
	auth   []string
	models []string
}

func newKeylessServer(t *testing.T, models []string, turns ...llmtest.Turn) *keylessServer {
	t.Helper()
	ks := &keylessServer{script: llmtest.NewScript(t, turns...), models: models}
	ks.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ks.mu.Lock()
		ks.auth = append(ks.auth, r.Header.Get("Authorization"))
		ks.mu.Unlock()
		if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models") {
			var data []map[string]any
			for _, m := range ks.models {
				data = append(data, map[string]any{"id": m, "object": "model", "owned_by": "local"})
			}
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
			return
		}
		ks.script.Config.Handler.ServeHTTP(w, r)
	}))
	t.Cleanup(ks.Close)
	return ks
}

// authHeaders returns the Authorization headers received so far.
func (ks *keylessServer) authHeaders() []string {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	return append([]string(nil), ks.auth...)
}

// readmeLocalSnippet returns the `[providers.local]` TOML block of
// docs/getting-started.md (the first run with a local server), as a user
// would copy it.
func readmeLocalSnippet(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "getting-started.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile("(?s)```toml\n(.*?)```").FindAllStringSubmatch(string(data), -1) {
		if strings.Contains(m[1], "[providers.local]") {
			return dedent(m[1])
		}
	}
	t.Fatal("docs/getting-started.md has no ```toml block with [providers.local]")
	return ""
}

// dedent removes the indentation of the block's first line from every
// line (the snippet sits in a list item).
func dedent(s string) string {
	lines := strings.Split(s, "\n")
	indent := lines[0][:len(lines[0])-len(strings.TrimLeft(lines[0], " "))]
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(l, indent)
	}
	return strings.Join(lines, "\n")
}

// The getting-started page's snippet for an OpenAI-compatible server, pasted as is
// (only its base_url pointed at the test server), works against a server
// that needs no key while LOCAL_API_KEY is unset: the run answers, no
// key is sent, and one notice names the unset variable.
func TestReadmeLocalSnippetWorksKeyless(t *testing.T) {
	srv := newKeylessServer(t, []string{"qwen3-coder-30b"}, llmtest.Turn{Text: "hello from local"})
	snippet := readmeLocalSnippet(t)
	cfg := regexp.MustCompile(`base_url = "[^"]*"`).ReplaceAllString(snippet, `base_url = "`+srv.URL+`/v1"`)
	if cfg == snippet {
		t.Fatalf("the snippet has no base_url to point at the test server:\n%s", snippet)
	}
	e := newE2E(t, llmtest.NewScript(t), "openai", "")
	if err := os.WriteFile(filepath.Join(e.home, ".config", "aidex", "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	r := e.run(context.Background(), "-p", "hi")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "hello from local") {
		t.Errorf("stdout %q lacks the answer", r.stdout)
	}
	if n := strings.Count(r.stderr, "LOCAL_API_KEY"); n != 1 {
		t.Errorf("stderr names LOCAL_API_KEY %d times, want one notice:\n%s", n, r.stderr)
	}
	for _, h := range srv.authHeaders() {
		if h != "" {
			t.Errorf("a keyless server got Authorization %q", h)
		}
	}
	if len(srv.script.Requests()) != 1 {
		t.Errorf("chat requests: %d, want 1", len(srv.script.Requests()))
	}
}

// A catalog provider that needs a key still refuses to start without it,
// naming the variable to set, even when [providers.NAME] points its
// api_key_env at another variable.
func TestCatalogProviderWithoutKeyNamesVariable(t *testing.T) {
	e := newE2E(t, llmtest.NewScript(t), "openai", "")
	cfg := "provider = \"groq\"\n\n[providers.groq]\napi_key_env = \"MY_GROQ_KEY\"\n"
	if err := os.WriteFile(filepath.Join(e.home, ".config", "aidex", "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	r := e.run(context.Background(), "-p", "hi")
	if r.code != 2 || !strings.Contains(r.stderr, "set MY_GROQ_KEY") {
		t.Fatalf("exit %d, want 2 naming MY_GROQ_KEY\nstderr: %s", r.code, r.stderr)
	}
}

// `aidex providers add` saves a keyless server under [providers.NAME],
// keeping the config file's other content and comments; the next run
// uses it (no model given: the server's first) without a key; adding
// the name again is refused (exit 2) and leaves the file alone.
func TestProvidersAddThenRun(t *testing.T) {
	srv := newKeylessServer(t, []string{"zeta-coder", "alpha-chat"}, llmtest.Turn{Text: "answer from the added server"})
	e := newE2E(t, llmtest.NewScript(t), "openai", "")
	cfgPath := filepath.Join(e.home, ".config", "aidex", "config.toml")
	orig := "# my settings, keep me\nmax_retries = 0 # inline comment\n"
	if err := os.WriteFile(cfgPath, []byte(orig), 0o600); err != nil {
		t.Fatal(err)
	}
	r := e.run(context.Background(), "providers", "add", "mybox", "--url", srv.URL+"/v1", "--key-env", "MYBOX_KEY")
	if r.code != 0 {
		t.Fatalf("providers add: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "alpha-chat, zeta-coder") || !strings.Contains(r.stderr, "MYBOX_KEY is not set") {
		t.Errorf("providers add output:\n%s%s", r.stdout, r.stderr)
	}
	data, _ := os.ReadFile(cfgPath)
	if !strings.HasPrefix(string(data), orig) || !strings.Contains(string(data), "[providers.mybox]") {
		t.Fatalf("config after add:\n%s", data)
	}
	r = e.run(context.Background(), "--provider", "mybox", "-p", "hi", "--output-format", "json")
	if r.code != 0 {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "answer from the added server") {
		t.Errorf("stdout: %s", r.stdout)
	}
	reqs := srv.script.Requests()
	if len(reqs) != 1 || !strings.Contains(string(reqs[0]), `"model":"alpha-chat"`) {
		t.Errorf("chat requests (want one to alpha-chat, the server's first): %s", reqs)
	}
	for _, h := range srv.authHeaders() {
		if h != "" {
			t.Errorf("Authorization %q sent to a keyless server", h)
		}
	}
	r = e.run(context.Background(), "providers", "add", "mybox", "--url", "http://127.0.0.1:1/v1")
	if r.code != 2 || !strings.Contains(r.stderr, "already in") {
		t.Errorf("second add: exit %d %s", r.code, r.stderr)
	}
	if again, _ := os.ReadFile(cfgPath); string(again) != string(data) {
		t.Errorf("a refused add changed the file:\n%s", again)
	}
	for _, bad := range [][]string{{"x"}, {"x", "--url", "ftp://a"}, {"Bad.Name", "--url", "http://a/v1"}, {"x", "--url", "http://a/v1", "--key-env", "NOT-A-VAR"}} {
		if r := e.run(context.Background(), append([]string{"providers", "add"}, bad...)...); r.code != 2 {
			t.Errorf("providers add %v: exit %d, want 2\n%s", bad, r.code, r.stderr)
		}
	}
}

// offlineFirstRun writes the config of a first run with no usable
// provider: no key, nothing on Ollama's port, and the key-free provider
// unreachable (its base URL a closed local port, standing in for being
// offline).
func offlineFirstRun(t *testing.T, e *e2e) {
	t.Helper()
	closed := llmtest.ClosedURL(t)
	cfg := "ollama_base_url = \"" + closed + "\"\n\n[providers.pollinations]\nbase_url = \"" + closed + "/v1\"\n"
	if err := os.WriteFile(filepath.Join(e.home, ".config", "aidex", "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
}

// A headless first run with no usable provider sends no request and
// prints, in a few lines, the three ways to get going: a local server, the
// key-free provider once online, a key; exit 2 (nothing is set up).
func TestHeadlessFirstRunNoProvider(t *testing.T) {
	e := newE2E(t, llmtest.NewScript(t), "openai", "")
	offlineFirstRun(t, e)
	r := e.run(context.Background(), "-p", "hi")
	if r.code != 2 {
		t.Fatalf("exit %d, want 2\nstderr: %s", r.code, r.stderr)
	}
	for _, want := range []string{"providers add", "pollinations", "OPENAI_API_KEY"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if n := strings.Count(strings.TrimSpace(r.stderr), "\n") + 1; n > 6 {
		t.Errorf("%d lines of help, want a few:\n%s", n, r.stderr)
	}
}

// `-c` comes back on the model the session last used, not the configured
// one, and says so on stderr; --model still wins.
func TestContinueComesBackOnSessionModel(t *testing.T) {
	srv := llmtest.NewScript(t, llmtest.Turn{Text: "one"}, llmtest.Turn{Text: "two"}, llmtest.Turn{Text: "three"})
	e := newE2E(t, srv, "openai", "")
	if r := e.run(context.Background(), "-m", "model-b", "-p", "first"); r.code != 0 {
		t.Fatalf("first: %d %s", r.code, r.stderr)
	}
	r := e.run(context.Background(), "-c", "-p", "second")
	if r.code != 0 {
		t.Fatalf("continue: %d %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "fake/model-b") {
		t.Errorf("the resume line does not name the model: %q", r.stderr)
	}
	if r := e.run(context.Background(), "-c", "-m", "model-c", "-p", "third"); r.code != 0 {
		t.Fatalf("continue -m: %d %s", r.code, r.stderr)
	}
	var models []string
	for _, raw := range srv.Requests() {
		var body struct{ Model string }
		_ = json.Unmarshal(raw, &body)
		models = append(models, body.Model)
	}
	if strings.Join(models, ",") != "model-b,model-b,model-c" {
		t.Errorf("models of the three runs: %v, want model-b, model-b (resumed), model-c (flag)", models)
	}
}

// The old custom_base_url / custom_chat_model keys are still read (provider
// custom, keyless) with a one-line deprecation warning.
func TestOldCustomKeysStillWorkWithWarning(t *testing.T) {
	srv := newKeylessServer(t, []string{"old-model"}, llmtest.Turn{Text: "still works"})
	e := newE2E(t, llmtest.NewScript(t), "openai", "")
	cfg := "provider = \"custom\"\ncustom_base_url = \"" + srv.URL + "/v1\"\ncustom_chat_model = \"old-model\"\n"
	if err := os.WriteFile(filepath.Join(e.home, ".config", "aidex", "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	r := e.run(context.Background(), "-p", "hi")
	if r.code != 0 || !strings.Contains(r.stdout, "still works") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if n := strings.Count(r.stderr, "deprecated"); n != 1 || !strings.Contains(r.stderr, "providers add") {
		t.Errorf("want one deprecation line naming `aidex providers add`:\n%s", r.stderr)
	}
}

// The line mode's /provider → custom asks for the server's base URL,
// lists its models to pick one, saves the server and switches to it, as
// the terminal UI does (issue 30 item 8).
func TestPlainProviderCustomAsksForServer(t *testing.T) {
	srv := newKeylessServer(t, []string{"zeta-coder", "alpha-chat"}, llmtest.Turn{Text: "answer from the picked model"})
	e := newE2E(t, llmtest.NewScript(t), "openai", "")
	out := plainRun(e, "/provider custom\n"+srv.URL+"/v1\nzeta-coder\nhello\n", nil)
	for _, want := range []string{"Base URL of your OpenAI-compatible server", "alpha-chat", "zeta-coder", "model zeta-coder", "answer from the picked model"} {
		if !strings.Contains(out, want) {
			t.Errorf("line mode output lacks %q:\n%s", want, out)
		}
	}
	reqs := srv.script.Requests()
	if len(reqs) != 1 || !strings.Contains(string(reqs[0]), `"model":"zeta-coder"`) {
		t.Errorf("chat requests (want one to the picked zeta-coder): %s", reqs)
	}
	data, _ := os.ReadFile(filepath.Join(e.home, ".config", "aidex", "config.toml"))
	if !strings.Contains(string(data), srv.URL+"/v1") {
		t.Errorf("the server was not saved in the config:\n%s", data)
	}
	// A bad pick is an error naming how to answer; nothing is saved.
	e2 := newE2E(t, llmtest.NewScript(t), "openai", "")
	out = plainRun(e2, "/provider custom\n"+srv.URL+"/v1\nnope\n", nil)
	if !strings.Contains(out, "not a listed model") {
		t.Errorf("a bad pick:\n%s", out)
	}
}
