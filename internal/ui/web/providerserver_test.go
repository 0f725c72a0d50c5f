package web

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// Switching to a provider defined in config without a models list (a
// keyless local server) works: the session takes the first model the
// server lists (issue 30 item 10).
func TestSwitchToProviderWithoutModels(t *testing.T) {
	box := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			t.Errorf("a keyless server got Authorization %q", r.Header.Get("Authorization"))
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"object":"list","data":[{"id":"qwen3-coder"},{"id":"llama-3"}]}`))
	}))
	defer box.Close()
	e := newEnv(t, nil, "\n[providers.box]\ntype = \"openai\"\nbase_url = \""+box.URL+"/v1\"\napi_key_env = \"BOX_KEY\"\n")
	var out map[string]any
	if code := e.call(http.MethodPost, "/api/provider/switch", map[string]any{"provider": "box"}, &out); code != http.StatusOK {
		t.Fatalf("switch: %d %v", code, out)
	}
	if out["provider"] != "box" || out["model"] != "llama-3" {
		t.Errorf("switched to %v/%v, want box/llama-3 (the server's first, sorted)", out["provider"], out["model"])
	}
}
