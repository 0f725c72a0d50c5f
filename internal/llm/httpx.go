package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// maxErrorBody caps how much of an error response is read, in bytes.
const maxErrorBody = 64 << 10

// Body is an HTTP response body being read under the idle timeout. Read
// returns an [*APIError] of kind [KindTimeout] when no bytes arrived for the
// idle timeout, and of kind [KindStreamCut] when the connection ended with an
// error.
type Body struct {
	rc       io.ReadCloser
	timer    *time.Timer
	idle     time.Duration
	cancel   context.CancelFunc
	mu       sync.Mutex
	timedOut bool
	name     string
	ctx      context.Context
}

// Read reads from the body, resetting the idle timer.
func (b *Body) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if b.timer != nil && n > 0 {
		b.timer.Reset(b.idle)
	}
	if err != nil && err != io.EOF {
		b.mu.Lock()
		to := b.timedOut
		b.mu.Unlock()
		switch {
		case to:
			return n, timeoutError(b.name, b.idle, "without data from the model (stream_idle_timeout)", err)
		case b.ctx.Err() != nil:
			return n, b.ctx.Err()
		default:
			return n, &APIError{Provider: b.name, Kind: KindStreamCut, Message: "the connection ended before the answer was complete: " + err.Error(), Err: err}
		}
	}
	return n, err
}

// Close stops the idle timer, closes the body and releases the request.
func (b *Body) Close() error {
	if b.timer != nil {
		b.timer.Stop()
	}
	err := b.rc.Close()
	b.cancel()
	return err
}

// PostJSON sends body as JSON to url with o's headers plus extra, and returns
// the response body on a 2xx status. A non-2xx status becomes an
// [*APIError] built from the provider's error body; transport failures
// become KindNetwork or KindTimeout errors. The caller must Close the body.
func PostJSON(ctx context.Context, o *Options, url string, body any, extra map[string]string) (*Body, http.Header, error) {
	payload, err := json.Marshal(body)
	if err != nil {
		return nil, nil, fmt.Errorf("encode request: %w", err)
	}
	return Do(ctx, o, http.MethodPost, url, payload, extra)
}

// Do sends one request (see [PostJSON]); payload may be nil for GET.
func Do(ctx context.Context, o *Options, method, url string, payload []byte, extra map[string]string) (*Body, http.Header, error) {
	rctx, cancel := context.WithCancel(ctx)
	req, err := newRequest(rctx, o, method, url, payload, extra)
	if err != nil {
		cancel()
		return nil, nil, err
	}
	resp, err := sendWithTimeout(ctx, o, req, cancel)
	if err != nil {
		cancel()
		return nil, nil, err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		defer cancel()
		defer resp.Body.Close()
		data, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		e := NewHTTPError(o.Name, resp.StatusCode, resp.Header, data)
		e.KeyEnv = o.KeyEnv
		return nil, resp.Header, e
	}
	b := &Body{rc: resp.Body, cancel: cancel, idle: o.IdleTimeout, name: o.Name, ctx: ctx}
	if o.IdleTimeout > 0 {
		b.timer = time.AfterFunc(o.IdleTimeout, func() {
			b.mu.Lock()
			b.timedOut = true
			b.mu.Unlock()
			cancel()
		})
	}
	return b, resp.Header, nil
}

// newRequest builds the request with o's headers plus extra (JSON content
// type when there is a payload). Errors: a malformed URL (KindBadRequest).
func newRequest(ctx context.Context, o *Options, method, url string, payload []byte, extra map[string]string) (*http.Request, error) {
	var rd io.Reader
	if payload != nil {
		rd = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return nil, &APIError{Provider: o.Name, Kind: KindBadRequest, Message: "bad request URL " + url, Err: err}
	}
	if payload != nil {
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

// sendWithTimeout sends req, cancelling it (through cancel) when no
// response headers arrive within o.RequestTimeout. Transport failures
// become KindTimeout or KindNetwork errors; ctx's own error when the
// caller cancelled.
func sendWithTimeout(ctx context.Context, o *Options, req *http.Request, cancel context.CancelFunc) (*http.Response, error) {
	var timedOut atomic.Bool
	if o.RequestTimeout > 0 {
		t := time.AfterFunc(o.RequestTimeout, func() {
			timedOut.Store(true)
			cancel()
		})
		defer t.Stop()
	}
	resp, err := o.Client().Do(req)
	switch {
	case err == nil:
		return resp, nil
	case timedOut.Load():
		return nil, timeoutError(o.Name, o.RequestTimeout, "without a response (request_timeout)", err)
	case ctx.Err() != nil:
		return nil, ctx.Err()
	}
	return nil, &APIError{Provider: o.Name, Kind: KindNetwork, Message: "cannot reach " + req.URL.Host + ": " + err.Error(), Err: err}
}

// timeoutError is the KindTimeout error of a request or stream that took
// longer than d: "timed out after 300 s without a response". It unwraps to
// context.DeadlineExceeded, never to the context.Canceled that stopping
// the request leaves in the transport's error: front ends take
// context.Canceled for the user's interruption (exit 130, "stopped").
func timeoutError(provider string, d time.Duration, what string, cause error) *APIError {
	return &APIError{Provider: provider, Kind: KindTimeout,
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
