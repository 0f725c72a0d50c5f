package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/config"
	"github.com/zelvior/aidex/internal/mcp"
	"github.com/zelvior/aidex/internal/sharedtest"
)

// EverythingHTTP starts the reference server in streamableHttp mode on a free
// port and returns its endpoint once it accepts connections.
func EverythingHTTP(t testing.TB) string {
	bin := sharedtest.NPMBin(t, "mcp-server-everything")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())
	cmd := exec.Command(bin, "streamableHttp")
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	for deadline := time.Now().Add(60 * time.Second); ; {
		if c, err := net.Dial("tcp", addr); err == nil {
			_ = c.Close()
			break
		}
		require.True(t, time.Now().Before(deadline), "the everything server did not listen on %s", addr)
		time.Sleep(50 * time.Millisecond)
	}
	return "http://" + addr + "/mcp"
}

func TestStreamableHTTPEverything(t *testing.T) {
	url := EverythingHTTP(t)
	m := start(t, config.MCPServer{Name: "everything", URL: url, StartupTimeoutSec: 30, Source: "test"})
	require.Empty(t, m.Failures())
	require.Equal(t, "http", m.Status()[0].Transport)
	r := m.CallTool(context.Background(), "everything", "echo", json.RawMessage(`{"message":"over http"}`))
	require.True(t, r.OK, r.Error)
	require.Equal(t, "Echo: over http", r.Output)
	r = m.CallTool(context.Background(), "everything", "get-sum", json.RawMessage(`{"a":1,"b":2}`))
	require.Contains(t, r.Output, "is 3")
}

func goServer() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "t", Version: "1"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "whoami", Description: "d"}, func(ctx context.Context, req *sdk.CallToolRequest, in struct{}) (*sdk.CallToolResult, any, error) {
		h := http.Header{}
		if req.Extra != nil && req.Extra.Header != nil {
			h = req.Extra.Header
		}
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: h.Get("Authorization") + "|" + h.Get("X-Team")}}}, nil, nil
	})
	return s
}

func TestHeadersAndBearer(t *testing.T) {
	srv := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return goServer() }, nil))
	t.Cleanup(srv.Close)
	env := map[string]string{"REMOTE_TOKEN": "s3cret"}
	m := mcp.Start(context.Background(), mcp.Options{Getenv: func(k string) string { return env[k] }, Servers: []config.MCPServer{{
		Name: "remote", URL: srv.URL, BearerTokenEnvVar: "REMOTE_TOKEN", HTTPHeaders: map[string]string{"X-Team": "a"}, Source: "test"}}})
	defer m.Close()
	require.Empty(t, m.Failures())
	r := m.CallTool(context.Background(), "remote", "whoami", nil)
	require.Equal(t, "Bearer s3cret|a", r.Output)

	// Codex's env_http_headers: the header's value is read from the variable.
	env["TEAM"] = "from-env"
	m2 := mcp.Start(context.Background(), mcp.Options{Getenv: func(k string) string { return env[k] }, Servers: []config.MCPServer{{
		Name: "remote", URL: srv.URL, EnvHTTPHeaders: map[string]string{"X-Team": "TEAM"}, Source: "test"}}})
	defer m2.Close()
	require.Equal(t, "|from-env", m2.CallTool(context.Background(), "remote", "whoami", nil).Output)
}

func TestLegacySSEDetected(t *testing.T) {
	srv := httptest.NewServer(sdk.NewSSEHandler(func(*http.Request) *sdk.Server { return goServer() }, nil))
	t.Cleanup(srv.Close)
	m := start(t, config.MCPServer{Name: "old", URL: srv.URL, StartupTimeoutSec: 10, Source: "test"})
	require.Empty(t, m.Failures())
	r := m.CallTool(context.Background(), "old", "whoami", nil)
	require.True(t, r.OK, r.Error)
}

func TestUnauthorizedNamesLogin(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="x"`)
		http.Error(w, "unauthorized", http.StatusUnauthorized)
	}))
	t.Cleanup(srv.Close)
	m := start(t, config.MCPServer{Name: "locked", URL: srv.URL, Transport: "http", Source: "test"})
	f := m.Failures()
	require.Len(t, f, 1)
	require.Contains(t, f[0], "needs authorisation: run `aidex mcp login locked`")
}

func TestPluggableHTTPClient(t *testing.T) {
	srv := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return goServer() }, nil))
	t.Cleanup(srv.Close)
	var asked atomic.Int32
	m := mcp.Start(context.Background(), mcp.Options{Servers: []config.MCPServer{{Name: "r", URL: srv.URL, Source: "test"}},
		HTTPClient: func(ctx context.Context, server, url string) (*http.Client, error) {
			asked.Add(1)
			require.Equal(t, "r", server)
			require.Equal(t, srv.URL, url)
			return &http.Client{Transport: roundTrip(func(req *http.Request) (*http.Response, error) {
				req.Header.Set("Authorization", "Bearer from-oauth")
				return http.DefaultTransport.RoundTrip(req)
			})}, nil
		}})
	defer m.Close()
	require.Empty(t, m.Failures())
	require.Equal(t, int32(1), asked.Load())
	require.Equal(t, "Bearer from-oauth|", m.CallTool(context.Background(), "r", "whoami", nil).Output)
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// A streamable HTTP server that closes a call's event stream mid-call (SEP-1699,
// with a retry delay) is reconnected to with Last-Event-ID, and the call's
// result arrives.
func TestStreamableHTTPReconnectsWhenTheServerClosesTheStream(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "closer", Version: "1"}, nil)
	closed := make(chan bool, 1)
	sdk.AddTool(srv, &sdk.Tool{Name: "slow"}, func(ctx context.Context, req *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
		ok := req.Extra != nil && req.Extra.CloseSSEStream != nil
		if ok {
			req.Extra.CloseSSEStream(sdk.CloseSSEStreamArgs{RetryAfter: 20 * time.Millisecond})
		}
		closed <- ok
		time.Sleep(100 * time.Millisecond)
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "finished"}}}, nil, nil
	})
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv },
		&sdk.StreamableHTTPOptions{EventStore: sdk.NewMemoryEventStore(nil)}))
	t.Cleanup(hs.Close)
	m := start(t, config.MCPServer{Name: "closer", URL: hs.URL, Transport: "http", Source: "test"})
	require.Empty(t, m.Failures())
	r := m.CallTool(context.Background(), "closer", "slow", nil)
	require.True(t, <-closed, "the server could not close the stream")
	require.True(t, r.OK, r.Error)
	require.Equal(t, "finished", r.Output)
}

// A server that answers a later call with 403 and a scope challenge (step-up
// authorization) gives the model an error naming the scope and the login.
func TestStepUpChallengeOnACallNamesLogin(t *testing.T) {
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return goServer() }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			if bytes.Contains(body, []byte(`"tools/call"`)) {
				w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="admin", resource_metadata="http://x/.well-known/oauth-protected-resource"`)
				http.Error(w, "insufficient scope", http.StatusForbidden)
				return
			}
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	m := start(t, config.MCPServer{Name: "guarded", URL: srv.URL, Transport: "http", Source: "test"})
	require.Empty(t, m.Failures(), "initialize and tools/list are anonymous")
	r := m.CallTool(context.Background(), "guarded", "whoami", nil)
	require.False(t, r.OK)
	require.Contains(t, r.Error, `needs authorisation (the server asks for scope "admin"): run `+"`aidex mcp login guarded`")
}
