// Package oauth signs aidex in to HTTP MCP servers that require OAuth 2.1
// (`aidex mcp login NAME`) and gives the MCP client an authorised HTTP
// client for them. The flow is the MCP authorization spec's, through the
// go-sdk's auth package: protected-resource and authorization-server
// metadata discovery, dynamic client registration, the authorization code
// grant with PKCE (S256) through a loopback redirect listener, and refresh
// tokens. Tokens are stored one JSON file per server, mode 0600, written
// atomically, under <state dir>/mcp-oauth.
package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"golang.org/x/oauth2"

	"github.com/zelvior/aidex/internal/atomicfile"
)

// ErrNoToken is wrapped by [Store.HTTPClient]'s error when no token is
// stored for the server.
var ErrNoToken = errors.New("no OAuth token")

// Store keeps the OAuth tokens of MCP servers in a directory. HTTP is the
// client used for discovery, registration and the token endpoint (nil:
// http.DefaultClient). A Store is safe for concurrent use.
type Store struct {
	dir  string
	HTTP *http.Client
	mu   sync.Mutex
}

// NewStore returns the store under stateDir (aidex's state directory):
// <stateDir>/mcp-oauth.
func NewStore(stateDir string) *Store {
	return &Store{dir: filepath.Join(stateDir, "mcp-oauth")}
}

// record is one server's stored sign-in: the server's URL, the registered
// client and the token endpoint (for refreshes), and the token.
type record struct {
	Server string `json:"server"`
	// Grant is "" (authorization code: refreshed with the refresh token)
	// or "client_credentials" (a new token is fetched with the client's
	// id and secret when it expires).
	Grant        string `json:"grant,omitempty"`
	Resource     string `json:"resource,omitempty"`
	URL          string `json:"url"`
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret,omitempty"`
	// KeyFile is the PEM private key of a private_key_jwt client, Issuer
	// the authorization server its assertions are for.
	KeyFile   string           `json:"key_file,omitempty"`
	Issuer    string           `json:"issuer,omitempty"`
	AuthStyle oauth2.AuthStyle `json:"auth_style"`
	TokenURL  string           `json:"token_url"`
	Scopes    []string         `json:"scopes,omitempty"`
	// StepUp are scopes the server asked for beyond the token's (a 403
	// insufficient_scope challenge: step-up authorization); the next
	// sign-in asks for them too.
	StepUp []string      `json:"step_up_scopes,omitempty"`
	Token  *oauth2.Token `json:"token"`
}

// grantClientCredentials is record.Grant of a client-credentials sign-in.
const grantClientCredentials = "client_credentials"

// path is the file of server's token: the name with every character
// other than letters, digits, '-' and '_' replaced.
func (s *Store) path(server string) string {
	safe := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, server)
	return filepath.Join(s.dir, safe+".json")
}

func (s *Store) load(server string) (*record, error) {
	b, err := os.ReadFile(s.path(server))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w for MCP server %q: sign in with `aidex mcp login %s`", ErrNoToken, server, server)
	}
	if err != nil {
		return nil, fmt.Errorf("read the OAuth token of MCP server %q: %w", server, err)
	}
	var r record
	if err := json.Unmarshal(b, &r); err != nil || r.Token == nil {
		return nil, fmt.Errorf("the OAuth token file %s is damaged (%v): sign in again with `aidex mcp login %s`", s.path(server), err, server)
	}
	return &r, nil
}

func (s *Store) save(r *record) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return fmt.Errorf("OAuth token directory: %w", err)
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(s.path(r.Server), b, 0o600); err != nil {
		return fmt.Errorf("save the OAuth token of MCP server %q: %w", r.Server, err)
	}
	return nil
}

// Logout deletes server's stored token; false when there was none.
func (s *Store) Logout(server string) (bool, error) {
	err := os.Remove(s.path(server))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("delete the OAuth token of MCP server %q: %w", server, err)
	}
	return true, nil
}

func (s *Store) httpClient() *http.Client {
	if s.HTTP != nil {
		return s.HTTP
	}
	return http.DefaultClient
}

// HTTPClient returns an HTTP client authorised for MCP server server at
// url: every request carries the stored access token as a bearer token,
// refreshed (and the refreshed token stored) when it has expired.
// Errors: no stored token (wrapping ErrNoToken, naming `aidex mcp login
// NAME`), a token stored for another URL, an unreadable token file. A
// refresh that fails makes the requests fail with an error naming the
// login command.
func (s *Store) HTTPClient(ctx context.Context, server, url string) (*http.Client, error) {
	r, err := s.load(server)
	if err != nil {
		return nil, err
	}
	if r.URL != url {
		return nil, fmt.Errorf("the OAuth token of MCP server %q was issued for %s, not %s: sign in again with `aidex mcp login %s`", server, r.URL, url, server)
	}
	base := s.httpClient()
	refreshCtx := context.WithValue(context.WithoutCancel(ctx), oauth2.HTTPClient, base)
	src := &persisting{store: s, server: server, ctx: refreshCtx, rec: r, next: tokenSource(refreshCtx, r)}
	if info, err := os.Stat(s.path(server)); err == nil {
		src.mod = info.ModTime()
	}
	transport := base.Transport
	if transport == nil {
		transport = http.DefaultTransport
	}
	return &http.Client{Transport: &oauth2.Transport{Source: src, Base: &stepUp{src: src, next: transport}}, Timeout: base.Timeout}, nil
}

// tokenSource is the source of r's tokens: r.Token, then refreshed (or,
// for the client-credentials grant, fetched again) through ctx's client.
func tokenSource(ctx context.Context, r *record) oauth2.TokenSource {
	if r.Grant == grantClientCredentials {
		return oauth2.ReuseTokenSource(r.Token, ccSource{ctx: ctx, r: r})
	}
	cfg := &oauth2.Config{ClientID: r.ClientID, ClientSecret: r.ClientSecret, Scopes: r.Scopes,
		Endpoint: oauth2.Endpoint{TokenURL: r.TokenURL, AuthStyle: r.AuthStyle}}
	return cfg.TokenSource(ctx, r.Token)
}

// stepUp notes the scopes of a 403 insufficient_scope challenge (step-up
// authorization) in the stored sign-in, so that `aidex mcp login` asks
// for them with the token's.
type stepUp struct {
	src  *persisting
	next http.RoundTripper
}

// RoundTrip implements http.RoundTripper.
func (t *stepUp) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusForbidden {
		return resp, err
	}
	cs, perr := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	if perr != nil {
		return resp, nil
	}
	for _, c := range cs {
		if c.Params["error"] == "insufficient_scope" && c.Params["scope"] != "" {
			t.src.wantScopes(strings.Fields(c.Params["scope"]))
		}
	}
	return resp, nil
}

// persisting stores the token again whenever the source refreshed it.
// A sign-in stored since (`aidex mcp login` again, in another process: a
// new token, more scopes) takes over at the next request.
type persisting struct {
	store  *Store
	server string
	ctx    context.Context // of refreshes
	mu     sync.Mutex
	rec    *record
	next   oauth2.TokenSource
	mod    time.Time // the token file's, when rec was read or written
}

// reload takes over a sign-in stored since rec was read: the token file
// changed and holds another token for the same URL.
func (p *persisting) reload() {
	info, err := os.Stat(p.store.path(p.server))
	if err != nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if info.ModTime().Equal(p.mod) {
		return
	}
	p.mod = info.ModTime()
	r, err := p.store.load(p.server)
	if err != nil || r.URL != p.rec.URL || r.Token.AccessToken == p.rec.Token.AccessToken {
		return
	}
	p.rec, p.next = r, tokenSource(p.ctx, r)
}

// wantScopes stores scopes as the sign-in's step-up scopes (a failure to
// store them only makes the next sign-in ask for the challenge's scopes).
func (p *persisting) wantScopes(scopes []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	want := unionScopes(p.rec.StepUp, scopes)
	if len(want) == len(p.rec.StepUp) {
		return
	}
	r := *p.rec
	r.StepUp = want
	if p.store.save(&r) == nil {
		p.rec = &r
	}
}

// unionScopes is a's scopes, then those of b not in a.
func unionScopes(a, b []string) []string {
	out := slices.Clone(a)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// Token returns a valid token, refreshing and storing it when needed.
func (p *persisting) Token() (*oauth2.Token, error) {
	p.reload()
	p.mu.Lock()
	next := p.next
	p.mu.Unlock()
	tok, err := next.Token()
	if err != nil {
		return nil, fmt.Errorf("MCP server %q: the OAuth token has expired and could not be refreshed (%w): sign in again with `aidex mcp login %s`", p.server, err, p.server)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if tok.AccessToken != p.rec.Token.AccessToken && p.next == next { // (not when a new sign-in took over meanwhile)
		r := *p.rec
		r.Token = tok
		if tok.RefreshToken == "" {
			r.Token.RefreshToken = p.rec.Token.RefreshToken
		}
		if err := p.store.save(&r); err != nil {
			return nil, err
		}
		p.rec = &r
	}
	return tok, nil
}
