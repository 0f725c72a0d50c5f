package llm

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
)

func TestParseErrorBody(t *testing.T) {
	cases := []struct{ body, msg, typ, code string }{
		{`{"error":{"message":"Incorrect API key","type":"invalid_request_error","code":"invalid_api_key"}}`, "Incorrect API key", "invalid_request_error", "invalid_api_key"},
		{`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, "Overloaded", "overloaded_error", ""},
		{`{"error":{"code":403,"message":"denied","status":"PERMISSION_DENIED"}}`, "denied", "PERMISSION_DENIED", "403"},
		{`{"error":"model 'x' not found"}`, "model 'x' not found", "", ""},
		{`{"detail":"Not Found"}`, "Not Found", "", ""},
		{`<html>bad gateway</html>`, "<html>bad gateway</html>", "", ""},
	}
	for _, c := range cases {
		msg, typ, code := ParseErrorBody([]byte(c.body))
		if msg != c.msg || typ != c.typ || code != c.code {
			t.Errorf("%s: got (%q,%q,%q)", c.body, msg, typ, code)
		}
	}
}

func TestNewHTTPErrorKinds(t *testing.T) {
	cases := []struct {
		status int
		body   string
		kind   ErrorKind
		retry  bool
	}{
		{401, `{"error":{"message":"bad key"}}`, KindAuth, false},
		{403, `{}`, KindPermission, false},
		{404, `{"error":{"message":"The model x does not exist"}}`, KindNotFound, false},
		{400, `{"error":{"message":"This model's maximum context length is 8192 tokens","code":"context_length_exceeded"}}`, KindContextTooLong, false},
		{400, `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}`, KindContextTooLong, false},
		{400, `{"error":{"message":"bad field"}}`, KindBadRequest, false},
		{429, `{"error":{"message":"slow down"}}`, KindRateLimit, true},
		{500, `oops`, KindServer, true},
		{503, `{}`, KindServer, true},
		{529, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, KindOverloaded, true},
	}
	for _, c := range cases {
		e := NewHTTPError("p", c.status, nil, []byte(c.body))
		if e.Kind != c.kind || e.Retryable() != c.retry {
			t.Errorf("%d %s: kind %s retry %v", c.status, c.body, e.Kind, e.Retryable())
		}
	}
}

func TestAPIErrorMessageHints(t *testing.T) {
	e := &APIError{Provider: "openai", Status: 401, Kind: KindAuth, Message: "Incorrect API key", KeyEnv: "OPENAI_API_KEY"}
	if got := e.Error(); !strings.Contains(got, "check OPENAI_API_KEY") || !strings.Contains(got, "HTTP 401") {
		t.Errorf("auth message: %s", got)
	}
	e = &APIError{Provider: "groq", Status: 404, Kind: KindNotFound, Message: "no such model", Model: "llama-9"}
	if got := e.Error(); !strings.Contains(got, `"llama-9"`) || !strings.Contains(got, "aidex models --provider groq") {
		t.Errorf("not-found message: %s", got)
	}
}

func TestRetryAfter(t *testing.T) {
	h := http.Header{}
	h.Set("Retry-After", "3")
	if d := RetryAfter(h); d != 3*time.Second {
		t.Errorf("seconds: %v", d)
	}
	h.Set("Retry-After-Ms", "1500")
	if d := RetryAfter(h); d != 1500*time.Millisecond {
		t.Errorf("ms wins: %v", d)
	}
	h = http.Header{}
	h.Set("Retry-After", time.Now().Add(10*time.Second).UTC().Format(http.TimeFormat))
	if d := RetryAfter(h); d < 8*time.Second || d > 11*time.Second {
		t.Errorf("date: %v", d)
	}
	if d := RetryAfter(http.Header{"Retry-After": {"soon"}}); d != 0 {
		t.Errorf("garbage: %v", d)
	}
}

func TestNewStreamError(t *testing.T) {
	e := NewStreamError("anthropic", []byte(`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`))
	if e.Kind != KindOverloaded || e.Message != "Overloaded" {
		t.Errorf("%+v", e)
	}
	e = NewStreamError("openrouter", []byte(`{"error":{"message":"Provider returned error","code":502}}`))
	if e.Kind != KindServer {
		t.Errorf("openrouter 502 in stream: %+v", e)
	}
}

func TestAccumulator(t *testing.T) {
	var events []EventType
	acc := NewAccumulator(func(e Event) { events = append(events, e.Type) })
	acc.Reasoning("think ")
	acc.Reasoning("more")
	acc.ReasoningSignature("sig1", "", false)
	acc.Text("Hel")
	acc.Text("")
	acc.Text("lo")
	acc.ToolCall(ToolCall{ID: "1", Name: "a", Arguments: json.RawMessage(` {"x":1} `)})
	acc.ToolCall(ToolCall{ID: "2", Name: "b"})
	acc.ToolCall(ToolCall{ID: "3", Name: "c", Arguments: json.RawMessage(`"{\"y\":2}"`)})
	acc.ToolCall(ToolCall{ID: "4", Name: "d", Arguments: json.RawMessage(`{"x":`)})
	acc.Usage(Usage{InputTokens: 5, OutputTokens: 7})
	acc.Finish("tool_calls")
	acc.Finish("")
	r := acc.Response()
	if r.Message.Text() != "Hello" || r.Message.Reasoning() != "think more" {
		t.Fatalf("text %q reasoning %q", r.Message.Text(), r.Message.Reasoning())
	}
	if r.Message.Parts[0].Signature != "sig1" {
		t.Errorf("signature not kept: %+v", r.Message.Parts[0])
	}
	calls := r.Message.ToolCalls()
	if len(calls) != 4 || string(calls[0].Arguments) != `{"x":1}` || string(calls[1].Arguments) != `{}` || string(calls[2].Arguments) != `{"y":2}` {
		t.Fatalf("calls %+v", calls)
	}
	if calls[3].ArgsError == "" || calls[2].ArgsError != "" {
		t.Errorf("args errors: %+v", calls)
	}
	if r.FinishReason != "tool_calls" || r.Usage.Total() != 12 || !acc.Delivered() {
		t.Errorf("finish %q usage %+v", r.FinishReason, r.Usage)
	}
	if len(events) != 10 {
		t.Errorf("events %v", events)
	}
}

// fake is a provider that fails with errs in turn, then succeeds.
type fake struct {
	errs  []error
	calls int
	emit  bool
}

func (f *fake) Generate(ctx context.Context, req *Request, h Handler) (*Response, error) {
	acc := NewAccumulator(h)
	f.calls++
	if f.emit {
		acc.Text("partial")
	}
	if f.calls <= len(f.errs) {
		return acc.Response(), f.errs[f.calls-1]
	}
	acc.Text("ok")
	return acc.Response(), nil
}

func TestRetry(t *testing.T) {
	var waits []time.Duration
	pol := RetryPolicy{MaxRetries: 3, Base: time.Second, Jitter: func() float64 { return 1 },
		Sleep: func(ctx context.Context, d time.Duration) error { waits = append(waits, d); return nil }}
	rate := &APIError{Kind: KindRateLimit, RetryAfter: 7 * time.Second}
	f := &fake{errs: []error{rate, &APIError{Kind: KindServer}}}
	resp, err := Retry(f, pol).Generate(context.Background(), &Request{}, nil)
	if err != nil || resp.Message.Text() != "ok" || f.calls != 3 {
		t.Fatalf("err %v calls %d", err, f.calls)
	}
	if len(waits) != 2 || waits[0] != 7*time.Second || waits[1] != 2*time.Second {
		t.Errorf("waits %v", waits)
	}

	for _, e := range []error{&APIError{Kind: KindAuth}, &APIError{Kind: KindBadRequest}, errors.New("x"), &APIError{Kind: KindRateLimit, RetryAfter: time.Hour}} {
		f = &fake{errs: []error{e}}
		if _, err := Retry(f, pol).Generate(context.Background(), &Request{}, nil); err == nil || f.calls != 1 {
			t.Errorf("%v: retried (%d calls)", e, f.calls)
		}
	}
	f = &fake{errs: []error{&APIError{Kind: KindServer}}, emit: true}
	if _, err := Retry(f, pol).Generate(context.Background(), &Request{}, nil); err == nil || f.calls != 1 {
		t.Errorf("retried after delivery: %d calls", f.calls)
	}
	f = &fake{errs: []error{&APIError{Kind: KindServer}, &APIError{Kind: KindServer}, &APIError{Kind: KindServer}, &APIError{Kind: KindServer}}}
	if _, err := Retry(f, pol).Generate(context.Background(), &Request{}, nil); err == nil || f.calls != 4 {
		t.Errorf("max retries: %d calls", f.calls)
	}
}

func TestDoTimeoutsAndErrors(t *testing.T) {
	block := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/hang-headers":
			select {
			case <-block:
			case <-r.Context().Done():
			}
		case "/hang-body":
			w.WriteHeader(200)
			_, _ = w.Write([]byte("data: 1\n\n"))
			w.(http.Flusher).Flush()
			select {
			case <-block:
			case <-r.Context().Done():
			}
		case "/401":
			w.WriteHeader(401)
			_, _ = w.Write([]byte(`{"error":{"message":"Invalid key"}}`))
		}
	}))
	defer srv.Close()
	defer close(block)
	o := &Options{Name: "p", KeyEnv: "P_KEY", RequestTimeout: 100 * time.Millisecond, IdleTimeout: 100 * time.Millisecond}
	ctx := context.Background()

	_, _, err := Do(ctx, o, "GET", srv.URL+"/hang-headers", nil, nil)
	if KindOf(err) != KindTimeout || !strings.Contains(err.Error(), "timed out after 0.1 s") {
		t.Errorf("header timeout: %v", err)
	}
	// A timeout is not an interruption: never context.Canceled.
	if errors.Is(err, context.Canceled) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("header timeout unwraps to %v", errors.Unwrap(err))
	}
	b, _, err := Do(ctx, o, "GET", srv.URL+"/hang-body", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(b)
	b.Close()
	if KindOf(err) != KindTimeout || string(data) != "data: 1\n\n" || errors.Is(err, context.Canceled) {
		t.Errorf("idle timeout: %q %v", data, err)
	}
	_, _, err = Do(ctx, o, "GET", srv.URL+"/401", nil, nil)
	if KindOf(err) != KindAuth || !strings.Contains(err.Error(), "check P_KEY") {
		t.Errorf("401: %v", err)
	}
	_, _, err = Do(ctx, o, "GET", "http://127.0.0.1:1/x", nil, nil)
	if KindOf(err) != KindUnreachable {
		t.Errorf("unreachable: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, _, err = Do(cctx, o, "GET", srv.URL+"/401", nil, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestToolSchema(t *testing.T) {
	for _, p := range []string{"", "null", "  "} {
		if got := string((Tool{Parameters: json.RawMessage(p)}).Schema()); got != emptySchema {
			t.Errorf("%q: %s", p, got)
		}
	}
	s := `{"type":"object","properties":{"a":{"type":"string"}}}`
	if got := string((Tool{Parameters: json.RawMessage(s)}).Schema()); got != s {
		t.Errorf("schema changed: %s", got)
	}
}
