package gemini

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
	return &llm.Request{Model: "gemini-2.5-flash", Stream: true, Messages: []llm.Message{llm.UserText("hi")}}
}

const (
	chunkHello = "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Hello\"}]}}],\"usageMetadata\":{\"promptTokenCount\":4}}\n\n"
	chunkCall  = "data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"name\":\"f\",\"args\":{\"a\":1}}}]}}]}\n\n"
	chunkStop  = "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\" world\"}]},\"finishReason\":\"STOP\"}],\"usageMetadata\":{\"promptTokenCount\":4,\"candidatesTokenCount\":2,\"thoughtsTokenCount\":3,\"cachedContentTokenCount\":1}}\n\n"
)

func TestHTTPErrors(t *testing.T) {
	cases := []struct {
		name   string
		status int
		header map[string]string
		body   string
		kind   llm.ErrorKind
		msgHas string
	}{
		{"bad key", 400, nil, `{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT"}}`, llm.KindBadRequest, "API key not valid"},
		{"unauthenticated", 401, nil, `{"error":{"code":401,"message":"Request had invalid authentication credentials.","status":"UNAUTHENTICATED"}}`, llm.KindAuth, "GEMINI_API_KEY"},
		{"permission", 403, nil, `{"error":{"code":403,"message":"Method doesn't allow unregistered callers","status":"PERMISSION_DENIED"}}`, llm.KindPermission, "unregistered callers"},
		{"unknown model", 404, nil, `{"error":{"code":404,"message":"models/gemini-9 is not found for API version v1beta","status":"NOT_FOUND"}}`, llm.KindNotFound, "aidex models"},
		{"too long", 400, nil, `{"error":{"code":400,"message":"The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}}`, llm.KindContextTooLong, "context window"},
		{"rate limit", 429, map[string]string{"Retry-After": "7"}, `{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED"}}`, llm.KindRateLimit, "exhausted"},
		{"server", 500, nil, `{"error":{"code":500,"message":"An internal error has occurred.","status":"INTERNAL"}}`, llm.KindServer, "internal error"},
		{"overloaded", 503, nil, `{"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}`, llm.KindServer, "overloaded"},
		{"html", 502, nil, `<html>Bad Gateway</html>`, llm.KindServer, "Bad Gateway"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := llmtest.ServeReplies(t, llmtest.Reply{Status: c.status, Header: c.header, Body: c.body})
			cl := New(llm.Options{BaseURL: srv.URL, KeyEnv: "GEMINI_API_KEY"})
			resp, err := cl.Generate(context.Background(), streamReq(), nil)
			var ae *llm.APIError
			if !errors.As(err, &ae) {
				t.Fatalf("error %v is not an *llm.APIError", err)
			}
			if ae.Kind != c.kind || ae.Status != c.status || ae.Provider != "gemini" {
				t.Errorf("kind %s status %d provider %q, want %s %d gemini", ae.Kind, ae.Status, ae.Provider, c.kind, c.status)
			}
			if !strings.Contains(err.Error(), c.msgHas) {
				t.Errorf("message %q lacks %q", err.Error(), c.msgHas)
			}
			if c.status == 429 && ae.RetryAfter != 7*time.Second {
				t.Errorf("retry-after %v", ae.RetryAfter)
			}
			if c.status == 404 && ae.Model != "gemini-2.5-flash" {
				t.Errorf("model %q on not-found error", ae.Model)
			}
			if resp == nil || len(resp.Message.Parts) != 0 {
				t.Errorf("response %+v, want an empty one", resp)
			}
		})
	}
}

func serveBody(t *testing.T, ct, body string) string {
	t.Helper()
	return llmtest.ServeBody(t, 200, ct, body).URL
}

// faults describes a cut Gemini stream for the shared fault checks.
func faults() llmtest.Faults {
	return llmtest.Faults{New: func(o llm.Options) llm.Client { return New(o) }, Request: streamReq(),
		ContentType: "text/event-stream", Partial: chunkHello, Text: "Hello", Tail: "data: {\"candi"}
}

func TestStreamCut(t *testing.T) {
	var events []llm.Event
	url := serveBody(t, "text/event-stream", chunkHello+chunkCall)
	resp, err := New(llm.Options{BaseURL: url}).Generate(context.Background(), streamReq(), func(e llm.Event) { events = append(events, e) })
	if llm.KindOf(err) != llm.KindStreamCut {
		t.Fatalf("error %v, want stream_cut", err)
	}
	if resp.Message.Text() != "Hello" || len(resp.Message.ToolCalls()) != 1 {
		t.Errorf("partial response lost: %+v", resp.Message)
	}
	if resp.Usage.InputTokens != 4 {
		t.Errorf("partial usage lost: %+v", resp.Usage)
	}
	for _, e := range events {
		if e.Type == llm.EventFinish {
			t.Error("finish event on a cut stream")
		}
	}
}

func TestStreamCutVariants(t *testing.T) {
	cases := map[string]struct{ ct, body string }{
		"empty body":              {"text/event-stream", ""},
		"only blank lines":        {"text/event-stream", "\n\n\n"},
		"array without finish":    {"application/json", `[{"candidates":[{"content":{"parts":[{"text":"a"}]}}]}`},
		"array cut mid-object":    {"application/json", `[{"candidates":[{"content":{"parts":[{"text":"a"}]}}]},{"candi`},
		"partial call then cut":   {"text/event-stream", "data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"name\":\"f\",\"willContinue\":true}}]}}]}\n\n"},
		"sse chunk without blank": {"text/event-stream", strings.TrimSuffix(chunkHello, "\n\n")},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			resp, err := New(llm.Options{BaseURL: serveBody(t, c.ct, c.body)}).Generate(context.Background(), streamReq(), nil)
			if llm.KindOf(err) != llm.KindStreamCut {
				t.Fatalf("error %v, want stream_cut", err)
			}
			if len(resp.Message.ToolCalls()) != 0 {
				t.Error("an unfinished streamed call was reported")
			}
		})
	}
}

// TestConnectionDropped closes the connection in the middle of a chunked
// stream: the body read fails, which is a stream cut too.
func TestConnectionDropped(t *testing.T) { faults().ConnectionDropped(t) }

func TestMalformed(t *testing.T) {
	cases := map[string]struct {
		ct, body string
		stream   bool
	}{
		"bad sse line":       {"text/event-stream", chunkHello + "data: {not json}\n\n" + chunkStop, true},
		"bad array element":  {"application/json", `[{"candidates":[]},{]`, true},
		"not json at all":    {"text/event-stream", "<html>proxy error</html>", true},
		"bad non-streamed":   {"application/json", `{"candidates": [`, false},
		"wrong shape stream": {"text/event-stream", "data: {\"candidates\":\"x\"}\n\n", true},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			req := streamReq()
			req.Stream = c.stream
			_, err := New(llm.Options{BaseURL: serveBody(t, c.ct, c.body)}).Generate(context.Background(), req, nil)
			if llm.KindOf(err) != llm.KindStream {
				t.Fatalf("error %v, want stream", err)
			}
			if !strings.Contains(err.Error(), "malformed") {
				t.Errorf("message %q does not say the stream was malformed", err)
			}
		})
	}
}

func TestInStreamError(t *testing.T) {
	body := chunkHello + "data: {\"error\":{\"code\":429,\"message\":\"Resource exhausted\",\"status\":\"RESOURCE_EXHAUSTED\"}}\n\n"
	resp, err := New(llm.Options{BaseURL: serveBody(t, "text/event-stream", body)}).Generate(context.Background(), streamReq(), nil)
	if llm.KindOf(err) != llm.KindRateLimit || !strings.Contains(err.Error(), "Resource exhausted") {
		t.Fatalf("error %v, want rate_limit", err)
	}
	if resp.Message.Text() != "Hello" {
		t.Errorf("partial text %q", resp.Message.Text())
	}
}

func TestPromptBlocked(t *testing.T) {
	for name, body := range map[string]string{
		"named":   `{"promptFeedback":{"blockReason":"PROHIBITED_CONTENT","blockReasonMessage":"nope"},"usageMetadata":{"promptTokenCount":9}}`,
		"numeric": `{"promptFeedback":{"blockReason":1}}`,
	} {
		t.Run(name, func(t *testing.T) {
			req := streamReq()
			req.Stream = false
			_, err := New(llm.Options{BaseURL: serveBody(t, "application/json", body)}).Generate(context.Background(), req, nil)
			var ae *llm.APIError
			if !errors.As(err, &ae) || ae.Kind != llm.KindBadRequest || ae.Type != "prompt_blocked" {
				t.Fatalf("error %v, want a prompt_blocked bad_request", err)
			}
			if !strings.Contains(err.Error(), "blocked") || ae.Code == "" {
				t.Errorf("error %q code %q", err, ae.Code)
			}
		})
	}
}

func TestFinishReasonsAndUsage(t *testing.T) {
	var events []llm.Event
	body := chunkHello + ": keep-alive\n\n" + chunkStop + "data: [DONE]\n\n"
	resp, err := New(llm.Options{BaseURL: serveBody(t, "text/event-stream", body)}).Generate(context.Background(), streamReq(), func(e llm.Event) { events = append(events, e) })
	if err != nil {
		t.Fatal(err)
	}
	want := llm.Usage{InputTokens: 4, OutputTokens: 5, CacheReadTokens: 1, ReasoningTokens: 3}
	if resp.Usage != want || resp.FinishReason != "STOP" || resp.Message.Text() != "Hello world" {
		t.Fatalf("resp %+v", resp)
	}
	last := events[len(events)-1]
	if last.Type != llm.EventFinish || events[len(events)-2].Type != llm.EventUsage {
		t.Errorf("events should end with usage then finish: %+v", events)
	}
	// A non-STOP finish is reported as the provider's own string.
	req := streamReq()
	req.Stream = false
	resp, err = New(llm.Options{BaseURL: serveBody(t, "application/json",
		`{"candidates":[{"content":{"parts":[{"text":"cut"}]},"finishReason":"MAX_TOKENS"}]}`)}).Generate(context.Background(), req, nil)
	if err != nil || resp.FinishReason != "MAX_TOKENS" {
		t.Fatalf("finish %q err %v", resp.FinishReason, err)
	}
}

func TestIdleTimeout(t *testing.T) { faults().IdleTimeout(t, 50*time.Millisecond) }

func TestCancel(t *testing.T) { faults().Cancel(t) }

func TestNetworkError(t *testing.T) { faults().NetworkError(t) }

// TestRetryBeforeOutput checks that the client works under llm.Retry: a 503
// is retried, and the retry's answer is returned.
func TestRetryBeforeOutput(t *testing.T) {
	srv := llmtest.ServeReplies(t,
		llmtest.Reply{Status: 503, Body: `{"error":{"code":503,"message":"overloaded","status":"UNAVAILABLE"}}`},
		llmtest.Reply{Header: map[string]string{"Content-Type": "text/event-stream"}, Body: chunkHello + chunkStop})
	resp, err := llm.Retry(New(llm.Options{BaseURL: srv.URL}), llmtest.NoSleep(2)).Generate(context.Background(), streamReq(), nil)
	if err != nil || resp.Message.Text() != "Hello world" || srv.Calls() != 2 {
		t.Fatalf("resp %q err %v calls %d", resp.Message.Text(), err, srv.Calls())
	}
}
