package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	jsonv1 "github.com/go-json-experiment/json/v1"
)

// maxErrorBody caps how much of an error response is read, in bytes.
const maxErrorBody = 64 << 10

// Body is an HTTP response body being read under the request and idle
// timeouts. Read returns an [*APIError] of kind [KindTimeout] when the
// first byte did not arrive within the request timeout or, after it, no
// bytes arrived for the idle timeout, and of kind [KindStreamCut] when the
// connection ended with an error.
type Body struct {
	rc  io.ReadCloser
	w   *watch
	o   *Options
	ctx context.Context
}

// Read reads from the body; the first byte ends the request timeout and
// starts the idle timeout, every later byte restarts it.
func (b *Body) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if n > 0 {
		b.w.data()
	}
	if err != nil && err != io.EOF {
		switch b.w.firedPhase() {
		case phaseRequest:
			return n, requestTimeout(b.o, err)
		case phaseIdle:
			return n, timeoutError(b.o, b.o.IdleTimeout, "without data from the model (stream_idle_timeout)", err)
		}
		if b.ctx.Err() != nil {
			return n, b.ctx.Err()
		}
		return n, &APIError{Provider: b.o.Name, Kind: KindStreamCut, Local: b.o.Local, Message: "the connection ended before the answer was complete: " + err.Error(), Err: err}
	}
	return n, err
}

// Close stops the timers, closes the body and releases the request.
func (b *Body) Close() error {
	b.w.stop()
	err := b.rc.Close()
	b.w.cancel()
	return err
}

// The phases of a request's timeouts: until the first byte of the body the
// request timeout runs, after it the idle timeout.
const (
	phaseNone    = ""
	phaseRequest = "request"
	phaseIdle    = "idle"
)

// watch cancels a request when its timeout of the current phase expires,
// and remembers which one did.
type watch struct {
	mu      sync.Mutex
	cancel  context.CancelFunc
	idle    time.Duration
	timer   *time.Timer
	started bool   // the first byte of the body arrived
	fired   string // the phase whose timeout expired, or phaseNone
}

// newWatch starts the request timeout (none when request <= 0).
func newWatch(cancel context.CancelFunc, request, idle time.Duration) *watch {
	w := &watch{cancel: cancel, idle: idle}
	if request > 0 {
		w.timer = time.AfterFunc(request, func() { w.expire(phaseRequest) })
	}
	return w
}

// expire cancels the request unless the phase already ended (a timer that
// fired as the first byte arrived).
func (w *watch) expire(phase string) {
	w.mu.Lock()
	current := phaseRequest
	if w.started {
		current = phaseIdle
	}
	if phase != current || w.fired != phaseNone {
		w.mu.Unlock()
		return
	}
	w.fired = phase
	w.mu.Unlock()
	w.cancel()
}

// data records bytes read: the first ends the request timeout and starts
// the idle timeout; later ones restart the idle timeout.
func (w *watch) data() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fired != phaseNone {
		return
	}
	if w.started {
		if w.timer != nil {
			w.timer.Reset(w.idle)
		}
		return
	}
	w.started = true
	if w.timer != nil {
		w.timer.Stop()
		w.timer = nil
	}
	if w.idle > 0 {
		w.timer = time.AfterFunc(w.idle, func() { w.expire(phaseIdle) })
	}
}

// firedPhase returns the phase whose timeout expired, or phaseNone.
func (w *watch) firedPhase() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.fired
}

// stop stops the current timer.
func (w *watch) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.timer != nil {
		w.timer.Stop()
	}
}

// PostJSON sends body as JSON to url with o's headers plus extra, and returns
// the response body on a 2xx status. A non-2xx status becomes an
// [*APIError] built from the provider's error body; transport failures
// become KindUnreachable, KindNetwork or KindTimeout errors. The caller
// must Close the body.
func PostJSON(ctx context.Context, o *Options, url string, body any, extra map[string]string) (*Body, http.Header, error) {
	payload, err := encodeJSON(body)
	if err != nil {
		return nil, nil, fmt.Errorf("encode request: %w", err)
	}
	return send(ctx, o, http.MethodPost, url, payload, extra)
}

// numberAsV1 encodes encoding/json's Number as Marshal does (a JSON
// number; v2 knows only its own Number type and would write a string).
var numberAsV1 = jsonv2.MarshalFunc(func(n json.Number) ([]byte, error) { return json.Marshal(n) })

// encodeJSON returns body encoded exactly as encoding/json's Marshal does
// (the v1 options of github.com/go-json-experiment/json), written straight
// into fixed-size chunks. Marshal builds the whole encoding in a pooled
// buffer that doubles as it grows, copies it out and keeps the pooled one
// for its next call: the request of a long session (megabytes) then took
// about three times its size while it was sent, plus once more held by the
// pool (issue 21).
//
// One difference remains: invalid UTF-8 in a string is replaced by U+FFFD
// written as is, where Marshal writes it escaped ("\ufffd"); both decode
// to the same string.
func encodeJSON(body any) (*chunks, error) {
	c := &chunks{}
	opts := jsonv2.JoinOptions(jsonv1.DefaultOptionsV1(), jsonv2.WithMarshalers(numberAsV1))
	if err := jsonv2.MarshalWrite(c, body, opts); err != nil {
		return nil, err
	}
	return c, nil
}

// Do sends one request (see [PostJSON]); payload may be nil for GET. The
// request timeout runs until the first byte of the body arrives (see
// [Options]).
func Do(ctx context.Context, o *Options, method, url string, payload []byte, extra map[string]string) (*Body, http.Header, error) {
	var c *chunks
	if payload != nil {
		c = &chunks{bufs: [][]byte{payload}, n: len(payload)}
	}
	return send(ctx, o, method, url, c, extra)
}

// send is [Do] with the body in chunks (nil: none).
func send(ctx context.Context, o *Options, method, url string, payload *chunks, extra map[string]string) (*Body, http.Header, error) {
	rctx, cancel := context.WithCancel(ctx)
	req, err := newRequest(rctx, o, method, url, payload, extra)
	if err != nil {
		cancel()
		return nil, nil, err
	}
	w := newWatch(cancel, o.RequestTimeout, o.IdleTimeout)
	resp, err := o.Client().Do(req)
	if err != nil {
		w.stop()
		cancel()
		return nil, nil, transportError(ctx, o, req, w.firedPhase() == phaseRequest, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		defer cancel()
		defer w.stop()
		defer resp.Body.Close()
		data, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		e := NewHTTPError(o.Name, resp.StatusCode, resp.Header, data)
		e.KeyEnv, e.Local = o.KeyEnv, o.Local
		return nil, resp.Header, e
	}
	return &Body{rc: resp.Body, w: w, o: o, ctx: ctx}, resp.Header, nil
}

// newRequest builds the request with o's headers plus extra (JSON content
// type when there is a payload, its length known, and a GetBody for
// redirects). Errors: a malformed URL (KindBadRequest).
func newRequest(ctx context.Context, o *Options, method, url string, payload *chunks, extra map[string]string) (*http.Request, error) {
	var rd io.Reader
	if payload != nil {
		rd = payload.reader()
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return nil, &APIError{Provider: o.Name, Kind: KindBadRequest, Message: "bad request URL " + url, Err: err}
	}
	if payload != nil {
		req.ContentLength = int64(payload.n)
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(payload.reader()), nil }
		if payload.n == 0 {
			req.Body, req.GetBody = http.NoBody, func() (io.ReadCloser, error) { return http.NoBody, nil }
		}
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range o.Headers {
		req.Header.Set(k, v)
	}
	for k, v := range extra {
		req.Header.Set(k, v)
	}
	return req, nil
}

// transportError turns a failed request into an error: the request
// timeout when it expired (KindTimeout), ctx's own error when the caller
// cancelled, KindUnreachable when the host's name did not resolve or the
// connection could not be made, KindNetwork otherwise.
func transportError(ctx context.Context, o *Options, req *http.Request, timedOut bool, err error) error {
	switch {
	case timedOut:
		return requestTimeout(o, err)
	case ctx.Err() != nil:
		return ctx.Err()
	}
	if cause, ok := unreachable(err); ok {
		return &APIError{Provider: o.Name, Kind: KindUnreachable, Local: o.Local, Message: "cannot reach " + req.URL.Host + ": " + cause, Err: err}
	}
	return &APIError{Provider: o.Name, Kind: KindNetwork, Local: o.Local, Message: "cannot reach " + req.URL.Host + ": " + err.Error(), Err: err}
}

// unreachable reports whether a transport error happened before a
// connection existed — the name lookup failed, or the connection was
// refused, had no route or timed out — and returns its cause without the
// request URL ("lookup api.openai.com: no such host", "dial tcp
// 127.0.0.1:11434: connect: connection refused").
func unreachable(err error) (string, bool) {
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return dns.Error(), true
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return op.Error(), true
	}
	return "", false
}

// requestTimeout is the error of a request whose first byte did not arrive
// within o.RequestTimeout.
func requestTimeout(o *Options, cause error) *APIError {
	return timeoutError(o, o.RequestTimeout, "without a response (request_timeout)", cause)
}

// timeoutError is the KindTimeout error of a request or stream that took
// longer than d: "timed out after 300 s without a response". It unwraps to
// context.DeadlineExceeded, never to the context.Canceled that stopping
// the request leaves in the transport's error: front ends take
// context.Canceled for the user's interruption (exit 130, "stopped").
func timeoutError(o *Options, d time.Duration, what string, cause error) *APIError {
	return &APIError{Provider: o.Name, Kind: KindTimeout, Local: o.Local,
		Message: fmt.Sprintf("timed out after %s %s", seconds(d), what),
		Err:     fmt.Errorf("%w (%s)", context.DeadlineExceeded, errText(cause))}
}

// seconds formats d in seconds: "300 s", "0.05 s".
func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + " s"
}

// errText is err's message, "" for nil.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// ReadAll reads a whole non-streamed body, with the idle timeout applied.
func ReadAll(b *Body) ([]byte, error) {
	data, err := io.ReadAll(b)
	if err != nil {
		return data, err
	}
	return data, nil
}

// Finish completes a Generate call: it sets the model on a not-found error,
// and turns a cancelled context into ctx.Err(). It always returns the
// partial response.
func Finish(ctx context.Context, acc *Accumulator, req *Request, err error) (*Response, error) {
	resp := acc.Response()
	if err == nil {
		return resp, nil
	}
	if ctx.Err() != nil && !errors.As(err, new(*APIError)) {
		return resp, ctx.Err()
	}
	var ae *APIError
	if errors.As(err, &ae) && ae.Kind == KindNotFound && ae.Model == "" && req != nil {
		ae.Model = req.Model
	}
	return resp, err
}
