package llm

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// offlineClient is an HTTP client whose name lookups never leave the
// process: its resolver's DNS server cannot be dialled, as when the machine
// is offline. Hosts under .invalid are not in /etc/hosts, so a lookup fails
// the way it does without a network, deterministically.
func offlineClient() *http.Client {
	r := &net.Resolver{PreferGo: true, Dial: func(context.Context, string, string) (net.Conn, error) {
		return nil, errors.New("network is unreachable (no DNS in tests)")
	}}
	d := &net.Dialer{Resolver: r}
	return &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
}

// closedServerURL returns the URL of an httptest server that was closed:
// connecting to it is refused.
func closedServerURL() string {
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close()
	return srv.URL
}

// countingClient makes one request per Generate through Do and counts the
// attempts.
func countingClient(o *Options, url string, attempts *int) Client {
	return ClientFunc(func(ctx context.Context, _ *Request, _ Handler) (*Response, error) {
		*attempts++
		b, _, err := Do(ctx, o, http.MethodPost, url, []byte("{}"), nil)
		if err == nil {
			_, err = io.ReadAll(b)
			b.Close()
		}
		return &Response{}, err
	})
}

// noSleep is a retry policy of 3 retries whose wait fails the test: an
// unreachable host must not be retried at all.
func noSleep(t *testing.T) RetryPolicy {
	return RetryPolicy{MaxRetries: 3, Sleep: func(context.Context, time.Duration) error {
		t.Error("retried an unreachable host")
		return nil
	}}
}

func TestUnreachableHostIsNotRetried(t *testing.T) {
	refused := closedServerURL()
	cases := []struct {
		name, url string
		client    *http.Client
		local     bool
		want      []string
	}{
		{"connection refused", refused, nil, false, []string{
			"openai: cannot reach " + strings.TrimPrefix(refused, "http://") + ": dial tcp ",
			"connection refused; check your network or choose a local provider with --model ollama/..."}},
		{"name not resolved", "https://api.example.invalid/v1/chat/completions", offlineClient(), false, []string{
			"openai: cannot reach api.example.invalid: lookup api.example.invalid",
			"; check your network or choose a local provider with --model ollama/..."}},
		{"local server not running", refused, nil, true, []string{
			"cannot reach " + strings.TrimPrefix(refused, "http://") + ": dial tcp ",
			"connection refused; is the model server running? Start it (for Ollama: ollama serve)"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := &Options{Name: "openai", HTTPClient: c.client, Local: c.local, RequestTimeout: time.Minute}
			attempts := 0
			_, err := Retry(countingClient(o, c.url, &attempts), noSleep(t)).Generate(context.Background(), &Request{}, nil)
			if attempts != 1 {
				t.Errorf("%d attempts, want 1 (no retry)", attempts)
			}
			if !IsUnreachable(err) {
				t.Fatalf("IsUnreachable(%v) = false", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\nwant it to contain %q", err, w)
				}
			}
		})
	}
}

func TestServerErrorsAreStillRetried(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	attempts := 0
	pol := RetryPolicy{MaxRetries: 2, Sleep: func(context.Context, time.Duration) error { return nil }}
	_, err := Retry(countingClient(&Options{Name: "p"}, srv.URL, &attempts), pol).Generate(context.Background(), &Request{}, nil)
	if attempts != 3 || KindOf(err) != KindServer || IsUnreachable(err) {
		t.Errorf("%d attempts, error %v; want 3 attempts and a server error", attempts, err)
	}
}

// slowFirstByte serves headers at once, then nothing until release is
// closed (or the client goes), then a body: a local model reading a long
// prompt.
func slowFirstByte(t *testing.T, release <-chan struct{}) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		select {
		case <-release:
			_, _ = io.WriteString(w, "data: hello\n\n")
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestIdleTimeoutStartsAtFirstByte: a server that is silent after its
// headers for longer than the idle timeout is still waited for, as long as
// the request timeout has not expired.
func TestIdleTimeoutStartsAtFirstByte(t *testing.T) {
	release := make(chan struct{})
	srv := slowFirstByte(t, release)
	// The idle timeout must be long enough for the body's end to follow its
	// first byte on a loaded machine, and the silence before the first byte
	// several times longer.
	o := &Options{Name: "ollama", RequestTimeout: time.Hour, IdleTimeout: 100 * time.Millisecond}
	b, _, err := Do(context.Background(), o, http.MethodPost, srv.URL, []byte("{}"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	go func() {
		time.Sleep(500 * time.Millisecond) // five idle timeouts: the old rule failed here
		close(release)
	}()
	data, err := io.ReadAll(b)
	if err != nil || string(data) != "data: hello\n\n" {
		t.Fatalf("got %q, %v; want the body (the idle timeout must start at the first byte)", data, err)
	}
}

// TestRequestTimeoutCoversFirstByte: headers without a body are not a
// response yet; the request timeout ends the wait, with its own message.
func TestRequestTimeoutCoversFirstByte(t *testing.T) {
	srv := slowFirstByte(t, make(chan struct{}))
	o := &Options{Name: "ollama", RequestTimeout: 20 * time.Millisecond, Local: true}
	// Under load even the headers can take longer than the timeout: the
	// wait ends at Do then, with the same error.
	b, _, err := Do(context.Background(), o, http.MethodPost, srv.URL, []byte("{}"), nil)
	if err == nil {
		defer b.Close()
		_, err = io.ReadAll(b)
	}
	if KindOf(err) != KindTimeout || errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want a timeout", err)
	}
	for _, w := range []string{"timed out after 0.02 s without a response (request_timeout)", "a model on this machine can take minutes"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q, want %q", err, w)
		}
	}
}

func TestLocalTimeoutIsNotRetried(t *testing.T) {
	for _, local := range []bool{true, false} {
		attempts := 0
		c := ClientFunc(func(context.Context, *Request, Handler) (*Response, error) {
			attempts++
			o := &Options{Name: "p", Local: local}
			return &Response{}, requestTimeout(o, context.Canceled)
		})
		pol := RetryPolicy{MaxRetries: 2, Sleep: func(context.Context, time.Duration) error { return nil }}
		_, err := Retry(c, pol).Generate(context.Background(), &Request{}, nil)
		want := 3
		if local {
			want = 1
		}
		if attempts != want || KindOf(err) != KindTimeout {
			t.Errorf("local=%v: %d attempts (%v), want %d", local, attempts, err, want)
		}
	}
}
