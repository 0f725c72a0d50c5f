package web

import (
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/zelvior/aidex/internal/attacktest"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// TestWebAttacks replays the web cases of ../shared/security/attacks.jsonl
// against the real endpoints (aidex's API names differ from the cases':
// /api/chat for messages, /api/approvals/{id} for approvals, /api/fs/read
// for files). Cases covered elsewhere are named in the table's comment.
//
// E-097 TestConfigGetMasksAndPostAllowlist; E-101, E-103, E-108
// TestOriginCheck; E-102, E-106 TestNoTokenIs401 and TestWebCommand;
// E-104 TestPreflightDenied; E-109 TestNoEndpointReturnsToken; E-111,
// E-114, E-116, E-117 TestHostCheck; E-127, E-128 TestBrowser; E-150
// TestBodyCap; E-187 TestChatConflictAndStop. E-137 (session files 0600)
// belongs to the session store.
func TestWebAttacks(t *testing.T) {
	model := llmtest.NewScript(t)
	e := newEnv(t, model, "")
	_, port, _ := net.SplitHostPort(e.ts.Listener.Addr().String())

	t.Run("E-099 foreign origin text/plain message", func(t *testing.T) {
		req := e.req(http.MethodPost, "/api/chat", `{"message":"run rm -rf"}`)
		req.Header.Set("Origin", "https://evil.example")
		req.Header.Set("Content-Type", "text/plain")
		if st, _, _ := e.do(req); st != http.StatusForbidden {
			t.Errorf("%d, want 403", st)
		}
		if len(model.Requests()) != 0 {
			t.Error("a message reached the model")
		}
	})
	t.Run("E-112 rebinding with matching origin", func(t *testing.T) {
		req := e.req(http.MethodPost, "/api/chat", map[string]any{"message": "x"})
		req.Host = "evil.example:" + port
		req.Header.Set("Origin", "http://evil.example:"+port)
		if st, _, _ := e.do(req); st != http.StatusForbidden {
			t.Errorf("%d, want 403", st)
		}
		if len(model.Requests()) != 0 {
			t.Error("a message reached the model")
		}
	})
	t.Run("E-151 concurrent runs are capped", func(t *testing.T) {
		hang := llmtest.NewScript(t, llmtest.Turn{Text: "busy", Hang: true})
		e2 := newEnv(t, hang, "")
		e2.srv.opts.MaxRuns = 1
		resp, err := e2.client.Do(e2.req(http.MethodPost, "/api/chat", map[string]any{"message": "one"}))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		select {
		case <-hang.Started:
		case <-time.After(10 * time.Second):
			t.Fatal("the first run never started")
		}
		var out map[string]any
		e2.call(http.MethodPost, "/api/history/clear", nil, &out)
		if st, _ := e2.chat(map[string]any{"message": "two", "session_id": out["session_id"]}, nil); st != http.StatusTooManyRequests {
			t.Errorf("second run over the cap: %d, want 429", st)
		}
	})
}

// TestAttackFileListsWebCases makes sure every web case of the shared
// attack file is named in TestWebAttacks' comment (so a new case is not
// silently skipped). It skips when the shared folder is not beside the
// repository.
func TestAttackFileListsWebCases(t *testing.T) {
	src, err := os.ReadFile("attacks_test.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range attacktest.Load(t) {
		if strings.HasPrefix(c.Surface, "web:") && !strings.Contains(string(src), c.ID) {
			t.Errorf("web case %s (%s) is not covered", c.ID, c.Surface)
		}
	}
}
