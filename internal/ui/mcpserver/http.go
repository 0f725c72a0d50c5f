package mcpserver

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zelvior/aidex/internal/atomicfile"
	"github.com/zelvior/aidex/internal/httpguard"
)

// NewToken returns a fresh bearer token for the HTTP mode: 32 random
// bytes, base64url. Errors: the system's random source failed.
func NewToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("mcp token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// WriteTokenFile writes token (and a newline) to path atomically (a
// reader sees the whole token or the file as it was), readable and
// writable only by the user (0600, also when the file existed with a
// wider mode). Errors: the file system's, naming the path.
func WriteTokenFile(path, token string) error {
	if err := atomicfile.WritePrivate(path, []byte(token+"\n")); err != nil {
		return fmt.Errorf("--token-file %s: %w", path, err)
	}
	return nil
}

// SSERetry is the reconnection delay the HTTP mode sends in the "retry"
// field at the start of every SSE stream: a client whose stream breaks
// reconnects (with Last-Event-ID) after it.
const SSERetry = time.Second

// HTTPOptions configure [Server.HTTPHandler]. Token is the bearer token
// every request must send. TokenFile, when set, is the file the token
// was written to, named with the printed token in the answer to a
// request without it. Bound is the listener's address and Host the
// address the user asked to bind ("127.0.0.1").
type HTTPOptions struct {
	Token     string
	TokenFile string
	Bound     net.Addr
	Host      string
}

// HTTPHandler serves the protocol server over streamable HTTP behind the
// web UI's checks: a Host other than this server's address (DNS
// rebinding) gets 403, a request from another Origin 403, a request
// without "Authorization: Bearer TOKEN" 401 with a message naming the
// token aidex printed (and the token file), as does every OAuth
// discovery and sign-in endpoint a client tries after the 401: the server
// takes no OAuth sign-in, and a client that started one would never
// finish. Streams resume: every SSE stream starts with the retry field
// ([SSERetry]) and, for clients of protocol 2025-11-25, a priming event
// whose id a reconnecting client sends as Last-Event-ID.
// closeSessions ends the client sessions still open (call it after the
// HTTP server stopped).
func (s *Server) HTTPHandler(o HTTPOptions) (h http.Handler, closeSessions func()) {
	hosts := httpguard.NewHostRules(o.Bound, o.Host)
	srv := s.MCP()
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{EventStore: mcp.NewMemoryEventStore(nil)})
	closeSessions = func() {
		for ss := range srv.Sessions() {
			_ = ss.Close()
		}
	}
	need := NeedTokenMessage(o.TokenFile)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case !hosts.OK(r.Host):
			http.Error(w, "Host "+strconv.Quote(r.Host)+" is not this server's address: connect to http://127.0.0.1:"+hosts.Port()+"/mcp", http.StatusForbidden)
		case r.Method == http.MethodOptions || !httpguard.SameOrigin(r):
			http.Error(w, "request from another origin refused (no CORS): connect from an MCP client, not a web page", http.StatusForbidden)
		case isOAuthPath(r.URL.Path):
			noOAuth(w, r, need)
		case !httpguard.Bearer(r, o.Token):
			challenge := `Bearer realm="aidex mcp"`
			if r.Header.Get("Authorization") != "" { // RFC 6750 §3: error details only for a wrong token
				challenge += `, error="invalid_token", error_description=` + strconv.Quote(need)
			}
			w.Header().Set("WWW-Authenticate", challenge)
			http.Error(w, need, http.StatusUnauthorized)
		default:
			mcpHandler.ServeHTTP(&sseRetryWriter{ResponseWriter: w}, r)
		}
	}), closeSessions
}

// NeedTokenMessage is what a request without the token is told: the
// token aidex mcp serve printed (and tokenFile, when set), how to send
// it, and that there is no OAuth sign-in.
func NeedTokenMessage(tokenFile string) string {
	where := "the token `aidex mcp serve` printed on its stderr when it started (the line \"token: ...\")"
	if tokenFile != "" {
		where += " or wrote to " + tokenFile
	}
	return "aidex mcp serve needs " + where + ": send it as the header Authorization: Bearer TOKEN " +
		"(e.g. claude mcp add --transport http aidex URL --header \"Authorization: Bearer TOKEN\"). " +
		"This server takes no OAuth sign-in."
}

// isOAuthPath reports whether p is an endpoint an MCP client tries for an
// OAuth sign-in after a 401: the metadata documents (RFC 9728, RFC 8414,
// OpenID) and the default endpoints of protocol 2025-03-26.
func isOAuthPath(p string) bool {
	return strings.HasPrefix(p, "/.well-known/") || p == "/authorize" || p == "/token" || p == "/register"
}

// noOAuth answers an OAuth endpoint: 404 for the metadata documents, an
// OAuth error for the sign-in endpoints (clients show its
// error_description), each naming the token.
func noOAuth(w http.ResponseWriter, r *http.Request, need string) {
	status, code := http.StatusNotFound, "not_found"
	switch r.URL.Path {
	case "/register":
		status, code = http.StatusBadRequest, "invalid_client_metadata"
	case "/token":
		status, code = http.StatusBadRequest, "unsupported_grant_type"
	case "/authorize":
		status, code = http.StatusBadRequest, "unsupported_response_type"
	}
	b, _ := json.Marshal(map[string]string{"error": code, "error_description": need})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// sseRetryWriter starts an SSE response with the retry field: the first
// write (the priming event, when there is one) gets "retry: MS" as its
// first line.
type sseRetryWriter struct {
	http.ResponseWriter
	once sync.Once
}

func (w *sseRetryWriter) Write(p []byte) (int, error) {
	var err error
	w.once.Do(func() {
		if strings.HasPrefix(w.Header().Get("Content-Type"), "text/event-stream") {
			_, err = fmt.Fprintf(w.ResponseWriter, "retry: %d\n", SSERetry.Milliseconds())
		}
	})
	if err != nil {
		return 0, err
	}
	return w.ResponseWriter.Write(p)
}

// Flush flushes the response (SSE events go out as they are written).
func (w *sseRetryWriter) Flush() {
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

// Unwrap returns the response writer (for http.ResponseController).
func (w *sseRetryWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
