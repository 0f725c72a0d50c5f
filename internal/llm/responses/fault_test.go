package responses

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/llm/llmtest"
)

func streamReq() *llm.Request {
	return &llm.Request{Model: "gpt-5", Stream: true, Messages: []llm.Message{llm.UserText("hi")}}
}

func sseEvent(typ, data string) string {
	return "event: " + typ + "\ndata: " + data + "\n\n"
}

var (
	evCreated   = sseEvent("response.created", `{"type":"response.created","response":{"id":"resp_1","model":"gpt-5","status":"in_progress","output":[]}}`)
	evText      = sseEvent("response.output_text.delta", `{"type":"response.output_text.delta","item_id":"msg_1","delta":"Hello"}`)
	evCallAdded = sseEvent("response.output_item.added", `{"type":"response.output_item.added","item":{"type":"function_call","id":"fc_1","call_id":"call_1","name":"f","arguments":""}}`)
	evArgs      = sseEvent("response.function_call_arguments.delta", `{"type":"response.function_call_arguments.delta","item_id":"fc_1","delta":"{\"a\":"}`)
	evArgs2     = sseEvent("response.function_call_arguments.delta", `{"type":"response.function_call_arguments.delta","item_id":"fc_1","delta":"1}"}`)
	evCallDone  = sseEvent("response.output_item.done", `{"type":"response.output_item.done","item":{"type":"function_call","id":"fc_1","call_id":"call_1","name":"f","arguments":""}}`)
	evCompleted = sseEvent("response.completed", `{"type":"response.completed","response":{"id":"resp_1","model":"gpt-5","status":"completed","output":[],"usage":{"input_tokens":10,"input_tokens_details":{"cached_tokens":4},"output_tokens":7,"output_tokens_details":{"reasoning_tokens":2}}}}`)
)

func serveBody(t *testing.T, ct, body string) string {
	t.Helper()
	return llmtest.ServeBody(t, 200, ct, body).URL
}

// faults describes a cut Responses stream for the shared fault checks.
func faults() llmtest.Faults {
	return llmtest.Faults{New: func(o llm.Options) llm.Client { return New(o) }, Request: streamReq(),
		ContentType: "text/event-stream", Partial: evCreated + evText, Text: "Hello", Tail: "event: response.output_text.delta\ndata: {\"ty"}
}

func TestHTTPErrors(t *testing.T) {
	cases := []struct {
		name   string
		status int
		header map[string]string
		body   string
		kind   llm.ErrorKind
		msgHas string
	}{
		{"bad key", 401, nil, `{"error":{"message":"Incorrect API key provided: sk-abc.","type":"invalid_request_error","code":"invalid_api_key"}}`, llm.KindAuth, "OPENAI_API_KEY"},
		{"unknown model", 404, nil, `{"error":{"message":"The model 'gpt-9' does not exist","type":"invalid_request_error","code":"model_not_found"}}`, llm.KindNotFound, "aidex models"},
		{"too long", 400, nil, `{"error":{"message":"Your input exceeds the context window of this model.","type":"invalid_request_error","code":"context_length_exceeded"}}`, llm.KindContextTooLong, "context window"},
		{"rate limit", 429, map[string]string{"Retry-After-Ms": "1500"}, `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`, llm.KindRateLimit, "Rate limit"},
		{"server", 500, nil, `{"error":{"message":"The server had an error","type":"server_error","code":null}}`, llm.KindServer, "server had an error"},
		{"bad request", 400, nil, `{"error":{"message":"Unsupported parameter: 'temperature'","type":"invalid_request_error","param":"temperature","code":"unsupported_parameter"}}`, llm.KindBadRequest, "temperature"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := llmtest.ServeReplies(t, llmtest.Reply{Status: c.status, Header: c.header, Body: c.body})
			resp, err := New(llm.Options{BaseURL: srv.URL, KeyEnv: "OPENAI_API_KEY"}).Generate(context.Background(), streamReq(), nil)
			var ae *llm.APIError
			if !errors.As(err, &ae) {
				t.Fatalf("error %v is not an *llm.APIError", err)
			}
			if ae.Kind != c.kind || ae.Status != c.status || ae.Provider != "openai" {
				t.Errorf("kind %s status %d provider %q, want %s %d", ae.Kind, ae.Status, ae.Provider, c.kind, c.status)
			}
			if !strings.Contains(err.Error(), c.msgHas) {
				t.Errorf("message %q lacks %q", err.Error(), c.msgHas)
			}
			if c.status == 429 && ae.RetryAfter != 1500*time.Millisecond {
				t.Errorf("retry-after %v", ae.RetryAfter)
			}
			if resp == nil || len(resp.Message.Parts) != 0 {
				t.Errorf("response %+v", resp)
			}
		})
	}
}

func TestStreamComplete(t *testing.T) {
	var events []llm.Event
	body := ": ping\n\n" + evCreated + evText + evCallAdded + evArgs + evArgs2 + evCallDone + evCompleted + "data: [DONE]\n\n"
	resp, err := New(llm.Options{BaseURL: serveBody(t, "text/event-stream", body)}).Generate(context.Background(), streamReq(), func(e llm.Event) { events = append(events, e) })
	if err != nil {
		t.Fatal(err)
	}
	calls := resp.Message.ToolCalls()
	if resp.Message.Text() != "Hello" || len(calls) != 1 || string(calls[0].Arguments) != `{"a":1}` || calls[0].ID != "call_1" {
		t.Fatalf("message %+v", resp.Message)
	}
	want := llm.Usage{InputTokens: 10, OutputTokens: 7, CacheReadTokens: 4, ReasoningTokens: 2}
	if resp.Usage != want || resp.FinishReason != "completed" || resp.ID != "resp_1" {
		t.Errorf("resp %+v", resp)
	}
	if n := len(events); n < 2 || events[n-2].Type != llm.EventUsage || events[n-1].Type != llm.EventFinish {
		t.Errorf("events should end with usage then finish: %+v", events)
	}
}

func TestStreamCut(t *testing.T) {
	cases := map[string]string{
		"text then EOF":           evCreated + evText,
		"call arguments then EOF": evCreated + evText + evCallAdded + evArgs,
		"empty body":              "",
		"done marker only":        evCreated + evText + "data: [DONE]\n\n",
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			resp, err := New(llm.Options{BaseURL: serveBody(t, "text/event-stream", body)}).Generate(context.Background(), streamReq(), nil)
			if llm.KindOf(err) != llm.KindStreamCut {
				t.Fatalf("error %v, want stream_cut", err)
			}
			if body != "" && resp.Message.Text() != "Hello" {
				t.Errorf("partial text %q", resp.Message.Text())
			}
			if len(resp.Message.ToolCalls()) != 0 {
				t.Error("an unfinished call was reported")
			}
		})
	}
}

func TestConnectionDropped(t *testing.T) { faults().ConnectionDropped(t) }

func TestMalformed(t *testing.T) {
	cases := map[string]struct {
		body   string
		stream bool
	}{
		"bad event line":          {evCreated + evText + "data: {not json\n\n" + evCompleted, true},
		"wrong field type":        {"data: {\"type\":\"response.output_text.delta\",\"delta\":5}\n\n", true},
		"completed w/o response":  {"data: {\"type\":\"response.completed\"}\n\n", true},
		"bad non-streamed object": {`{"output": [`, false},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			req := streamReq()
			req.Stream = c.stream
			_, err := New(llm.Options{BaseURL: serveBody(t, "text/event-stream", c.body)}).Generate(context.Background(), req, nil)
			if llm.KindOf(err) != llm.KindStream || !strings.Contains(err.Error(), "malformed") {
				t.Fatalf("error %v, want a malformed-stream error", err)
			}
		})
	}
}

func TestInStreamErrors(t *testing.T) {
	cases := []struct {
		name, event string
		kind        llm.ErrorKind
		msgHas      string
	}{
		{"failed server error", sseEvent("response.failed", `{"type":"response.failed","response":{"id":"r","status":"failed","error":{"code":"server_error","message":"The server had an error while processing your request."},"usage":{"input_tokens":5,"output_tokens":1}}}`), llm.KindServer, "server had an error"},
		{"failed rate limit", sseEvent("response.failed", `{"type":"response.failed","response":{"id":"r","status":"failed","error":{"code":"rate_limit_exceeded","message":"Slow down"}}}`), llm.KindRateLimit, "Slow down"},
		{"failed without error", sseEvent("response.failed", `{"type":"response.failed","response":{"id":"r","status":"failed","error":null}}`), llm.KindStream, "response failed"},
		{"error event top level", sseEvent("error", `{"type":"error","code":"context_length_exceeded","message":"Your input exceeds the context window","param":"input"}`), llm.KindContextTooLong, "context window"},
		{"error event nested", sseEvent("error", `{"type":"error","error":{"type":"invalid_request_error","code":"invalid_prompt","message":"Invalid prompt"}}`), llm.KindStream, "Invalid prompt"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, err := New(llm.Options{BaseURL: serveBody(t, "text/event-stream", evCreated+evText+c.event)}).Generate(context.Background(), streamReq(), nil)
			if llm.KindOf(err) != c.kind || !strings.Contains(err.Error(), c.msgHas) {
				t.Fatalf("error %v (kind %s), want %s containing %q", err, llm.KindOf(err), c.kind, c.msgHas)
			}
			if resp.Message.Text() != "Hello" {
				t.Errorf("partial text %q", resp.Message.Text())
			}
		})
	}
}

func TestIncomplete(t *testing.T) {
	body := evCreated + evText + sseEvent("response.incomplete", `{"type":"response.incomplete","response":{"id":"r","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"output":[],"usage":{"input_tokens":5,"output_tokens":9}}}`)
	resp, err := New(llm.Options{BaseURL: serveBody(t, "text/event-stream", body)}).Generate(context.Background(), streamReq(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.FinishReason != "max_output_tokens" || resp.Message.Text() != "Hello" || resp.Usage.OutputTokens != 9 {
		t.Errorf("resp %+v", resp)
	}
	// Non-streamed: status incomplete, and status failed.
	req := streamReq()
	req.Stream = false
	resp, err = New(llm.Options{BaseURL: serveBody(t, "application/json",
		`{"id":"r","status":"incomplete","incomplete_details":{"reason":"content_filter"},"output":[{"type":"message","id":"m","content":[{"type":"output_text","text":"par"}]}]}`)}).Generate(context.Background(), req, nil)
	if err != nil || resp.FinishReason != "content_filter" || resp.Message.Text() != "par" {
		t.Errorf("incomplete: resp %+v err %v", resp, err)
	}
	_, err = New(llm.Options{BaseURL: serveBody(t, "application/json",
		`{"id":"r","status":"failed","error":{"code":"server_error","message":"boom"},"output":[]}`)}).Generate(context.Background(), req, nil)
	if llm.KindOf(err) != llm.KindServer || !strings.Contains(err.Error(), "boom") {
		t.Errorf("failed: err %v", err)
	}
}

// TestFinalObjectOnly covers hosts that stream no item events and put the
// whole output in response.completed.
func TestFinalObjectOnly(t *testing.T) {
	body := sseEvent("response.completed", `{"type":"response.completed","response":{"id":"r","status":"completed","output":[`+
		`{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"think"}],"encrypted_content":"enc"},`+
		`{"type":"message","id":"m","content":[{"type":"output_text","text":"answer"}]},`+
		`{"type":"function_call","id":"fc","call_id":"c1","name":"f","arguments":"{}"}]}}`)
	resp, err := New(llm.Options{BaseURL: serveBody(t, "text/event-stream", body)}).Generate(context.Background(), streamReq(), nil)
	if err != nil {
		t.Fatal(err)
	}
	p := resp.Message.Parts
	if len(p) != 3 || p[0].Text != "think" || p[0].Signature != "enc" || p[0].ID != "rs_1" || p[1].Text != "answer" || p[2].ToolCall.ID != "c1" {
		t.Fatalf("parts %s", llmtest.JSONOf(t, p))
	}
}

// TestReasoningTextWithoutSummary covers open-weight reasoning models whose
// reasoning arrives as reasoning_text content rather than a summary.
func TestReasoningTextWithoutSummary(t *testing.T) {
	req := streamReq()
	req.Stream = false
	resp, err := New(llm.Options{BaseURL: serveBody(t, "application/json",
		`{"id":"r","status":"completed","output":[{"type":"reasoning","id":"rs_1","summary":[],"content":[{"type":"reasoning_text","text":"raw thoughts"}]},{"type":"message","id":"m","content":[{"type":"refusal","refusal":"I can't."}]}]}`)}).Generate(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Reasoning() != "raw thoughts" || resp.Message.Text() != "I can't." {
		t.Errorf("message %s", llmtest.JSONOf(t, resp.Message))
	}
}

func TestIdleTimeout(t *testing.T) { faults().IdleTimeout(t, 50*time.Millisecond) }

func TestCancel(t *testing.T) { faults().Cancel(t) }

func TestNetworkError(t *testing.T) { faults().NetworkError(t) }

// TestNoRetryAfterOutput checks the client under llm.Retry: a failure after
// text was delivered is not retried (the text would repeat).
func TestNoRetryAfterOutput(t *testing.T) {
	srv := llmtest.ServeBody(t, 200, "text/event-stream", evCreated+evText+sseEvent("response.failed", `{"type":"response.failed","response":{"status":"failed","error":{"code":"server_error","message":"boom"}}}`))
	_, err := llm.Retry(New(llm.Options{BaseURL: srv.URL}), llmtest.NoSleep(3)).Generate(context.Background(), streamReq(), nil)
	if llm.KindOf(err) != llm.KindServer || srv.Calls() != 1 {
		t.Fatalf("err %v after %d calls, want one server error", err, srv.Calls())
	}
}
