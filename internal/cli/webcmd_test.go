package cli

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/sharedtest"
	"github.com/zelvior/aidex/internal/ui/chat"
	"github.com/zelvior/aidex/internal/ui/web"
)

// TestWebCommand runs `aidex web --port 0` (built directly: the lead adds
// newWebCmd to commandBuilders), checks the printed URL line, the 0600
// token file, token auth over the real listener, and a clean shutdown.
func TestWebCommand(t *testing.T) {
	srv := llmtest.NewScript(t)
	e := newE2E(t, srv, "openai", "")
	w := startWebCmd(t, e)
	url := w.waitURL(t)
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.Contains(url, "/?token=") {
		t.Fatalf("URL line %q", url)
	}
	token := url[strings.Index(url, "token=")+len("token="):]
	if len(token) < 22 {
		t.Errorf("token %q is shorter than 128 bits", token)
	}
	base := strings.TrimSuffix(url[:strings.Index(url, "?")], "/")
	file := checkTokenFile(t, e, url, token)
	checkTokenAuth(t, base, token)
	w.stop(t)
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Error("the token file was left behind")
	}
}

// TestWebCommandOpen: --open hands the browser opener a one-time code,
// never the token (its command line is visible in ps); the code buys the
// token cookie once over the real listener.
func TestWebCommandOpen(t *testing.T) {
	srv := llmtest.NewScript(t)
	e := newE2E(t, srv, "openai", "")
	w := startWebCmd(t, e, "--open")
	url := w.waitURL(t)
	token := url[strings.Index(url, "token=")+len("token="):]
	var link string
	select {
	case link = <-w.opened:
	case <-time.After(10 * time.Second):
		t.Fatal("--open opened nothing")
	}
	if strings.Contains(link, token) || !strings.Contains(link, "/?code=") {
		t.Fatalf("opened %q: want a code URL without the token", link)
	}
	base := link[:strings.Index(link, "/?code=")]
	code := link[strings.Index(link, "code=")+len("code="):]
	for i, want := range []int{http.StatusNoContent, http.StatusUnauthorized} {
		req, _ := http.NewRequest(http.MethodPost, base+"/auth/code", strings.NewReader(`{"code":"`+code+`"}`))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("exchange %d: %d, want %d", i+1, resp.StatusCode, want)
		}
		if i == 0 && (len(resp.Cookies()) != 1 || resp.Cookies()[0].Value != token) {
			t.Errorf("exchange: cookies %v", resp.Cookies())
		}
	}
	w.stop(t)
}

// webRun is `aidex web` running in the background.
type webRun struct {
	out, errOut *sharedtest.Buffer
	cancel      context.CancelFunc
	done        chan error
	opened      chan string // URLs handed to the browser opener
}

// startWebCmd starts `aidex web --port 0 [args]` in e's workspace, with a
// browser opener that records the URL; the test's end cancels it.
func startWebCmd(t *testing.T, e *e2e, args ...string) *webRun {
	w := &webRun{out: &sharedtest.Buffer{}, errOut: &sharedtest.Buffer{}, done: make(chan error, 1), opened: make(chan string, 4)}
	a := newApp(Process{Chat: chat.Run, Stdout: w.out, Stderr: w.errOut, Getenv: func(k string) string { return e.env[k] },
		OpenURL: func(u string) error { w.opened <- u; return nil }})
	a.flags.workspace = e.ws
	cmd := newWebCmd(a)
	cmd.SetArgs(append([]string{"--port", "0"}, args...))
	cmd.SetOut(w.out)
	cmd.SetErr(w.errOut)
	ctx, cancel := context.WithCancel(context.Background())
	w.cancel = cancel
	t.Cleanup(cancel)
	go func() { w.done <- cmd.ExecuteContext(ctx) }()
	return w
}

// waitURL waits (20 s) for the "aidex web: URL" line and returns the URL.
func (w *webRun) waitURL(t *testing.T) string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if line, ok := strings.CutPrefix(strings.TrimSpace(w.out.String()), "aidex web: "); ok {
			return line
		}
		if time.Now().After(deadline) {
			w.cancel()
			t.Fatalf("no URL line; stdout %q stderr %q", w.out.String(), w.errOut.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stop cancels the command and checks that it ends (10 s) without error.
func (w *webRun) stop(t *testing.T) {
	t.Helper()
	w.cancel()
	select {
	case err := <-w.done:
		if err != nil {
			t.Errorf("shutdown: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("aidex web did not stop")
	}
}

// checkTokenFile checks the one token file under the state directory
// (mode 0600, holding token and url) and returns its path.
func checkTokenFile(t *testing.T, e *e2e, url, token string) string {
	files, _ := filepath.Glob(filepath.Join(e.home, ".local", "state", "aidex", "web", "*.json"))
	if len(files) != 1 {
		t.Fatalf("token files: %v", files)
	}
	st, err := os.Stat(files[0])
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %v %v, want 0600", st.Mode().Perm(), err)
	}
	var tf web.TokenFile
	data, _ := os.ReadFile(files[0])
	if json.Unmarshal(data, &tf) != nil || tf.Token != token || tf.URL != url {
		t.Errorf("token file %s", data)
	}
	return files[0]
}

// checkTokenAuth checks over the real listener that /api/status is 401
// without the token and answers with it.
func checkTokenAuth(t *testing.T, base, token string) {
	req, _ := http.NewRequest(http.MethodGet, base+"/api/status", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("no token: %d", resp.StatusCode)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"provider":"fake"`) {
		t.Errorf("status: %d %s", resp.StatusCode, body)
	}
}

func TestWebCommandBadPort(t *testing.T) {
	a := newApp(Process{Chat: chat.Run, Stdout: io.Discard, Stderr: io.Discard})
	cmd := newWebCmd(a)
	cmd.SetArgs([]string{"--port", "70000"})
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), "--port") {
		t.Errorf("--port 70000: %v", err)
	}
}

// aidex web raises the collector's target unless the user chose one.
func TestTuneGC(t *testing.T) {
	prev, changed := tuneGC(func(string) string { return "" })
	defer debug.SetGCPercent(prev)
	if !changed || debug.SetGCPercent(prev) != web.GCPercent {
		t.Fatalf("GOGC unset: changed=%v, want the collector at %d", changed, web.GCPercent)
	}
	if _, changed := tuneGC(func(k string) string { return map[string]string{"GOGC": "50"}[k] }); changed {
		t.Error("GOGC set by the user: tuneGC must leave it")
	}
}
