package ollama

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// serve starts a server answering every request with status and body,
// recording the last request body and Authorization header.
func serve(t *testing.T, status int, body string) (*httptest.Server, func() (string, []byte)) {
	t.Helper()
	var mu sync.Mutex
	var auth string
	var got []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		mu.Lock()
		auth, got = r.Header.Get("Authorization"), data
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-ndjson")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv, func() (string, []byte) {
		mu.Lock()
		defer mu.Unlock()
		return auth, got
	}
}

func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

const (
	textLine = `{"model":"m","message":{"role":"assistant","content":"partial"},"done":false}`
	doneLine = `{"model":"m","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","prompt_eval_count":3,"eval_count":4}`
)

func run(t *testing.T, c *Client, req *llm.Request) (*llm.Response, error) {
	t.Helper()
	if req == nil {
		req = &llm.Request{Model: "m", Stream: true, Messages: []llm.Message{llm.UserText("hi")}}
	}
	resp, err := c.Generate(context.Background(), req, nil)
	if resp == nil {
		t.Fatal("nil response")
	}
	return resp, err
}

func TestRequestShape(t *testing.T) {
	srv, got := serve(t, 200, lines(doneLine))
	temp := 0.5
	req := &llm.Request{
		Model: "qwen3:8b", System: "sys", MaxTokens: 100, Temperature: &temp, ReasoningEffort: "high", Stream: true,
		Tools: []llm.Tool{{Name: "read", Description: "d", Parameters: json.RawMessage(`{"type":"object","properties":{"p":{"type":"string"}}}`)}, {Name: "now"}},
		Messages: []llm.Message{
			{Role: llm.RoleUser, Parts: []llm.Part{{Type: llm.PartText, Text: "see"}, {Type: llm.PartImage, Data: []byte{1, 2, 3}}, {Type: llm.PartImage, URL: "data:image/png;base64,BAUG"}}},
			{Role: llm.RoleAssistant, Parts: []llm.Part{
				{Type: llm.PartReasoning, Text: "hmm"},
				{Type: llm.PartText, Text: "ok"},
				{Type: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: "call_0", Name: "read", Arguments: json.RawMessage(`{"p":"a"}`)}},
				{Type: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: "call_1", Name: "read", Arguments: json.RawMessage(`"{bad"`), ArgsError: "x"}},
			}},
			llm.ToolResults(llm.ToolResult{CallID: "call_0", Name: "read", Content: "A"}),
		},
	}
	c := New(Options{Options: llm.Options{BaseURL: srv.URL + "/v1/", APIKey: "k"}, NumCtx: 32768})
	if _, err := run(t, c, req); err != nil {
		t.Fatal(err)
	}
	auth, body := got()
	if auth != "Bearer k" {
		t.Errorf("Authorization %q", auth)
	}
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"model": "qwen3:8b", "stream": true, "think": true,
		"options": map[string]any{"num_predict": 100.0, "num_ctx": 32768.0, "temperature": 0.5},
		"messages": []any{
			map[string]any{"role": "system", "content": "sys"},
			map[string]any{"role": "user", "content": "see", "images": []any{"AQID", "BAUG"}},
			map[string]any{"role": "assistant", "content": "ok", "thinking": "hmm", "tool_calls": []any{
				map[string]any{"id": "call_0", "function": map[string]any{"name": "read", "arguments": map[string]any{"p": "a"}}},
				map[string]any{"id": "call_1", "function": map[string]any{"name": "read", "arguments": map[string]any{}}},
			}},
			map[string]any{"role": "tool", "content": "A", "tool_name": "read", "tool_call_id": "call_0"},
		},
		"tools": []any{
			map[string]any{"type": "function", "function": map[string]any{"name": "read", "description": "d", "parameters": map[string]any{"type": "object", "properties": map[string]any{"p": map[string]any{"type": "string"}}}}},
			map[string]any{"type": "function", "function": map[string]any{"name": "now", "parameters": map[string]any{"type": "object", "properties": map[string]any{}}}},
		},
	}
	for k, v := range want {
		if !reflect.DeepEqual(m[k], v) {
			g, _ := json.MarshalIndent(m[k], "", " ")
			t.Errorf("%s:\n%s", k, g)
		}
	}
}

func TestThink(t *testing.T) {
	cases := []struct {
		model, effort string
		budget        int
		want          any // nil: absent
	}{
		{"qwen3", "", 0, nil},
		{"qwen3", "low", 0, true},
		{"qwen3", "", 1024, true},
		{"gpt-oss:20b", "medium", 0, "medium"},
		{"gpt-oss:20b", "minimal", 0, "low"},
		{"gpt-oss:20b", "", 500, true},
	}
	for _, c := range cases {
		srv, got := serve(t, 200, lines(doneLine))
		req := &llm.Request{Model: c.model, ReasoningEffort: c.effort, ThinkingBudget: c.budget, Messages: []llm.Message{llm.UserText("hi")}}
		if _, err := run(t, New(Options{Options: llm.Options{BaseURL: srv.URL}}), req); err != nil {
			t.Fatal(err)
		}
		_, body := got()
		var m map[string]any
		_ = json.Unmarshal(body, &m)
		if v, ok := m["think"]; (c.want == nil && ok) || (c.want != nil && v != c.want) {
			t.Errorf("%s/%s/%d: think %v, want %v", c.model, c.effort, c.budget, v, c.want)
		}
		if _, ok := m["options"]; ok {
			t.Errorf("options sent with nothing to set: %v", m["options"])
		}
		if m["stream"] != false {
			t.Errorf("stream %v, want an explicit false (Ollama streams by default)", m["stream"])
		}
	}
}

func TestBadInput(t *testing.T) {
	srv, _ := serve(t, 200, lines(doneLine))
	c := New(Options{Options: llm.Options{BaseURL: srv.URL}})
	cases := map[string]*llm.Request{
		"no model":     {Messages: []llm.Message{llm.UserText("hi")}},
		"image URL":    {Model: "m", Messages: []llm.Message{{Role: llm.RoleUser, Parts: []llm.Part{{Type: llm.PartImage, URL: "https://x.test/a.png"}}}}},
		"bad data URL": {Model: "m", Messages: []llm.Message{{Role: llm.RoleUser, Parts: []llm.Part{{Type: llm.PartImage, URL: "data:image/png;base64,@@"}}}}},
		"empty image":  {Model: "m", Messages: []llm.Message{{Role: llm.RoleUser, Parts: []llm.Part{{Type: llm.PartImage}}}}},
		"unknown role": {Model: "m", Messages: []llm.Message{{Role: "x"}}},
	}
	for name, req := range cases {
		if _, err := run(t, c, req); llm.KindOf(err) != llm.KindBadRequest {
			t.Errorf("%s: got %v, want bad_request", name, err)
		}
	}
}

func TestToolCallsAndThinking(t *testing.T) {
	srv, _ := serve(t, 200, lines(
		`{"model":"qwen3","message":{"role":"assistant","content":"","thinking":"I should "},"done":false}`,
		`{"model":"qwen3","message":{"role":"assistant","content":"","thinking":"read."},"done":false}`,
		`{"model":"qwen3","message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"read","arguments":{"path":"a"}}},{"function":{"index":1,"name":"now","arguments":{}}}]},"done":false}`,
		`{"model":"qwen3","message":{"role":"assistant","content":"","tool_calls":[{"id":"call_xyz","function":{"name":"read","arguments":{"path":"b"}}}]},"done":false}`,
		`{"model":"qwen3","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","prompt_eval_count":10,"eval_count":20}`,
	))
	var events []llm.EventType
	resp, err := New(Options{Options: llm.Options{BaseURL: srv.URL}}).Generate(context.Background(),
		&llm.Request{Model: "qwen3", Stream: true, Messages: []llm.Message{llm.UserText("hi")}},
		func(e llm.Event) { events = append(events, e.Type) })
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Reasoning() != "I should read." {
		t.Errorf("reasoning %q", resp.Message.Reasoning())
	}
	var got []string
	for _, c := range resp.Message.ToolCalls() {
		got = append(got, c.ID+" "+c.Name+" "+string(c.Arguments))
	}
	want := []string{`call_0 read {"path":"a"}`, `call_1 now {}`, `call_xyz read {"path":"b"}`}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("calls %q, want %q", got, want)
	}
	if resp.FinishReason != "stop" || resp.Usage != (llm.Usage{InputTokens: 10, OutputTokens: 20}) {
		t.Errorf("finish %q usage %+v", resp.FinishReason, resp.Usage)
	}
	wantEvents := []llm.EventType{llm.EventReasoning, llm.EventReasoning, llm.EventToolCall, llm.EventToolCall, llm.EventToolCall, llm.EventUsage, llm.EventFinish}
	if !reflect.DeepEqual(events, wantEvents) {
		t.Errorf("events %v", events)
	}
}

func TestNonStreamed(t *testing.T) {
	srv, _ := serve(t, 200, `{"model":"m","message":{"role":"assistant","content":"whole"},"done":true,"done_reason":"length","prompt_eval_count":1,"eval_count":2}`)
	resp, err := run(t, New(Options{Options: llm.Options{BaseURL: srv.URL}}), &llm.Request{Model: "m", Messages: []llm.Message{llm.UserText("hi")}})
	if err != nil || resp.Message.Text() != "whole" || resp.FinishReason != "length" || resp.Usage.OutputTokens != 2 {
		t.Fatalf("resp %+v err %v", resp, err)
	}
}

func TestHTTPErrors(t *testing.T) {
	cases := []struct {
		status int
		body   string
		kind   llm.ErrorKind
		inMsg  string
	}{
		{404, `{"error":"model 'nope' not found, try pulling it first"}`, llm.KindNotFound, "not found"},
		{400, `{"error":"invalid options"}`, llm.KindBadRequest, "invalid options"},
		{500, `{"error":"llama runner process has terminated"}`, llm.KindServer, "terminated"},
	}
	for _, c := range cases {
		srv, _ := serve(t, c.status, c.body)
		_, err := run(t, New(Options{Options: llm.Options{BaseURL: srv.URL}}), nil)
		var ae *llm.APIError
		if !errors.As(err, &ae) || ae.Kind != c.kind || !strings.Contains(err.Error(), c.inMsg) {
			t.Errorf("%d: got %v, want kind %s", c.status, err, c.kind)
		}
	}
}

// TestStreamFaults covers how a stream may end and that the partial answer
// survives.
func TestStreamFaults(t *testing.T) {
	cases := []struct {
		name, body string
		kind       llm.ErrorKind
		text       string
	}{
		{"done", lines(textLine, doneLine), "", "partial"},
		{"done without trailing newline", textLine + "\n" + doneLine, "", "partial"},
		{"blank lines and CRLF", "\r\n" + textLine + "\r\n\r\n" + doneLine + "\r\n", "", "partial"},
		{"cut: EOF before done", lines(textLine), llm.KindStreamCut, "partial"},
		{"cut mid-line", lines(textLine) + `{"model":"m","message":{"content":"x`, llm.KindStreamCut, "partial"},
		{"malformed line", lines(textLine, "this is not json", doneLine), llm.KindStream, "partial"},
		{"error line", lines(textLine, `{"error":"an error was encountered while running the model"}`), llm.KindStream, "partial"},
		{"empty body", "", llm.KindStreamCut, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv, _ := serve(t, 200, c.body)
			resp, err := run(t, New(Options{Options: llm.Options{BaseURL: srv.URL}}), nil)
			if c.kind == "" && err != nil {
				t.Fatalf("unexpected error %v", err)
			}
			if c.kind != "" && llm.KindOf(err) != c.kind {
				t.Fatalf("got %v (kind %s), want %s", err, llm.KindOf(err), c.kind)
			}
			if resp.Message.Text() != c.text {
				t.Errorf("text %q, want %q", resp.Message.Text(), c.text)
			}
		})
	}
}

// faults describes a cut Ollama stream for the shared fault checks (served
// without a Content-Type, as the client needs none).
func faults() llmtest.Faults {
	return llmtest.Faults{New: func(o llm.Options) llm.Client { return New(Options{Options: o}) },
		Request: &llm.Request{Model: "m", Stream: true, Messages: []llm.Message{llm.UserText("hi")}},
		Partial: lines(textLine), Text: "partial"}
}

func TestIdleTimeout(t *testing.T) { faults().IdleTimeout(t, 100*time.Millisecond) }

// TestSlowFirstByte: a model on a CPU reading a long prompt sends its
// headers and then nothing for minutes; the idle timeout must not end that
// wait (only request_timeout does), so the answer still arrives.
func TestSlowFirstByte(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		select { // a hundred idle timeouts
		case <-time.After(100 * time.Millisecond):
		case <-r.Context().Done():
			return
		}
		_, _ = io.WriteString(w, lines(textLine, doneLine))
	}))
	defer srv.Close()
	c := New(Options{Options: llm.Options{BaseURL: srv.URL, RequestTimeout: time.Hour, IdleTimeout: time.Millisecond, Local: true}})
	resp, err := run(t, c, nil)
	if err != nil || resp.Message.Text() != "partial" {
		t.Fatalf("got %q, %v; want the answer", resp.Message.Text(), err)
	}
}

func TestIdleTimeoutMidLine(t *testing.T) {
	srv := llmtest.HangAfter(t, "", lines(textLine)+`{"model":"m","mess`)
	_, err := run(t, New(Options{Options: llm.Options{BaseURL: srv.URL, IdleTimeout: 100 * time.Millisecond}}), nil)
	if llm.KindOf(err) != llm.KindTimeout {
		t.Fatalf("got %v, want a timeout, not a cut", err)
	}
}

func TestCancel(t *testing.T) { faults().Cancel(t) }

func TestNetworkError(t *testing.T) { faults().NetworkError(t) }

func TestLongLine(t *testing.T) {
	big := strings.Repeat("x", 100<<10)
	srv, _ := serve(t, 200, lines(`{"model":"m","message":{"content":"`+big+`"},"done":false}`, doneLine))
	resp, err := run(t, New(Options{Options: llm.Options{BaseURL: srv.URL}}), nil)
	if err != nil || len(resp.Message.Text()) != len(big) {
		t.Fatalf("err %v, text of %d bytes", err, len(resp.Message.Text()))
	}
}

func TestBaseURLForms(t *testing.T) {
	for _, base := range []string{"", "http://h:1", "http://h:1/", "http://h:1/v1", "http://h:1/api/"} {
		c := New(Options{Options: llm.Options{BaseURL: base}})
		want := "http://h:1/api/chat"
		if base == "" {
			want = DefaultBaseURL + "/api/chat"
		}
		if c.url != want {
			t.Errorf("%q: url %q, want %q", base, c.url, want)
		}
	}
}
