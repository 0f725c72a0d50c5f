package llm_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/llm/anthropic"
	"github.com/zelvior/aidex/internal/llm/gemini"
	"github.com/zelvior/aidex/internal/llm/ollama"
	"github.com/zelvior/aidex/internal/llm/openai"
	"github.com/zelvior/aidex/internal/llm/responses"
)

// growingConversation returns the messages of turn k of a session: a
// prompt, then per turn an assistant message with a tool call and its
// result (a grep output with quotes, tabs and HTML characters), as the
// engine sends them.
func growingConversation(k int) []llm.Message {
	msgs := []llm.Message{llm.UserText("Fix the failing test in <pkg> & explain.")}
	for i := 0; i < k; i++ {
		id := fmt.Sprintf("call_%d", i)
		msgs = append(msgs,
			llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{{Type: llm.PartText, Text: fmt.Sprintf("Step %d.", i)},
				{Type: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: id, Name: "grep", Arguments: json.RawMessage(fmt.Sprintf(`{"pattern":"h%d","path":"."}`, i))}}}},
			llm.ToolResults(llm.ToolResult{CallID: id, Name: "grep", Content: fmt.Sprintf("a.go:%d: if x < 1 && y > \"2\" {\n\tb.go:3: ok", i)}))
	}
	return msgs
}

// capture is a model server that records each request body and answers
// with an error (the clients' answers do not matter here).
func capture(t *testing.T) (*httptest.Server, func() [][]byte) {
	var mu sync.Mutex
	var bodies [][]byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, b)
		mu.Unlock()
		http.Error(w, `{"error":{"message":"test"}}`, http.StatusBadRequest)
	}))
	t.Cleanup(srv.Close)
	return srv, func() [][]byte { mu.Lock(); defer mu.Unlock(); return bodies }
}

// conversationField names each wire format's conversation array.
var conversationField = map[string]string{"openai": "messages", "responses": "input", "anthropic": "messages", "gemini": "contents", "ollama": "messages"}

// split returns a request body's top-level fields but the conversation,
// and the conversation's elements, each as its raw JSON; Anthropic's
// cache_control breakpoints are taken out (they move to the newest
// message by design, and are no part of the cached prefix).
func split(t *testing.T, body []byte, field string) (map[string]string, [][]byte) {
	t.Helper()
	var top map[string]jsontext.Value
	if err := json.Unmarshal(body, &top); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	rest := map[string]string{}
	var items [][]byte
	for k, v := range top {
		if k != field {
			rest[k] = string(bytes.ReplaceAll(v, []byte(`,"cache_control":{"type":"ephemeral"}`), nil))
			continue
		}
		var list []jsontext.Value
		if err := json.Unmarshal(v, &list); err != nil {
			t.Fatal(err)
		}
		for _, it := range list {
			items = append(items, bytes.ReplaceAll(it, []byte(`,"cache_control":{"type":"ephemeral"}`), nil))
		}
	}
	return rest, items
}

// The request prefix (system prompt, tools, earlier messages) stays byte
// for byte the same from turn to turn for every wire format, so the
// providers' prompt caches hit: nothing in it is reordered, re-dated or
// re-encoded differently. Each turn's conversation starts with the whole
// of the previous turn's.
func TestRequestPrefixIsStable(t *testing.T) {
	srv, bodies := capture(t)
	o := llm.Options{BaseURL: srv.URL, APIKey: "k"}
	clients := map[string]llm.Client{
		"openai": openai.New(openai.Options{Options: o}), "responses": responses.New(o), "anthropic": anthropic.New(o),
		"gemini": gemini.New(o), "ollama": ollama.New(ollama.Options{Options: o, NumCtx: 8192}),
	}
	tools := []llm.Tool{{Name: "grep", Description: "Search <files> & dirs.", Parameters: json.RawMessage(`{"type":"object","properties":{"pattern":{"type":"string"},"path":{"type":"string"}},"required":["pattern"]}`)},
		{Name: "read_file", Description: "Read a file."}}
	for name, c := range clients {
		t.Run(name, func(t *testing.T) {
			start := len(bodies())
			for k := 0; k < 4; k++ {
				req := &llm.Request{Model: "m", System: "You are aidex.\nWorkspace: /w", Messages: growingConversation(k), Tools: tools,
					MaxTokens: 1000, Stream: true, CacheControl: true}
				_, _ = c.Generate(context.Background(), req, nil)
			}
			got := bodies()[start:]
			if len(got) != 4 {
				t.Fatalf("%d requests", len(got))
			}
			field := conversationField[name]
			prevRest, prevItems := split(t, got[0], field)
			for k := 1; k < len(got); k++ {
				rest, items := split(t, got[k], field)
				for key, v := range prevRest {
					if rest[key] != v {
						t.Errorf("turn %d: field %q changed:\n%s\nwas\n%s", k, key, rest[key], v)
					}
				}
				if len(rest) != len(prevRest) {
					t.Errorf("turn %d: %d top-level fields, was %d", k, len(rest), len(prevRest))
				}
				if len(items) <= len(prevItems) {
					t.Fatalf("turn %d: the conversation did not grow (%d items, was %d)", k, len(items), len(prevItems))
				}
				for i := range prevItems {
					if !bytes.Equal(items[i], prevItems[i]) {
						t.Errorf("turn %d: earlier item %d changed:\n%s\nwas\n%s", k, i, items[i], prevItems[i])
					}
				}
				prevRest, prevItems = rest, items
			}
		})
	}
}
