package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/ui/web"
)

// syncBuffer is a bytes.Buffer safe for a writer and a reader goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestWebCommand runs `aidex web --port 0` (built directly: the lead adds
// newWebCmd to commandBuilders), checks the printed URL line, the 0600
// token file, token auth over the real listener, and a clean shutdown.
func TestWebCommand(t *testing.T) {
	srv := llmtest.NewScript(t)
	e := newE2E(t, srv, "openai", "")
	var out, errOut syncBuffer
	a := newApp(Process{Stdout: &out, Stderr: &errOut, Getenv: func(k string) string { return e.env[k] }})
	a.flags.workspace = e.ws
	cmd := newWebCmd(a)
	cmd.SetArgs([]string{"--port", "0"})
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(ctx) }()
	var url string
	deadline := time.Now().Add(20 * time.Second)
	for url == "" {
		if line, ok := strings.CutPrefix(strings.TrimSpace(out.String()), "aidex web: "); ok {
			url = line
			break
		}
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("no URL line; stdout %q stderr %q", out.String(), errOut.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.Contains(url, "/?token=") {
		t.Fatalf("URL line %q", url)
	}
	token := url[strings.Index(url, "token=")+len("token="):]
	if len(token) < 22 {
		t.Errorf("token %q is shorter than 128 bits", token)
	}
	base := strings.TrimSuffix(url[:strings.Index(url, "?")], "/")
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
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("shutdown: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("aidex web did not stop")
	}
	if _, err := os.Stat(files[0]); !os.IsNotExist(err) {
		t.Error("the token file was left behind")
	}
}

func TestWebCommandBadPort(t *testing.T) {
	a := newApp(Process{Stdout: io.Discard, Stderr: io.Discard})
	cmd := newWebCmd(a)
	cmd.SetArgs([]string{"--port", "70000"})
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), "--port") {
		t.Errorf("--port 70000: %v", err)
	}
}
