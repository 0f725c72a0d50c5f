package web

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/llm/llmtest"
)

const testToken = "test-token-0123456789abcdefghijklmnopqrstuvwxyz"

// env is a temp home, a workspace and a running web server whose provider
// "fake" is a scripted model.
type env struct {
	t      testing.TB
	home   string
	ws     string
	vars   map[string]string
	srv    *Server
	ts     *httptest.Server
	client *http.Client
}

func newEnv(t testing.TB, model *llmtest.Script, extraConfig string) *env {
	t.Helper()
	root := t.TempDir()
	e := &env{t: t, home: filepath.Join(root, "home"), ws: filepath.Join(root, "ws")}
	for _, d := range []string{e.home, e.ws, filepath.Join(e.home, ".config", "aidex")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	base := "http://127.0.0.1:1/v1"
	if model != nil {
		base = model.URL + "/v1"
	}
	cfg := "provider = \"fake\"\nmodel = \"m1\"\nmax_retries = 0\n" + extraConfig +
		"\n[providers.fake]\ntype = \"openai\"\nbase_url = \"" + base + "\"\napi_key = \"test-key\"\nmodels = [\"m1\", \"m2\"]\n"
	if err := os.WriteFile(filepath.Join(e.home, ".config", "aidex", "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	e.vars = map[string]string{
		"HOME": e.home, "XDG_CONFIG_HOME": filepath.Join(e.home, ".config"), "XDG_DATA_HOME": filepath.Join(e.home, ".local", "share"),
		"XDG_STATE_HOME": filepath.Join(e.home, ".local", "state"), "XDG_CACHE_HOME": filepath.Join(e.home, ".cache"),
		"PATH": os.Getenv("PATH"),
	}
	srv, err := New(context.Background(), Options{Setup: app.Options{Workspace: e.ws, Getenv: func(k string) string { return e.vars[k] }},
		Token: testToken, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	e.srv = srv
	e.ts = httptest.NewUnstartedServer(nil)
	e.ts.Config.Handler = srv.Handler(e.ts.Listener.Addr())
	e.ts.Start()
	t.Cleanup(func() {
		e.ts.Close()
		_ = srv.Close()
	})
	e.client = e.ts.Client()
	return e
}

func (e *env) write(name, content string) string {
	e.t.Helper()
	p := filepath.Join(e.ws, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
	return p
}

func (e *env) read(name string) string {
	e.t.Helper()
	data, err := os.ReadFile(filepath.Join(e.ws, name))
	if err != nil {
		e.t.Fatal(err)
	}
	return string(data)
}

// req builds an authenticated request; body (when not nil) is sent as
// JSON (a string is sent as is).
func (e *env) req(method, path string, body any) *http.Request {
	e.t.Helper()
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		r = strings.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			e.t.Fatal(err)
		}
		r = strings.NewReader(string(data))
	}
	req, err := http.NewRequest(method, e.ts.URL+path, r)
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return req
}

// do sends req and returns the status and body.
func (e *env) do(req *http.Request) (int, []byte, http.Header) {
	e.t.Helper()
	resp, err := e.client.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return resp.StatusCode, data, resp.Header
}

// call sends an authenticated request and decodes a JSON answer into out
// (when not nil); it returns the status.
func (e *env) call(method, path string, body, out any) int {
	e.t.Helper()
	if method == http.MethodPost && body == nil {
		body = map[string]any{}
	}
	status, data, _ := e.do(e.req(method, path, body))
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			e.t.Fatalf("%s %s: %d %s: %v", method, path, status, data, err)
		}
	}
	return status
}

// sseEvent is one Server-Sent Event.
type sseEvent struct {
	Name string
	Data map[string]any
}

// readSSE reads events from r until the stream ends, calling each (when
// not nil) for every event as it arrives.
func readSSE(t testing.TB, r io.Reader, each func(sseEvent)) []sseEvent {
	t.Helper()
	var out []sseEvent
	eachSSE(t, r, func(ev sseEvent) {
		out = append(out, ev)
		if each != nil {
			each(ev)
		}
	})
	return out
}

// eachSSE reads SSE events from r and passes each to each, keeping none
// (the long stream benchmarks measure the server's heap, not the reader's).
func eachSSE(t testing.TB, r io.Reader, each func(sseEvent)) {
	t.Helper()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 16<<20)
	var cur sseEvent
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			cur.Name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &cur.Data); err != nil {
				t.Errorf("bad SSE data %q: %v", line, err)
			}
		case line == "":
			if cur.Name != "" {
				each(cur)
			}
			cur = sseEvent{}
		}
	}
}

func names(evs []sseEvent) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.Name
	}
	return out
}

func readFileErr(e *env, name string) ([]byte, error) {
	return os.ReadFile(filepath.Join(e.ws, name))
}
