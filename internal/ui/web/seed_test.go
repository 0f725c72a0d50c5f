package web

import (
	"bytes"
	"log/slog"
	"net/http"
	"strings"
	"testing"

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
