package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// serve starts a server answering with replies in order (the last one
// repeats) and returns a client for it.
func serve(t *testing.T, replies ...llmtest.Reply) (*Client, *llmtest.Server) {
	t.Helper()
	s := llmtest.ServeReplies(t, replies...)
	return New(llm.Options{BaseURL: s.URL + "/v1/", APIKey: "k", KeyEnv: "ANTHROPIC_API_KEY"}), s
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

// faults describes a cut Anthropic stream for the shared fault checks.
func faults() llmtest.Faults {
	return llmtest.Faults{New: func(o llm.Options) llm.Client { return New(o) }, Request: streamReq(),
		ContentType: "text/event-stream", Partial: sseBody(evStart, evText0, evHello), Text: "Hello"}
}

func TestStreamUsageAndEvents(t *testing.T) {
	c, _ := serve(t, llmtest.Reply{Body: sseBody(evStart, `ping {"type": "ping"}`, evText0, evHello, evStop0, evDelta, evEnd)})
	var usages []llm.Usage
	var types []llm.EventType
	req := streamReq()
	req.KeepRaw = true // as --raw asks
	resp, err := c.Generate(context.Background(), req, func(e llm.Event) {
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
	// --raw shows the whole streamed response: every event, in order.
	var raw []map[string]any
	if err := json.Unmarshal(resp.Raw, &raw); err != nil {
		t.Fatalf("raw is not the JSON array of the events: %v\n%s", err, resp.Raw)
	}
	mustEqual(t, "message_start", raw[0]["type"])
	mustEqual(t, "message_stop", raw[len(raw)-1]["type"])
	mustEqual(t, true, strings.Contains(string(resp.Raw), `"Hello"`) || strings.Contains(string(resp.Raw), `"Hel`))
}

func TestStreamThinkingAndToolUse(t *testing.T) {
	c, s := serve(t, llmtest.Reply{Body: sseBody(evStart,
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
	if err := json.Unmarshal(s.Requests()[1].Body, &sent); err != nil {
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
	c, _ := serve(t, llmtest.Reply{Body: sseBody(evStart,
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
		llmtest.Reply{Status: 529, Header: map[string]string{"Content-Type": "application/json"}, Body: body529},
		llmtest.Reply{Body: sseBody(evStart, evText0, evHello, evStop0, evDelta, evEnd)},
	)
	var retried []llm.ErrorKind
	pol := llmtest.NoSleep(3)
	pol.OnRetry = func(_ int, err error, _ time.Duration) { retried = append(retried, llm.KindOf(err)) }
	resp, err := llm.Retry(c, pol).Generate(context.Background(), streamReq(), nil)
	if err != nil {
		t.Fatal(err)
	}
	mustEqual(t, "Hello", resp.Message.Text())
	mustEqual(t, 2, s.Calls())
	mustEqual(t, []llm.ErrorKind{llm.KindOverloaded}, retried)

	// Without retries the 529 surfaces as an overloaded APIError.
	c, _ = serve(t, llmtest.Reply{Status: 529, Body: body529})
	_, err = c.Generate(context.Background(), streamReq(), nil)
	var ae *llm.APIError
	if !errors.As(err, &ae) || ae.Kind != llm.KindOverloaded || ae.Status != 529 || ae.Type != "overloaded_error" || ae.Message != "Overloaded" {
		t.Fatalf("got %#v", err)
	}
}

func TestInStreamOverloadedError(t *testing.T) {
	t.Run("before any output: retried", func(t *testing.T) {
		c, s := serve(t,
			llmtest.Reply{Body: sseBody(evStart, `ping {"type":"ping"}`, evOver)},
			llmtest.Reply{Body: sseBody(evStart, evText0, evHello, evStop0, evDelta, evEnd)},
		)
		resp, err := llm.Retry(c, llmtest.NoSleep(2)).Generate(context.Background(), streamReq(), nil)
		if err != nil {
			t.Fatal(err)
		}
		mustEqual(t, "Hello", resp.Message.Text())
		mustEqual(t, 2, s.Calls())
	})
	t.Run("after output: not retried, partial answer kept", func(t *testing.T) {
		c, s := serve(t,
			llmtest.Reply{Body: sseBody(evStart, evText0, evHello, evOver)},
			llmtest.Reply{Body: sseBody(evStart, evText0, evHello, evStop0, evDelta, evEnd)},
		)
		resp, err := llm.Retry(c, llmtest.NoSleep(2)).Generate(context.Background(), streamReq(), nil)
		mustEqual(t, llm.KindOverloaded, llm.KindOf(err))
		mustErrorContains(t, err, "Overloaded")
		mustEqual(t, "Hello", resp.Message.Text())
		mustEqual(t, 1, s.Calls())
	})
	t.Run("other error types", func(t *testing.T) {
		c, _ := serve(t, llmtest.Reply{Body: sseBody(evStart, `error {"type":"error","error":{"type":"api_error","message":"Internal"}}`)})
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
			cl, s := serve(t, llmtest.Reply{Status: c.status, Body: c.body, Header: map[string]string{"retry-after": "3600"}})
			_, err := llm.Retry(cl, llmtest.NoSleep(2)).Generate(context.Background(), streamReq(), nil)
			mustEqual(t, c.kind, llm.KindOf(err))
			mustErrorContains(t, err, c.hint)
			mustEqual(t, 1, s.Calls(), "not retried (4xx, or a retry-after beyond the policy's wait)")
		})
	}
}

func TestStreamCut(t *testing.T) {
	c, _ := serve(t, llmtest.Reply{Body: sseBody(evStart, evText0, evHello,
		`content_block_start {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_A","name":"read","input":{}}}`,
		`content_block_delta {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"pa"}}`)})
	resp, err := c.Generate(context.Background(), streamReq(), nil)
	mustEqual(t, llm.KindStreamCut, llm.KindOf(err))
	mustEqual(t, "Hello", resp.Message.Text(), "the partial answer is kept")
	mustLen(t, resp.Message.ToolCalls(), 0, "a tool call without content_block_stop is incomplete")
}

func TestMalformedStream(t *testing.T) {
	c, _ := serve(t, llmtest.Reply{Body: "event: message_start\ndata: {not json\n\n"})
	_, err := c.Generate(context.Background(), streamReq(), nil)
	mustEqual(t, llm.KindStream, llm.KindOf(err))
	mustErrorContains(t, err, "malformed stream event")
}

func TestIdleTimeout(t *testing.T) { faults().IdleTimeout(t, 100*time.Millisecond) }

// TestCancel serves the stream without a Content-Type: the client does not
// need one.
func TestCancel(t *testing.T) {
	f := faults()
	f.ContentType = ""
	f.Cancel(t)
}

func TestNonStreamed(t *testing.T) {
	c, s := serve(t, llmtest.Reply{Header: map[string]string{"Content-Type": "application/json"}, Body: `{
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
	if err := json.Unmarshal(s.Requests()[0].Body, &sent); err != nil {
		t.Fatal(err)
	}
	mustNotContains(t, sent, "stream")
}

func TestNonStreamedErrorBodyWith200(t *testing.T) {
	c, _ := serve(t, llmtest.Reply{Body: body529})
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
