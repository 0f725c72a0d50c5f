package server

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"

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

// HTTPHandler serves the protocol server over streamable HTTP behind the
// web UI's checks: a Host other than this server's address (DNS
// rebinding) gets 403, a request from another Origin 403, a request
// without "Authorization: Bearer TOKEN" 401. bound is the listener's
// address and host the address the user asked to bind ("127.0.0.1").
// closeSessions ends the client sessions still open (call it after the
// HTTP server stopped).
func (s *Server) HTTPHandler(token string, bound net.Addr, host string) (h http.Handler, closeSessions func()) {
	hosts := httpguard.NewHostRules(bound, host)
	srv := s.MCP()
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	closeSessions = func() {
		for ss := range srv.Sessions() {
			_ = ss.Close()
		}
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case !hosts.OK(r.Host):
			http.Error(w, "Host "+strconv.Quote(r.Host)+" is not this server's address: connect to http://127.0.0.1:"+hosts.Port()+"/mcp", http.StatusForbidden)
		case r.Method == http.MethodOptions || !httpguard.SameOrigin(r):
			http.Error(w, "request from another origin refused (no CORS): connect from an MCP client, not a web page", http.StatusForbidden)
		case !httpguard.Bearer(r, token):
			w.Header().Set("WWW-Authenticate", `Bearer realm="aidex mcp"`)
			http.Error(w, "missing or wrong token: send Authorization: Bearer TOKEN with the token aidex mcp serve printed", http.StatusUnauthorized)
		default:
			mcpHandler.ServeHTTP(w, r)
		}
	}), closeSessions
}
