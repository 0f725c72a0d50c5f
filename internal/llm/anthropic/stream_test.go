package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zelvior/aidex/internal/llm"
)

// reply is one canned HTTP response.
type reply struct {
	status int
	header map[string]string
	body   string
}

// script serves replies in order (the last one repeats) and records the
// request bodies.
type script struct {
	mu      sync.Mutex
	replies []reply
	bodies  [][]byte
}

func (s *script) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	n := len(s.bodies)
	s.bodies = append(s.bodies, body)
	rep := s.replies[min(n, len(s.replies)-1)]
	s.mu.Unlock()
	for k, v := range rep.header {
		w.Header().Set(k, v)
	}
	if rep.status == 0 {
		rep.status = http.StatusOK
	}
	w.WriteHeader(rep.status)
	_, _ = io.WriteString(w, rep.body)
}

func (s *script) calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.bodies)
}

func serve(t *testing.T, replies ...reply) (*Client, *script) {
	t.Helper()
	s := &script{replies: replies}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return New(llm.Options{BaseURL: srv.URL + "/v1/", APIKey: "k", KeyEnv: "ANTHROPIC_API_KEY"}), s
}

// sseBody joins events written as "name data" pairs into an SSE body.
func sseBody(events ...string) string {
	var b strings.Builder
	for _, e := range events {
		name, data, _ := strings.Cut(e, " ")
		b.WriteString("event: " + name + "\ndata: " + data + "\n\n")
	}
	return b.String()
}

const (
	evStart = `message_start {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[],"stop_reason":null,"usage":{"input_tokens":10,"cache_creation_input_tokens":5,"cache_read_input_tokens":100,"output_tokens":1}}}`
	evText0 = `content_block_start {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`
	evHello = `content_block_delta {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}`
	evStop0 = `content_block_stop {"type":"content_block_stop","index":0}`
	evDelta = `message_delta {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":42}}`
	evEnd   = `message_stop {"type":"message_stop"}`
	evOver  = `error {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`
	body529 = `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`
)

func streamReq() *llm.Request {
	return &llm.Request{Model: "claude-x", Stream: true, Messages: []llm.Message{llm.UserText("hi")}}
}

// noSleep is a retry policy that does not wait.
func noSleep(retries int) llm.RetryPolicy {
	return llm.RetryPolicy{MaxRetries: retries, Sleep: func(context.Context, time.Duration) error { return nil }}
}

func TestStreamUsageAndEvents(t *testing.T) {
	c, _ := serve(t, reply{body: sseBody(evStart, `ping {"type": "ping"}`, evText0, evHello, evStop0, evDelta, evEnd)})
	var usages []llm.Usage
	var types []llm.EventType
	resp, err := c.Generate(context.Background(), streamReq(), func(e llm.Event) {
		types = append(types, e.Type)
		if e.Type == llm.EventUsage {
			usages = append(usages, *e.Usage)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	mustEqual(t, "Hello", resp.Message.Text())
	mustEqual(t, "end_turn", resp.FinishReason)
	mustEqual(t, "msg_1", resp.ID)
	mustEqual(t, "claude-x", resp.Model)
	first := llm.Usage{InputTokens: 115, OutputTokens: 1, CacheReadTokens: 100, CacheWriteTokens: 5}
	final := llm.Usage{InputTokens: 115, OutputTokens: 42, CacheReadTokens: 100, CacheWriteTokens: 5}
	mustEqual(t, []llm.Usage{first, final}, usages, "usage is cumulative: message_delta keeps the input counts of message_start")
	mustEqual(t, final, resp.Usage)
	mustEqual(t, []llm.EventType{llm.EventUsage, llm.EventText, llm.EventFinish, llm.EventUsage}, types)
	mustEqual(t, `{"type":"message_stop"}`, string(resp.Raw))
}

func TestStreamThinkingAndToolUse(t *testing.T) {
	c, s := serve(t, reply{body: sseBody(evStart,
		`content_block_start {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`,
		`content_block_delta {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Let me "}}`,
		`content_block_delta {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"think."}}`,
		`content_block_delta {"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"SIG=="}}`,
		`content_block_stop {"type":"content_block_stop","index":0}`,
		`content_block_start {"type":"content_block_start","index":1,"content_block":{"type":"redacted_thinking","data":"REDACTED"}}`,
		`content_block_stop {"type":"content_block_stop","index":1}`,
		`content_block_start {"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_A","name":"read","input":{}}}`,
		`content_block_delta {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":""}}`,
		`content_block_delta {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"path\": \"a"}}`,
		`content_block_delta {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":".go\"}"}}`,
		`content_block_stop {"type":"content_block_stop","index":2}`,
		`content_block_start {"type":"content_block_start","index":3,"content_block":{"type":"tool_use","id":"toolu_B","name":"ls","input":{}}}`,
		`content_block_stop {"type":"content_block_stop","index":3}`,
		`message_delta {"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":7}}`,
		evEnd)})
	var callsSeen []string
	resp, err := c.Generate(context.Background(), streamReq(), func(e llm.Event) {
		if e.Type == llm.EventToolCall {
			callsSeen = append(callsSeen, e.ToolCall.ID)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.Part{
		{Type: llm.PartReasoning, Text: "Let me think.", Signature: "SIG=="},
		{Type: llm.PartReasoning, Signature: "REDACTED", Redacted: true},
		{Type: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: "toolu_A", Name: "read", Arguments: json.RawMessage(`{"path": "a.go"}`)}},
		{Type: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: "toolu_B", Name: "ls", Arguments: json.RawMessage(`{}`)}},
	}
	mustEqual(t, want, resp.Message.Parts)
	mustEqual(t, []string{"toolu_A", "toolu_B"}, callsSeen)
	mustEqual(t, "tool_use", resp.FinishReason)

	// The next request sends the blocks back unchanged.
	next := &llm.Request{Model: "claude-x", ThinkingBudget: 2048, Messages: []llm.Message{
		llm.UserText("hi"), resp.Message,
		llm.ToolResults(llm.ToolResult{CallID: "toolu_A", Content: "package a"}, llm.ToolResult{CallID: "toolu_B", Content: "a.go"}),
	}}
	if _, err := c.Generate(context.Background(), next, nil); err == nil {
		t.Fatal("the canned non-JSON reply should fail a non-streamed request")
	}
	var sent struct {
		Messages []struct {
			Role    string           `json:"role"`
			Content []map[string]any `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(s.bodies[1], &sent); err != nil {
		t.Fatal(err)
	}
	mustLen(t, sent.Messages, 3)
	mustEqual(t, []map[string]any{
		{"type": "thinking", "thinking": "Let me think.", "signature": "SIG=="},
		{"type": "redacted_thinking", "data": "REDACTED"},
		{"type": "tool_use", "id": "toolu_A", "name": "read", "input": map[string]any{"path": "a.go"}},
		{"type": "tool_use", "id": "toolu_B", "name": "ls", "input": map[string]any{}},
	}, sent.Messages[1].Content)
	mustEqual(t, "user", sent.Messages[2].Role)
	mustLen(t, sent.Messages[2].Content, 2)
}

func TestServerToolUseIsNotAClientCall(t *testing.T) {
	c, _ := serve(t, reply{body: sseBody(evStart,
		`content_block_start {"type":"content_block_start","index":0,"content_block":{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{}}}`,
		`content_block_delta {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"query\":\"x\"}"}}`,
		`content_block_stop {"type":"content_block_stop","index":0}`,
		`content_block_start {"type":"content_block_start","index":1,"content_block":{"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":[]}}`,
		`content_block_stop {"type":"content_block_stop","index":1}`,
		`content_block_start {"type":"content_block_start","index":2,"content_block":{"type":"text","text":"","citations":[]}}`,
		`content_block_delta {"type":"content_block_delta","index":2,"delta":{"type":"citations_delta","citation":{"type":"web_search_result_location","cited_text":"c"}}}`,
		`content_block_delta {"type":"content_block_delta","index":2,"delta":{"type":"text_delta","text":"Found it."}}`,
		`content_block_stop {"type":"content_block_stop","index":2}`,
		evDelta, evEnd)})
	var events int
	resp, err := c.Generate(context.Background(), streamReq(), func(e llm.Event) {
		if e.Type == llm.EventToolCall {
			events++
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	mustEqual(t, "Found it.", resp.Message.Text())
	mustLen(t, resp.Message.ToolCalls(), 0)
	mustZero(t, events)
}

func TestOverloaded529IsRetried(t *testing.T) {
	c, s := serve(t,
		reply{status: 529, header: map[string]string{"Content-Type": "application/json"}, body: body529},
		reply{body: sseBody(evStart, evText0, evHello, evStop0, evDelta, evEnd)},
	)
	var retried []llm.ErrorKind
	pol := noSleep(3)
	pol.OnRetry = func(_ int, err error, _ time.Duration) { retried = append(retried, llm.KindOf(err)) }
	resp, err := llm.Retry(c, pol).Generate(context.Background(), streamReq(), nil)
	if err != nil {
		t.Fatal(err)
	}
	mustEqual(t, "Hello", resp.Message.Text())
	mustEqual(t, 2, s.calls())
	mustEqual(t, []llm.ErrorKind{llm.KindOverloaded}, retried)

	// Without retries the 529 surfaces as an overloaded APIError.
	c, _ = serve(t, reply{status: 529, body: body529})
	_, err = c.Generate(context.Background(), streamReq(), nil)
	var ae *llm.APIError
	if !errors.As(err, &ae) || ae.Kind != llm.KindOverloaded || ae.Status != 529 || ae.Type != "overloaded_error" || ae.Message != "Overloaded" {
		t.Fatalf("got %#v", err)
	}
}

func TestInStreamOverloadedError(t *testing.T) {
	t.Run("before any output: retried", func(t *testing.T) {
		c, s := serve(t,
			reply{body: sseBody(evStart, `ping {"type":"ping"}`, evOver)},
			reply{body: sseBody(evStart, evText0, evHello, evStop0, evDelta, evEnd)},
		)
		resp, err := llm.Retry(c, noSleep(2)).Generate(context.Background(), streamReq(), nil)
		if err != nil {
			t.Fatal(err)
		}
		mustEqual(t, "Hello", resp.Message.Text())
		mustEqual(t, 2, s.calls())
	})
	t.Run("after output: not retried, partial answer kept", func(t *testing.T) {
		c, s := serve(t,
			reply{body: sseBody(evStart, evText0, evHello, evOver)},
			reply{body: sseBody(evStart, evText0, evHello, evStop0, evDelta, evEnd)},
		)
		resp, err := llm.Retry(c, noSleep(2)).Generate(context.Background(), streamReq(), nil)
		mustEqual(t, llm.KindOverloaded, llm.KindOf(err))
		mustErrorContains(t, err, "Overloaded")
		mustEqual(t, "Hello", resp.Message.Text())
		mustEqual(t, 1, s.calls())
	})
	t.Run("other error types", func(t *testing.T) {
		c, _ := serve(t, reply{body: sseBody(evStart, `error {"type":"error","error":{"type":"api_error","message":"Internal"}}`)})
		_, err := c.Generate(context.Background(), streamReq(), nil)
		mustEqual(t, llm.KindStream, llm.KindOf(err))
		mustErrorContains(t, err, "Internal")
	})
}

func TestHTTPErrors(t *testing.T) {
	cases := []struct {
		status int
		body   string
		kind   llm.ErrorKind
		hint   string
	}{
		{401, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`, llm.KindAuth, "check ANTHROPIC_API_KEY"},
		{404, `{"type":"error","error":{"type":"not_found_error","message":"model: claude-x"}}`, llm.KindNotFound, `model "claude-x" not found`},
		{400, `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}`, llm.KindContextTooLong, "compact it"},
		{429, `{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`, llm.KindRateLimit, "rate limited"},
	}
	for _, c := range cases {
		t.Run(c.hint, func(t *testing.T) {
			cl, s := serve(t, reply{status: c.status, body: c.body, header: map[string]string{"retry-after": "3600"}})
			_, err := llm.Retry(cl, noSleep(2)).Generate(context.Background(), streamReq(), nil)
			mustEqual(t, c.kind, llm.KindOf(err))
			mustErrorContains(t, err, c.hint)
			mustEqual(t, 1, s.calls(), "not retried (4xx, or a retry-after beyond the policy's wait)")
		})
	}
}

func TestStreamCut(t *testing.T) {
	c, _ := serve(t, reply{body: sseBody(evStart, evText0, evHello,
		`content_block_start {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_A","name":"read","input":{}}}`,
		`content_block_delta {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"pa"}}`)})
	resp, err := c.Generate(context.Background(), streamReq(), nil)
	mustEqual(t, llm.KindStreamCut, llm.KindOf(err))
	mustEqual(t, "Hello", resp.Message.Text(), "the partial answer is kept")
	mustLen(t, resp.Message.ToolCalls(), 0, "a tool call without content_block_stop is incomplete")
}

func TestMalformedStream(t *testing.T) {
	c, _ := serve(t, reply{body: "event: message_start\ndata: {not json\n\n"})
	_, err := c.Generate(context.Background(), streamReq(), nil)
	mustEqual(t, llm.KindStream, llm.KindOf(err))
	mustErrorContains(t, err, "malformed stream event")
}

func TestIdleTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, sseBody(evStart, evText0, evHello))
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	c := New(llm.Options{BaseURL: srv.URL, IdleTimeout: 100 * time.Millisecond})
	resp, err := c.Generate(context.Background(), streamReq(), nil)
	mustEqual(t, llm.KindTimeout, llm.KindOf(err))
	mustEqual(t, "Hello", resp.Message.Text())
}

func TestCancel(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, sseBody(evStart, evText0, evHello))
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	ctx, cancel := context.WithCancel(context.Background())
	c := New(llm.Options{BaseURL: srv.URL})
	resp, err := c.Generate(ctx, streamReq(), func(e llm.Event) {
		if e.Type == llm.EventText {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	mustEqual(t, "Hello", resp.Message.Text())
}

func TestNonStreamed(t *testing.T) {
	c, s := serve(t, reply{header: map[string]string{"Content-Type": "application/json"}, body: `{
		"id":"msg_2","type":"message","role":"assistant","model":"claude-x",
		"content":[
			{"type":"thinking","thinking":"hmm","signature":"S1"},
			{"type":"text","text":"Let me look."},
			{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"q"}},
			{"type":"tool_use","id":"toolu_1","name":"read","input":{"path":"x"}}
		],
		"stop_reason":"tool_use",
		"usage":{"input_tokens":3,"cache_creation_input_tokens":0,"cache_read_input_tokens":7,"output_tokens":9}}`})
	req := &llm.Request{Model: "claude-x", Messages: []llm.Message{llm.UserText("hi")}}
	resp, err := c.Generate(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	mustEqual(t, []llm.Part{
		{Type: llm.PartReasoning, Text: "hmm", Signature: "S1"},
		{Type: llm.PartText, Text: "Let me look."},
		{Type: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: "toolu_1", Name: "read", Arguments: json.RawMessage(`{"path":"x"}`)}},
	}, resp.Message.Parts)
	mustEqual(t, llm.Usage{InputTokens: 10, OutputTokens: 9, CacheReadTokens: 7}, resp.Usage)
	mustEqual(t, "tool_use", resp.FinishReason)
	var sent map[string]any
	if err := json.Unmarshal(s.bodies[0], &sent); err != nil {
		t.Fatal(err)
	}
	mustNotContains(t, sent, "stream")
}

func TestNonStreamedErrorBodyWith200(t *testing.T) {
	c, _ := serve(t, reply{body: body529})
	_, err := c.Generate(context.Background(), &llm.Request{Model: "m", Messages: []llm.Message{llm.UserText("hi")}}, nil)
	mustEqual(t, llm.KindOverloaded, llm.KindOf(err))
}

func TestDefaultsAndHeaders(t *testing.T) {
	c := New(llm.Options{})
	mustEqual(t, "anthropic", c.opts.Name)
	mustEqual(t, DefaultBaseURL, c.opts.BaseURL)
	mustEqual(t, map[string]string{"anthropic-version": APIVersion}, c.headers(), "no x-api-key without a key")

	var got http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
		_, _ = io.WriteString(w, sseBody(evStart, evDelta, evEnd))
	}))
	defer srv.Close()
	c = New(llm.Options{BaseURL: srv.URL, APIKey: "sk-ant", Headers: map[string]string{"anthropic-beta": "interleaved-thinking-2025-05-14"}})
	if _, err := c.Generate(context.Background(), streamReq(), nil); err != nil {
		t.Fatal(err)
	}
	mustEqual(t, "sk-ant", got.Get("x-api-key"))
	mustEqual(t, APIVersion, got.Get("anthropic-version"))
	mustEqual(t, "interleaved-thinking-2025-05-14", got.Get("anthropic-beta"))
	mustEqual(t, "application/json", got.Get("Content-Type"))
}
