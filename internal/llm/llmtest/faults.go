package llmtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/zelvior/aidex/internal/llm"
)

// hangLimit bounds how long a hanging server waits for its client to go
// away, so that a broken client cannot hang the test run.
const hangLimit = 10 * time.Second

// HangAfter starts a server that answers every request with status 200,
// content type ct (none when "") and body, flushed, then sends nothing more
// and keeps the connection open until the client goes away (10 s at most).
// It is closed when the test ends.
func HangAfter(t testing.TB, ct, body string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // lets the server notice the client leaving
		if ct != "" {
			w.Header().Set("Content-Type", ct)
		}
		_, _ = io.WriteString(w, body)
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-time.After(hangLimit):
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// CutAfter starts a server that answers every request with status 200,
// content type ct and body, flushed, then writes tail (the unfinished start
// of a next event, or "") straight onto the connection and closes it in
// the middle of the chunked response. It is closed when the test ends.
func CutAfter(t testing.TB, ct, body, tail string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ct)
		_, _ = io.WriteString(w, body)
		w.(http.Flusher).Flush()
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		_, _ = buf.WriteString(tail)
		_ = buf.Flush()
		_ = conn.Close()
	}))
	t.Cleanup(srv.Close)
	return srv
}

// NoSleep returns a retry policy of at most retries retries that does not
// wait between attempts.
func NoSleep(retries int) llm.RetryPolicy {
	return llm.RetryPolicy{MaxRetries: retries, Sleep: func(context.Context, time.Duration) error { return nil }}
}

// ClosedURL returns "http://127.0.0.1:<port>" for a local port that was
// just free and nothing listens on: connecting to it fails.
func ClosedURL(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return "http://" + addr
}

// Faults runs the fault checks every wire-format client must pass against
// a canned stream: a server that goes silent, a caller who cancels, a
// connection dropped mid-stream, nothing listening. Partial must be a
// complete, well-formed stream prefix that delivers Text and stops before
// the end of the answer.
type Faults struct {
	// New returns the client under test for o (BaseURL and, for the idle
	// timeout check, IdleTimeout set).
	New func(o llm.Options) llm.Client
	// Request is the streamed request to send.
	Request *llm.Request
	// ContentType is the stream's content type ("" sends none).
	ContentType string
	// Partial is the start of a stream; Text the text it delivers.
	Partial, Text string
	// Tail is the unfinished start of a next event, sent before the
	// connection drops ("" for none).
	Tail string
	// BasePath is appended to a server's URL to make the base URL ("/v1").
	BasePath string
}

// IdleTimeout checks that a stream that goes silent after Partial ends in a
// KindTimeout error after idle (context.DeadlineExceeded, not
// context.Canceled), keeping the partial text.
func (f Faults) IdleTimeout(t *testing.T, idle time.Duration) {
	t.Helper()
	srv := HangAfter(t, f.ContentType, f.Partial)
	resp, err := f.New(llm.Options{BaseURL: srv.URL + f.BasePath, IdleTimeout: idle}).Generate(context.Background(), f.Request, nil)
	if llm.KindOf(err) != llm.KindTimeout {
		t.Fatalf("error %v, want timeout", err)
	}
	// A timeout is not the user's interruption: front ends map
	// context.Canceled to "interrupted" (exit 130).
	if errors.Is(err, context.Canceled) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("timeout %v: want context.DeadlineExceeded, not context.Canceled", err)
	}
	f.checkPartial(t, resp)
}

// Cancel checks that cancelling the context on the first text event ends
// the stream with context.Canceled, keeping the partial text.
func (f Faults) Cancel(t *testing.T) {
	t.Helper()
	srv := HangAfter(t, f.ContentType, f.Partial)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resp, err := f.New(llm.Options{BaseURL: srv.URL + f.BasePath}).Generate(ctx, f.Request, func(e llm.Event) {
		if e.Type == llm.EventText {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	f.checkPartial(t, resp)
}

// ConnectionDropped checks that a connection closed after Partial and Tail
// is a KindStreamCut error, keeping the partial text.
func (f Faults) ConnectionDropped(t *testing.T) {
	t.Helper()
	srv := CutAfter(t, f.ContentType, f.Partial, f.Tail)
	resp, err := f.New(llm.Options{BaseURL: srv.URL + f.BasePath}).Generate(context.Background(), f.Request, nil)
	if llm.KindOf(err) != llm.KindStreamCut {
		t.Fatalf("error %v, want stream_cut", err)
	}
	f.checkPartial(t, resp)
}

// NetworkError checks that a base URL nothing listens on is a
// KindUnreachable error that names the host and the refused connection.
func (f Faults) NetworkError(t *testing.T) {
	t.Helper()
	base := ClosedURL(t)
	_, err := f.New(llm.Options{BaseURL: base + f.BasePath}).Generate(context.Background(), f.Request, nil)
	if !llm.IsUnreachable(err) {
		t.Fatalf("error %v, want unreachable", err)
	}
	if want := "cannot reach " + strings.TrimPrefix(base, "http://") + ": "; !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("error %q, want %q and the refused connection", err, want)
	}
}

func (f Faults) checkPartial(t *testing.T, resp *llm.Response) {
	t.Helper()
	if resp == nil {
		t.Fatal("nil response")
	}
	if got := resp.Message.Text(); got != f.Text {
		t.Errorf("partial text %q, want %q", got, f.Text)
	}
}

// JSONOf returns v marshalled as JSON; the test fails when it cannot be.
func JSONOf(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// AssertJSONEqual compares got (any JSON-marshalable value) with the JSON
// text want, ignoring key order and spacing; a difference is a test error.
func AssertJSONEqual(t testing.TB, got any, want string) {
	t.Helper()
	var w, g any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad want JSON: %v", err)
	}
	if err := json.Unmarshal([]byte(JSONOf(t, got)), &g); err != nil {
		t.Fatal(err)
	}
	if JSONOf(t, g) != JSONOf(t, w) {
		t.Errorf("JSON differs\n got: %s\nwant: %s", JSONOf(t, g), JSONOf(t, w))
	}
}

// SameBody fails the test when the body a client builds through its
// llm.WireCache (cached) differs by a byte from the plain encoding of its
// wire request (plain, encoded by llm.MarshalJSON); label names the step
// in the failure, which shows both bodies.
func SameBody[W any](t testing.TB, label string, plain func() (W, error), cached func() (*llm.Spliced, error)) {
	t.Helper()
	want, err := plain()
	if err != nil {
		t.Fatalf("%s: wire request: %v", label, err)
	}
	wantBytes, err := llm.MarshalJSON(want)
	if err != nil {
		t.Fatalf("%s: encoding the wire request: %v", label, err)
	}
	body, err := cached()
	if err != nil {
		t.Fatalf("%s: cached body: %v", label, err)
	}
	got, err := body.Bytes()
	if err != nil {
		t.Fatalf("%s: cached body bytes: %v", label, err)
	}
	if !bytes.Equal(got, wantBytes) {
		t.Fatalf("%s: body\n%s\nwant\n%s", label, got, wantBytes)
	}
}
