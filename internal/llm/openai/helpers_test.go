package openai

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/zelvior/aidex/internal/llm"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// redirect sends every request to target whatever its host, so a client
// built for https://openrouter.ai/api/v1 talks to a test server.
type redirect struct{ target *url.URL }

func (r redirect) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.URL.Scheme = r.target.Scheme
	req.URL.Host = r.target.Host
	return http.DefaultTransport.RoundTrip(req)
}

// captured is what a test server saw.
type captured struct {
	mu     sync.Mutex
	path   string
	header http.Header
	body   []byte
}

func (c *captured) get() (string, http.Header, []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.path, c.header, c.body
}

// serve starts a server answering every request with status and body (SSE
// when body starts with "data:" or ":"), recording the request.
func serve(t *testing.T, status int, body string) (*httptest.Server, *captured) {
	t.Helper()
	cap := &captured{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		cap.mu.Lock()
		cap.path, cap.header, cap.body = r.URL.Path, r.Header.Clone(), data
		cap.mu.Unlock()
		if strings.HasPrefix(body, "data:") || strings.HasPrefix(body, ":") {
			w.Header().Set("Content-Type", "text/event-stream")
		} else {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv, cap
}

// clientFor returns a client whose base URL is base but whose requests go
// to srv.
func clientFor(srv *httptest.Server, base string, mod func(*Options)) *Client {
	u, _ := url.Parse(srv.URL)
	o := Options{Options: llm.Options{Name: "test", BaseURL: base, APIKey: "sk-test", HTTPClient: &http.Client{Transport: redirect{u}}}}
	if mod != nil {
		mod(&o)
	}
	return New(o)
}

// run sends req (a streamed hello when nil) and returns the response, the
// error and the events.
func run(t *testing.T, c *Client, req *llm.Request) (*llm.Response, error, []llm.Event) {
	t.Helper()
	if req == nil {
		req = &llm.Request{Model: "m", Stream: true, Messages: []llm.Message{llm.UserText("hi")}}
	}
	var events []llm.Event
	resp, err := c.Generate(context.Background(), req, func(e llm.Event) { events = append(events, e) })
	if resp == nil {
		t.Fatal("Generate returned a nil response")
	}
	return resp, err, events
}

// sseBody joins chunk payloads into an SSE body.
func sseBody(chunks ...string) string {
	var b strings.Builder
	for _, c := range chunks {
		b.WriteString("data: ")
		b.WriteString(c)
		b.WriteString("\n\n")
	}
	return b.String()
}
