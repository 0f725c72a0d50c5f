// Package oauthtest is a fake OAuth 2.1 protected MCP endpoint for tests
// of aidex's MCP sign-in. Only tests import it.
package oauthtest

import (
	"context"
	"crypto/ecdsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Server is an MCP server (at URL + "/mcp": one tool, whoami; a plain GET
// answers "hello TOKEN") with its own OAuth 2.1 authorization server:
// protected-resource and authorization-server metadata, dynamic client
// registration, an authorize endpoint that redirects straight back with a
// code, and a token endpoint that checks the PKCE verifier and refreshes.
// Its access tokens expire within the oauth2 package's expiry margin, so
// the first use of a token refreshes it.
//
// With StepUp set, the MCP endpoint accepts an anonymous initialize (and
// notifications, and the DELETE ending the session) and answers every other request without a token with 403
// and an insufficient_scope challenge for scope "tools" (the spec's step-up
// authorization). URL + "/admin" answers every request with 403 and an
// insufficient_scope challenge for scopes "tools admin" (a request that
// needs more than a token grants). [Server.Preregister] adds a client registered beforehand,
// which may use the client-credentials grant with its secret.
//
// Legacy makes it a server of the MCP 2025-03-26 authorization spec: no
// protected-resource metadata (and no resource_metadata in its challenge);
// with LegacyMetadata its authorization server metadata is at the origin's
// /.well-known/oauth-authorization-server, naming the issuer URL+"/oauth"
// and endpoints under /oauth/; with LegacyDefaults there is none and the
// endpoints are the spec's defaults /authorize, /token and /register.
type Server struct {
	*httptest.Server
	StepUp     bool
	Legacy     Legacy
	mu         sync.Mutex
	secrets    map[string]string           // pre-registered client id → secret
	keys       map[string]*ecdsa.PublicKey // pre-registered client id → its key (private_key_jwt)
	clients    map[string]string           // client id → redirect URI
	codes      map[string]string           // code → PKCE challenge
	issued     map[string]bool             // access tokens
	refreshes  int
	registered int
	n          int
}

// Legacy is a [Server]'s 2025-03-26 mode.
type Legacy int

// The 2025-03-26 modes of a [Server]: none (the current spec), metadata at
// the origin, default endpoints.
const (
	LegacyNone Legacy = iota
	LegacyMetadata
	LegacyDefaults
)

// NewServer starts the server; the test's end stops it.
func NewServer(t testing.TB) *Server {
	f := &Server{clients: map[string]string{}, codes: map[string]string{}, issued: map[string]bool{}, secrets: map[string]string{}, keys: map[string]*ecdsa.PublicKey{}}
	mux := http.NewServeMux()
	f.Server = httptest.NewServer(mux)
	mcpHandler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return mcpServer() }, nil)
	t.Cleanup(f.Close)
	f.handleOAuth(mux)
	mux.HandleFunc("/admin", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer error="insufficient_scope", scope="tools admin", resource_metadata="%s/.well-known/oauth-protected-resource/mcp"`, f.URL))
		http.Error(w, "insufficient scope", http.StatusForbidden)
	})
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		f.mu.Lock()
		ok := f.issued[tok]
		f.mu.Unlock()
		if !ok && f.StepUp && r.Method == http.MethodDelete {
			mcpHandler.ServeHTTP(w, r) // ending an anonymous session
			return
		}
		if !ok && f.StepUp && r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(strings.NewReader(string(body)))
			if strings.Contains(string(body), `"method":"initialize"`) || strings.Contains(string(body), `"method":"notifications/`) {
				mcpHandler.ServeHTTP(w, r)
				return
			}
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer error="insufficient_scope", scope="tools", resource_metadata="%s/.well-known/oauth-protected-resource/mcp"`, f.URL))
			http.Error(w, "insufficient scope", http.StatusForbidden)
			return
		}
		if !ok {
			challenge := fmt.Sprintf(`Bearer resource_metadata="%s/.well-known/oauth-protected-resource/mcp"`, f.URL)
			if f.Legacy != LegacyNone {
				challenge = "Bearer"
			}
			w.Header().Set("WWW-Authenticate", challenge)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		if r.Method == http.MethodGet && !strings.Contains(r.Header.Get("Accept"), "text/event-stream") {
			fmt.Fprint(w, "hello "+tok)
			return
		}
		mcpHandler.ServeHTTP(w, r)
	})
	return f
}

// handleOAuth adds the metadata and the authorization server's endpoints.
func (f *Server) handleOAuth(mux *http.ServeMux) {
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		if f.Legacy != LegacyNone {
			http.NotFound(w, r)
			return
		}
		writeJSON(w, map[string]any{"resource": f.URL + "/mcp", "authorization_servers": []string{f.URL}})
	})
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		switch f.Legacy {
		case LegacyDefaults:
			http.NotFound(w, r)
			return
		case LegacyMetadata:
			u := f.URL + "/oauth"
			writeJSON(w, map[string]any{"issuer": u, "authorization_endpoint": u + "/authorize", "token_endpoint": u + "/token",
				"registration_endpoint": u + "/register", "response_types_supported": []string{"code"}, "code_challenge_methods_supported": []string{"S256"}})
			return
		}
		writeJSON(w, map[string]any{"issuer": f.URL, "authorization_endpoint": f.URL + "/authorize", "token_endpoint": f.URL + "/token",
			"registration_endpoint": f.URL + "/register", "response_types_supported": []string{"code"},
			"code_challenge_methods_supported": []string{"S256"}, "grant_types_supported": []string{"authorization_code", "refresh_token"}})
	})
	for _, prefix := range []string{"", "/oauth"} {
		// The endpoints are under /oauth/ with LegacyMetadata only.
		only := func(h http.HandlerFunc) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				if (f.Legacy == LegacyMetadata) != (prefix == "/oauth") {
					http.NotFound(w, r)
					return
				}
				h(w, r)
			}
		}
		mux.HandleFunc(prefix+"/register", only(f.register))
		mux.HandleFunc(prefix+"/authorize", only(f.authorize))
		mux.HandleFunc(prefix+"/token", only(f.token))
	}
}

// mcpServer is the MCP server behind the token check: one tool, whoami,
// answering "signed in".
func mcpServer() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "oauthtest", Version: "1"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "whoami", Description: "Says who is signed in."}, func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "signed in"}}}, nil, nil
	})
	return s
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func (f *Server) register(w http.ResponseWriter, r *http.Request) {
	var m struct {
		RedirectURIs []string `json:"redirect_uris"`
	}
	_ = json.NewDecoder(r.Body).Decode(&m)
	f.mu.Lock()
	f.registered++
	id := fmt.Sprintf("client-%d", f.registered)
	f.clients[id] = m.RedirectURIs[0]
	f.mu.Unlock()
	w.WriteHeader(http.StatusCreated)
	writeJSON(w, map[string]any{"client_id": id, "redirect_uris": m.RedirectURIs, "token_endpoint_auth_method": "none"})
}

func (f *Server) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f.mu.Lock()
	redirect, ok := f.clients[q.Get("client_id")]
	f.n++
	code := fmt.Sprintf("code-%d", f.n)
	f.codes[code] = q.Get("code_challenge")
	f.mu.Unlock()
	if !ok || q.Get("redirect_uri") != redirect || q.Get("code_challenge_method") != "S256" || q.Get("response_type") != "code" {
		http.Error(w, "bad authorization request", http.StatusBadRequest)
		return
	}
	http.Redirect(w, r, redirect+"?code="+code+"&state="+q.Get("state"), http.StatusFound)
}

func (f *Server) token(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	f.mu.Lock()
	defer f.mu.Unlock()
	switch r.Form.Get("grant_type") {
	case "authorization_code":
		challenge, ok := f.codes[r.Form.Get("code")]
		sum := sha256.Sum256([]byte(r.Form.Get("code_verifier")))
		if !ok || base64.RawURLEncoding.EncodeToString(sum[:]) != challenge {
			w.WriteHeader(http.StatusBadRequest)
			writeJSON(w, map[string]any{"error": "invalid_grant", "error_description": "PKCE verifier does not match"})
			return
		}
		delete(f.codes, r.Form.Get("code"))
	case "client_credentials":
		if a := r.Form.Get("client_assertion"); a != "" {
			if !f.assertionValid(r.Form.Get("client_assertion_type"), a) {
				w.WriteHeader(http.StatusUnauthorized)
				writeJSON(w, map[string]any{"error": "invalid_client", "error_description": "bad client assertion"})
				return
			}
			break
		}
		id, secret, ok := r.BasicAuth()
		if !ok {
			id, secret = r.Form.Get("client_id"), r.Form.Get("client_secret")
		}
		if want, known := f.secrets[id]; !known || want == "" || secret != want {
			w.WriteHeader(http.StatusUnauthorized)
			writeJSON(w, map[string]any{"error": "invalid_client"})
			return
		}
	case "refresh_token":
		if r.Form.Get("refresh_token") != "refresh-1" {
			w.WriteHeader(http.StatusBadRequest)
			writeJSON(w, map[string]any{"error": "invalid_grant"})
			return
		}
		f.refreshes++
	default:
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	f.n++
	tok := fmt.Sprintf("access-%d", f.n)
	f.issued[tok] = true
	writeJSON(w, map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": 2, "refresh_token": "refresh-1"})
}

// Preregister adds a client registered beforehand: its id, its secret
// ("" for a public client) and its redirect URI.
func (f *Server) Preregister(id, secret, redirect string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.clients[id] = redirect
	f.secrets[id] = secret
}

// PreregisterKey adds a client registered beforehand that authenticates
// with JWTs signed with the private key of pub (private_key_jwt, ES256).
func (f *Server) PreregisterKey(id string, pub *ecdsa.PublicKey) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.keys[id] = pub
}

// assertionValid checks a private_key_jwt client assertion (f.mu held):
// its type, an ES256 signature by a pre-registered key of the client its
// iss and sub name, the audience f.URL (the issuer) and its expiry.
func (f *Server) assertionValid(typ, jwt string) bool {
	parts := strings.Split(jwt, ".")
	if typ != "urn:ietf:params:oauth:client-assertion-type:jwt-bearer" || len(parts) != 3 {
		return false
	}
	var claims struct {
		Iss, Sub, Aud string
		Exp           int64
	}
	b, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil || json.Unmarshal(b, &claims) != nil || claims.Iss != claims.Sub || claims.Aud != f.URL || claims.Exp < time.Now().Unix() {
		return false
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	pub := f.keys[claims.Iss]
	if err != nil || len(sig) != 64 || pub == nil {
		return false
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	return ecdsa.Verify(pub, digest[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:]))
}

// Counts returns how many clients registered and how many refresh grants
// the token endpoint answered.
func (f *Server) Counts() (registered, refreshes int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.registered, f.refreshes
}

// Browser follows the authorization URL as a browser would (in the
// background): the authorization server redirects it to aidex's loopback
// listener. It fits cli.Process.OpenURL and oauth.LoginOptions.OpenURL.
func Browser(url string) error {
	go func() {
		resp, err := http.Get(url)
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
		}
	}()
	return nil
}
