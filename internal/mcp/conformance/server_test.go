package conformance

import (
	"context"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/zelvior/aidex/internal/app/apptest"
	"github.com/zelvior/aidex/internal/cli"
	"github.com/zelvior/aidex/internal/sharedtest"
)

// serveHTTP starts `aidex mcp serve --http 127.0.0.1:0 --token-file F`
// in h's workspace and returns its URL and token; it stops at the end of
// the test.
func serveHTTP(t *testing.T, h *apptest.Home) (endpoint, token string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	tokenFile := filepath.Join(h.Root, "token")
	var stderr sharedtest.Buffer
	done := make(chan int, 1)
	go func() {
		done <- cli.Main(cli.Process{Context: ctx, Args: []string{"-w", h.WS, "mcp", "serve", "--http", "127.0.0.1:0", "--token-file", tokenFile},
			Stdin: strings.NewReader(""), Stdout: &sharedtest.Buffer{}, Stderr: &stderr, Getenv: h.Getenv})
	}()
	t.Cleanup(func() { cancel(); <-done })
	re := regexp.MustCompile(`(http://127\.0\.0\.1:\d+/mcp)[^\n]*\n`)
	for {
		select {
		case code := <-done:
			done <- code
			t.Fatalf("aidex mcp serve exited %d: %s", code, stderr.String())
		default:
		}
		if m := re.FindStringSubmatch(stderr.String()); m != nil && strings.Contains(stderr.String(), "token file:") {
			b, err := os.ReadFile(tokenFile)
			if err != nil {
				t.Fatal(err)
			}
			return m[1], strings.TrimSpace(string(b))
		}
		time.Sleep(5 * time.Millisecond) // poll, not a pass/fail timing
	}
}

// tokenProxy is the suite's way in to `aidex mcp serve --http`: a reverse
// proxy that adds the bearer token (the suite's server mode takes only a
// URL) and is otherwise transparent: a request for the proxy's own
// address reaches aidex as one for aidex's address, any other Host and
// Origin pass unchanged (the DNS-rebinding scenario tests aidex's check).
func tokenProxy(t *testing.T, endpoint, token string) string {
	t.Helper()
	target, err := url.Parse(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	var self string
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			host, origin := r.In.Host, r.In.Header.Get("Origin")
			r.SetURL(&url.URL{Scheme: target.Scheme, Host: target.Host})
			r.Out.Host = host
			if host == self {
				r.Out.Host = target.Host
			}
			if origin == "http://"+self {
				r.Out.Header.Set("Origin", "http://"+target.Host)
			}
			r.Out.Header.Set("Authorization", "Bearer "+token)
		},
		FlushInterval: -1, // SSE events go through as they come
	}
	ps := httptest.NewUnstartedServer(rp)
	self = ps.Listener.Addr().String() // before the first request reads it
	ps.Start()
	t.Cleanup(ps.Close)
	return ps.URL + target.Path
}

// The conformance suite's server scenarios against `aidex mcp serve
// --http`, through the token proxy.
func TestServerOverStreamableHTTP(t *testing.T) {
	t.Parallel()
	h := apptest.NewHome(t, "")
	endpoint, token := serveHTTP(t, h)
	results := suite(t, nil, "server", "--suite", "all", "--url", tokenProxy(t, endpoint, token))
	judge(t, "http", results, append(serverScenarios, "server-sse-polling", "server-sse-multiple-streams", "dns-rebinding-protection")...)
}

// The conformance suite's server scenarios against `aidex mcp serve` over
// stdio, through the stdio bridge.
func TestServerOverStdio(t *testing.T) {
	t.Parallel()
	h := apptest.NewHome(t, "")
	env := make([]string, 0, len(h.Env))
	for k, v := range h.Env {
		env = append(env, k+"="+v)
	}
	b := &stdioBridge{t: t, args: []string{"-w", h.WS, "mcp", "serve"}, env: env, sessions: map[string]*stdioSession{}}
	bridge := httptest.NewServer(b)
	t.Cleanup(func() { b.close(); bridge.Close() })
	results := suite(t, nil, "server", "--suite", "all", "--url", bridge.URL+"/mcp")
	judge(t, "stdio", results, serverScenarios...)
}
