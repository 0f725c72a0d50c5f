package web

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// POST /api/models/switch refuses a model the provider's live list does not
// hold, naming the closest, as /model does: the check is the service's.
func TestModelSwitchRefusesUnknownModel(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/models") {
			_, _ = w.Write([]byte(`{"object":"list","data":[{"id":"llama-3.3-70b-versatile"}]}`))
			return
		}
		http.Error(w, "no", http.StatusTeapot)
	}))
	t.Cleanup(srv.Close)
	e := newEnv(t, nil, "\n[providers.groq]\nbase_url = \""+srv.URL+"/v1\"\napi_key = \"k\"\n")
	req := e.req(http.MethodPost, "/api/models/switch", map[string]any{"model": "groq/llama-3.3-70b"})
	code, body, _ := e.do(req)
	if code != http.StatusBadRequest || !strings.Contains(string(body), "closest: llama-3.3-70b-versatile") {
		t.Fatalf("unknown model: %d %s", code, body)
	}
	var out map[string]any
	if code := e.call(http.MethodPost, "/api/models/switch", map[string]any{"model": "groq/llama-3.3-70b-versatile"}, &out); code != http.StatusOK || out["provider"] != "groq" {
		t.Fatalf("known model: %d %v", code, out)
	}
}
