package openai

import (
	"context"
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

const (
	textChunk   = `{"choices":[{"index":0,"delta":{"content":"partial"}}]}`
	finishChunk = `{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`
)

func TestHTTPErrors(t *testing.T) {
	cases := []struct {
		name   string
		status int
		header map[string]string
		body   string
		kind   llm.ErrorKind
		inMsg  string
	}{
		{"auth", 401, nil, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`, llm.KindAuth, "OPENAI_API_KEY"},
		{"model not found", 404, nil, `{"error":{"message":"The model does not exist","code":"model_not_found"}}`, llm.KindNotFound, `model "m"`},
		{"rate limit", 429, map[string]string{"Retry-After": "7"}, `{"error":{"message":"Rate limit reached","type":"requests"}}`, llm.KindRateLimit, "Rate limit reached"},
		{"context too long", 400, nil, `{"error":{"message":"This model's maximum context length is 8192 tokens","code":"context_length_exceeded"}}`, llm.KindContextTooLong, "maximum context length"},
		{"server", 500, nil, `{"error":{"message":"internal"}}`, llm.KindServer, "internal"},
		{"html gateway", 502, nil, `<html>Bad Gateway</html>`, llm.KindServer, "Bad Gateway"},
		{"openrouter object code", 402, nil, `{"error":{"message":"Insufficient credits","code":402}}`, llm.KindBadRequest, "Insufficient credits"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := llmtest.ServeReplies(t, llmtest.Reply{Status: c.status, Header: c.header, Body: c.body})
			cl := New(Options{Options: llm.Options{BaseURL: srv.URL, APIKey: "k", KeyEnv: "OPENAI_API_KEY"}})
			resp, err, events := run(t, cl, nil)
			var ae *llm.APIError
			if !errors.As(err, &ae) || ae.Kind != c.kind || ae.Status != c.status {
				t.Fatalf("got %#v, want kind %s status %d", err, c.kind, c.status)
			}
			if !strings.Contains(err.Error(), c.inMsg) {
				t.Errorf("message %q lacks %q", err.Error(), c.inMsg)
			}
			if c.header["Retry-After"] != "" && ae.RetryAfter != 7*time.Second {
				t.Errorf("RetryAfter %v", ae.RetryAfter)
			}
			if len(events) != 0 || len(resp.Message.Parts) != 0 {
				t.Errorf("events %v parts %v on an HTTP error", events, resp.Message.Parts)
			}
		})
	}
}

// TestStreamFaults checks how the end of a stream is judged, and that the
// partial answer survives every failure.
func TestStreamFaults(t *testing.T) {
	cases := []struct {
		name string
		body string
		kind llm.ErrorKind // "" : no error
		text string
	}{
		{"done", sseBody(textChunk, finishChunk, "[DONE]"), "", "partial"},
		{"finish then clean EOF without DONE", sseBody(textChunk, finishChunk), "", "partial"},
		{"DONE without finish_reason", sseBody(textChunk, "[DONE]"), "", "partial"},
		{"EOF without finish or DONE", sseBody(textChunk), llm.KindStreamCut, "partial"},
		{"chunk cut mid-JSON", sseBody(textChunk) + `data: {"choices":[{"index":0,"del`, llm.KindStreamCut, "partial"},
		{"malformed chunk", sseBody(textChunk, `not json at all`), llm.KindStream, "partial"},
		{"openrouter error chunk", sseBody(textChunk, `{"id":"g","error":{"code":400,"message":"Token limit reached"},"choices":[{"index":0,"delta":{"content":""},"finish_reason":null}]}`, "[DONE]"), llm.KindStream, "partial"},
		{"error chunk with a rate-limit code", sseBody(textChunk, `{"error":{"code":429,"message":"slow down"}}`), llm.KindRateLimit, "partial"},
		{"error chunk: context too long", sseBody(`{"error":{"message":"prompt is too long","code":"context_length_exceeded"}}`), llm.KindContextTooLong, ""},
		{"finish_reason error", sseBody(textChunk, `{"choices":[{"index":0,"delta":{},"finish_reason":"error"}]}`, "[DONE]"), llm.KindStream, "partial"},
		{"SSE error event", sseBody(textChunk) + "event: error\ndata: {\"error\":{\"message\":\"boom\"}}\n\n", llm.KindStream, "partial"},
		{"comments and blank data skipped", ": OPENROUTER PROCESSING\n\n" + sseBody(textChunk, "", finishChunk), "", "partial"},
		{"empty body", "", llm.KindStreamCut, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := llmtest.ServeBody(t, 200, "text/event-stream", c.body)
			resp, err, _ := run(t, New(Options{Options: llm.Options{BaseURL: srv.URL}}), nil)
			if c.kind == "" && err != nil {
				t.Fatalf("unexpected error %v", err)
			}
			if c.kind != "" && llm.KindOf(err) != c.kind {
				t.Fatalf("got %v (kind %s), want kind %s", err, llm.KindOf(err), c.kind)
			}
			if got := resp.Message.Text(); got != c.text {
				t.Errorf("partial text %q, want %q", got, c.text)
			}
		})
	}
}

func TestBodyFaults(t *testing.T) {
	cases := []struct {
		name, body string
		kind       llm.ErrorKind
	}{
		{"no choices", `{"id":"x","choices":[]}`, llm.KindStream},
		{"error object with 200", `{"error":{"message":"Provider returned error","code":502}}`, llm.KindServer},
		{"truncated", `{"id":"x","choices":[{"index":0,"message":{"content":"hel`, llm.KindStreamCut},
		{"not json", `<html>oops</html>`, llm.KindStream},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv, _ := serve(t, 200, c.body)
			_, err, _ := run(t, clientFor(srv, "https://api.example.test/v1", nil), &llm.Request{Model: "m", Messages: []llm.Message{llm.UserText("hi")}})
			if llm.KindOf(err) != c.kind {
				t.Fatalf("got %v (kind %s), want %s", err, llm.KindOf(err), c.kind)
			}
		})
	}
}

// faults describes a cut Chat Completions stream for the shared fault
// checks.
func faults() llmtest.Faults {
	return llmtest.Faults{New: func(o llm.Options) llm.Client { return New(Options{Options: o}) },
		Request:     &llm.Request{Model: "m", Stream: true, Messages: []llm.Message{llm.UserText("hi")}},
		ContentType: "text/event-stream", Partial: sseBody(textChunk), Text: "partial", BasePath: "/v1"}
}

func TestIdleTimeout(t *testing.T) { faults().IdleTimeout(t, 100*time.Millisecond) }

// TestRequestTimeout sends no response headers at all: the request timeout,
// not the idle one, ends the wait.
func TestRequestTimeout(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		select { // until the client goes, 10 s at most
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	}))
	defer srv.Close()
	c := New(Options{Options: llm.Options{BaseURL: srv.URL, RequestTimeout: 100 * time.Millisecond}})
	_, err, _ := run(t, c, nil)
	if llm.KindOf(err) != llm.KindTimeout {
		t.Fatalf("got %v, want a timeout", err)
	}
}

func TestCancelMidStream(t *testing.T) { faults().Cancel(t) }

func TestConnectionDropped(t *testing.T) { faults().ConnectionDropped(t) }

func TestNetworkError(t *testing.T) { faults().NetworkError(t) }

// TestRetryBeforeOutput checks the client's errors drive llm.Retry: a 429
// before any output is retried, and the second answer is returned.
func TestRetryBeforeOutput(t *testing.T) {
	srv := llmtest.ServeReplies(t, llmtest.Reply{Status: 429, Body: `{"error":{"message":"slow down"}}`},
		llmtest.Reply{Header: map[string]string{"Content-Type": "text/event-stream"}, Body: sseBody(textChunk, finishChunk, "[DONE]")})
	p := llm.Retry(New(Options{Options: llm.Options{BaseURL: srv.URL}}), llmtest.NoSleep(2))
	resp, err := p.Generate(context.Background(), &llm.Request{Model: "m", Stream: true, Messages: []llm.Message{llm.UserText("hi")}}, nil)
	if err != nil || resp.Message.Text() != "partial" || srv.Calls() != 2 {
		t.Fatalf("resp %q err %v after %d requests", resp.Message.Text(), err, srv.Calls())
	}
}
