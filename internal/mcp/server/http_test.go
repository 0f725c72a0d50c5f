package server

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// bearer adds the token to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

func serveHTTP(t *testing.T, f *fixture, token string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	h, closeSessions := f.srv.HTTPHandler(token, ln.Addr(), "127.0.0.1")
	hs := &http.Server{Handler: h}
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close(); closeSessions() })
	return "http://" + ln.Addr().String() + "/mcp"
}

// Over HTTP a client with the token lists and calls the tools; without
// it, with another Host or from another Origin it is refused.
func TestHTTPNeedsTheTokenAndTheServersHost(t *testing.T) {
	f := newFixture(t, "")
	token, err := NewToken()
	require.NoError(t, err)
	url := serveHTTP(t, f, token)
	ctx := context.Background()

	tr := &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, tr, nil)
	require.NoError(t, err)
	tools, err := cs.ListTools(ctx, nil)
	require.NoError(t, err)
	require.NotEmpty(t, tools.Tools)
	require.NoError(t, cs.Close())

	_, err = mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	require.Error(t, err, "no token")
	wrong := &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{"wrong", http.DefaultTransport}}}
	_, err = mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, wrong, nil)
	require.Error(t, err, "wrong token")

	port := strings.TrimSuffix(strings.Split(url, ":")[2], "/mcp")
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	for _, tc := range []struct {
		name, host, origin, token string
		want                      int
	}{
		{"no token", "", "", "", http.StatusUnauthorized},
		{"wrong token", "", "", "nope", http.StatusUnauthorized},
		{"rebinding host", "evil.example:" + port, "", token, http.StatusForbidden},
		{"other origin", "", "http://evil.example", token, http.StatusForbidden},
		{"all good", "", "", token, http.StatusOK},
	} {
		req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if tc.host != "" {
			req.Host = tc.host
		}
		if tc.origin != "" {
			req.Header.Set("Origin", tc.origin)
		}
		if tc.token != "" {
			req.Header.Set("Authorization", "Bearer "+tc.token)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		_ = resp.Body.Close()
		require.Equal(t, tc.want, resp.StatusCode, tc.name)
	}
}
