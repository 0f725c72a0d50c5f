package mcpserver

import (
	"context"
	"encoding/json"
	"io"
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
	h, closeSessions := f.srv.HTTPHandler(HTTPOptions{Token: token, Bound: ln.Addr(), Host: "127.0.0.1"})
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

// A request without the token, and every OAuth endpoint a client tries
// after the 401, is answered with a message naming the printed token and
// the token file, never an OAuth flow that could start.
func TestHTTPWithoutTheTokenNamesIt(t *testing.T) {
	f := newFixture(t, "")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	h, closeSessions := f.srv.HTTPHandler(HTTPOptions{Token: "secret-token", TokenFile: "/home/me/.aidex-token", Bound: ln.Addr(), Host: "127.0.0.1"})
	hs := &http.Server{Handler: h}
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close(); closeSessions() })
	base := "http://" + ln.Addr().String()
	for _, tc := range []struct {
		name, method, path, auth string
		status                   int
		challenge                string // a part of WWW-Authenticate ("" none expected)
		oauthError               string // the JSON error code ("" for a text body)
	}{
		{"no token", "POST", "/mcp", "", 401, `Bearer realm="aidex mcp"`, ""},
		{"wrong token", "POST", "/mcp", "Bearer nope", 401, `error="invalid_token"`, ""},
		{"protected resource metadata", "GET", "/.well-known/oauth-protected-resource/mcp", "", 404, "", "not_found"},
		{"authorization server metadata", "GET", "/.well-known/oauth-authorization-server", "", 404, "", "not_found"},
		{"openid configuration", "GET", "/.well-known/openid-configuration", "", 404, "", "not_found"},
		{"dynamic registration", "POST", "/register", "", 400, "", "invalid_client_metadata"},
		{"authorize", "GET", "/authorize?response_type=code", "", 400, "", "unsupported_response_type"},
		{"token", "POST", "/token", "", 400, "", "unsupported_grant_type"},
	} {
		req, err := http.NewRequest(tc.method, base+tc.path, strings.NewReader(`{}`))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		if tc.auth != "" {
			req.Header.Set("Authorization", tc.auth)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		require.Equal(t, tc.status, resp.StatusCode, tc.name)
		msg := string(body)
		if tc.oauthError != "" {
			var e map[string]string
			require.NoError(t, json.Unmarshal(body, &e), tc.name)
			require.Equal(t, tc.oauthError, e["error"], tc.name)
			msg = e["error_description"]
		}
		for _, want := range []string{"printed", "token: ...", "/home/me/.aidex-token", "Authorization: Bearer TOKEN", "no OAuth"} {
			require.Contains(t, msg, want, tc.name)
		}
		require.NotContains(t, msg, "secret-token", tc.name)
		if tc.challenge != "" {
			require.Contains(t, resp.Header.Get("WWW-Authenticate"), tc.challenge, tc.name)
		}
		if tc.name == "no token" {
			require.NotContains(t, resp.Header.Get("WWW-Authenticate"), "error=", "RFC 6750: no error details without credentials")
		}
	}
}

// An SSE response starts with the retry field, in the priming event
// (an id and empty data) for a 2025-11-25 client, so that a client whose
// stream breaks reconnects with Last-Event-ID.
func TestHTTPPrimesSSEStreamsWithRetry(t *testing.T) {
	f := newFixture(t, "")
	token := "t0k"
	url := serveHTTP(t, f, token)
	post := func(session, body string) (*http.Response, string) {
		req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+token)
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		b, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		return resp, string(b)
	}
	resp, body := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`)
	require.Equal(t, http.StatusOK, resp.StatusCode, body)
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	session := resp.Header.Get("Mcp-Session-Id")
	_, _ = post(session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	_, body = post(session, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	first, _, _ := strings.Cut(body, "\n\n")
	if len(first) > 200 {
		first = first[:200] + "..."
	}
	fields := map[string]string{}
	for _, line := range strings.Split(first, "\n") {
		k, v, _ := strings.Cut(line, ":")
		fields[k] = strings.TrimSpace(v)
	}
	require.Equal(t, "1000", fields["retry"], "the first event carries retry: %q", first)
	require.NotEmpty(t, fields["id"], "the first event is the priming event (an id): %q", first)
	require.Contains(t, fields, "data")
	require.Empty(t, fields["data"], "the priming event's data is empty: %q", first)
	require.Contains(t, body, `"tools"`)
}
