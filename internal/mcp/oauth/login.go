package oauth

import (
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	neturl "net/url"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

// LoginOptions configure [Store.Login]. Out is told the authorization URL
// (always printed, so it can be opened by hand); OpenURL opens it in the
// browser (nil: not opened, as with --no-browser).
//
// Scopes are the scopes to ask for (nil: those of the server's challenge or
// metadata). ClientID (with ClientSecret for a confidential client) is a
// client registered beforehand with the authorization server, used instead
// of dynamic registration; CallbackPort fixes the loopback redirect's port
// (0: any free port), for a client registered with one redirect URI.
// ClientCredentials uses the client-credentials grant (no browser, no
// user: ClientID and ClientSecret are exchanged for a token; with
// PrivateKeyFile, a PEM P-256 or RSA private key, the client authenticates
// with a JWT signed with it instead of a secret: private_key_jwt).
type LoginOptions struct {
	Out               io.Writer
	OpenURL           func(url string) error
	Scopes            []string
	ClientID          string
	ClientSecret      string
	CallbackPort      int
	ClientCredentials bool
	PrivateKeyFile    string
}

// ErrNoOAuth is wrapped by [Store.Login]'s error when the server answered
// without asking for authorization.
var ErrNoOAuth = errors.New("the server does not ask for OAuth")

// Login signs in to MCP server server at url and stores the token: it
// asks the server (an unauthenticated initialize and, when that is
// accepted, a tools/list, for a server that asks only later: step-up
// authorization), discovers its authorization server from the 401's (or
// insufficient_scope 403's) metadata, registers aidex as a client (or uses
// o.ClientID), has the user authorise in the browser (redirected back to a
// loopback listener on 127.0.0.1), exchanges the code with the PKCE
// verifier, and stores the token 0600. With o.ClientCredentials the client
// id and secret are exchanged for a token instead, without a browser.
// Errors: the server does not ask for OAuth (wrapping ErrNoOAuth), cannot
// be reached, or a step of the flow failed (each names the step); ctx
// ending stops the wait for the browser.
func (s *Store) Login(ctx context.Context, server, url string, o LoginOptions) error {
	req, resp, err := s.challenge(ctx, url)
	if err != nil {
		return err
	}
	if o.ClientCredentials {
		return s.clientCredentials(ctx, server, url, resp, o)
	}
	challenges, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	hc, err := s.signInClient(ctx, challenges, url)
	if err != nil {
		_ = resp.Body.Close()
		return fmt.Errorf("OAuth sign-in to MCP server %q: %w", server, err)
	}
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", o.CallbackPort))
	if err != nil {
		_ = resp.Body.Close()
		return fmt.Errorf("OAuth redirect listener on 127.0.0.1:%d: %w", o.CallbackPort, err)
	}
	defer ln.Close()
	redirect := "http://" + ln.Addr().String() + "/callback"
	var got *record
	cfg := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL:              redirect,
		RequestRefreshToken:      true,
		Client:                   hc,
		AuthorizationCodeFetcher: fetcher(ln, o),
		NewTokenSource: func(ctx context.Context, cfg *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
			got = &record{Server: server, URL: url, ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret,
				AuthStyle: cfg.Endpoint.AuthStyle, TokenURL: cfg.Endpoint.TokenURL, Scopes: cfg.Scopes, Token: tok}
			return oauth2.StaticTokenSource(tok), nil
		},
	}
	if o.ClientID != "" {
		cfg.PreregisteredClient = &oauthex.ClientCredentials{ClientID: o.ClientID}
		if o.ClientSecret != "" {
			cfg.PreregisteredClient.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: o.ClientSecret}
		}
	} else {
		cfg.DynamicClientRegistrationConfig = &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			RedirectURIs: []string{redirect}, ClientName: "aidex", TokenEndpointAuthMethod: "none",
			GrantTypes: []string{"authorization_code", "refresh_token"}, ResponseTypes: []string{"code"}}}
	}
	stepUp := s.stepUpScopes(server, url)
	if len(o.Scopes) > 0 || len(stepUp) > 0 {
		scopes := slices.Clone(o.Scopes)
		cfg.ScopeFilter = func(discovered []string) []string {
			if len(scopes) == 0 {
				return unionScopes(discovered, stepUp)
			}
			return unionScopes(scopes, stepUp)
		}
	}
	h, err := auth.NewAuthorizationCodeHandler(cfg)
	if err != nil {
		_ = resp.Body.Close()
		return err
	}
	if err := h.Authorize(ctx, req, resp); err != nil {
		return fmt.Errorf("OAuth sign-in to MCP server %q: %w", server, err)
	}
	if got == nil {
		return fmt.Errorf("OAuth sign-in to MCP server %q: no token was issued", server)
	}
	return s.save(got)
}

// stepUpScopes are the scopes a sign-in to server at url asks for beyond
// the server's challenge: after a step-up challenge (record.StepUp), the
// stored token's scopes and the challenged ones (none without one).
func (s *Store) stepUpScopes(server, url string) []string {
	r, err := s.load(server)
	if err != nil || r.URL != url || len(r.StepUp) == 0 {
		return nil
	}
	return unionScopes(r.Scopes, r.StepUp)
}

// clientCredentials signs in with the client-credentials grant: the token
// endpoint is discovered from the challenge's protected-resource metadata.
func (s *Store) clientCredentials(ctx context.Context, server, mcpURL string, resp *http.Response, o LoginOptions) error {
	_ = resp.Body.Close()
	if o.ClientID == "" || o.ClientSecret == "" && o.PrivateKeyFile == "" {
		return fmt.Errorf("OAuth client-credentials sign-in to MCP server %q needs a client id and a secret or private key (oauth.client_id, and oauth.client_secret_env_var or oauth.private_key_file)", server)
	}
	scopes := slices.Clone(o.Scopes)
	challenges, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	for _, c := range challenges {
		if v := c.Params["scope"]; v != "" && scopes == nil {
			scopes = strings.Fields(v)
		}
	}
	if stepUp := s.stepUpScopes(server, mcpURL); len(stepUp) > 0 {
		scopes = unionScopes(scopes, stepUp)
	}
	tokenURL, resource, issuer, err := s.tokenEndpoint(ctx, challenges, mcpURL)
	if err != nil {
		return fmt.Errorf("OAuth sign-in to MCP server %q: %w", server, err)
	}
	r := &record{Server: server, URL: mcpURL, Grant: grantClientCredentials, ClientID: o.ClientID, ClientSecret: o.ClientSecret,
		KeyFile: o.PrivateKeyFile, Issuer: issuer, TokenURL: tokenURL, Scopes: scopes, Resource: resource}
	r.Token, err = clientCredentialsToken(context.WithValue(ctx, oauth2.HTTPClient, s.httpClient()), r)
	if err != nil {
		return fmt.Errorf("OAuth client-credentials sign-in to MCP server %q: %w", server, err)
	}
	return s.save(r)
}

// clientCredentialsToken fetches a token for r's client with the
// client-credentials grant: authenticated with its secret (HTTP Basic, or
// in the form if the server asks), or with a JWT signed with its private
// key (private_key_jwt, RFC 7523) for the issuer. ctx carries the HTTP
// client (oauth2.HTTPClient).
func clientCredentialsToken(ctx context.Context, r *record) (*oauth2.Token, error) {
	cc := &clientcredentials.Config{ClientID: r.ClientID, ClientSecret: r.ClientSecret, TokenURL: r.TokenURL, Scopes: r.Scopes,
		AuthStyle: r.AuthStyle, EndpointParams: neturl.Values{}}
	if r.Resource != "" {
		cc.EndpointParams.Set("resource", r.Resource)
	}
	if r.KeyFile != "" {
		jwt, err := clientAssertion(r.KeyFile, r.ClientID, r.Issuer, time.Now())
		if err != nil {
			return nil, err
		}
		cc.ClientSecret, cc.AuthStyle = "", oauth2.AuthStyleInParams
		cc.EndpointParams.Set("client_assertion_type", clientAssertionType)
		cc.EndpointParams.Set("client_assertion", jwt)
	}
	return cc.Token(ctx)
}

// ccSource fetches r's tokens with the client-credentials grant.
type ccSource struct {
	ctx context.Context
	r   *record
}

// Token implements oauth2.TokenSource.
func (c ccSource) Token() (*oauth2.Token, error) { return clientCredentialsToken(c.ctx, c.r) }

// tokenEndpoint is the token endpoint of mcpURL's authorization server,
// the resource to name and the authorization server's issuer: the
// protected-resource metadata's first authorization server's, or a
// 2025-03-26 server's (legacyServerMeta).
func (s *Store) tokenEndpoint(ctx context.Context, challenges []oauthex.Challenge, mcpURL string) (tokenURL, resource, issuer string, err error) {
	prm, err := s.protectedResource(ctx, challenges, mcpURL)
	if err != nil {
		return "", "", "", err
	}
	if prm == nil {
		asm, _, err := s.legacyServerMeta(ctx, mcpURL)
		if err != nil {
			return "", "", "", err
		}
		return asm.TokenEndpoint, mcpURL, asm.Issuer, nil
	}
	as, err := auth.GetAuthServerMetadata(ctx, prm.AuthorizationServers[0], s.httpClient())
	if err != nil || as == nil || as.TokenEndpoint == "" {
		return "", "", "", fmt.Errorf("no token endpoint found for %s (%v)", prm.AuthorizationServers[0], err)
	}
	return as.TokenEndpoint, prm.Resource, as.Issuer, nil
}

// challenge asks the server unauthenticated and returns the request and its
// answer asking to sign in: a 401, or a 403 with a WWW-Authenticate
// challenge, to initialize or (a server that accepts initialize
// anonymously: step-up authorization) to the tools/list that follows.
func (s *Store) challenge(ctx context.Context, url string) (*http.Request, *http.Response, error) {
	post := func(body, session string) (*http.Request, *http.Response, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
		if err != nil {
			return nil, nil, fmt.Errorf("MCP server URL %q: %w", url, err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", loginProtocolVersion)
		}
		resp, err := s.httpClient().Do(req)
		if err != nil {
			return nil, nil, fmt.Errorf("reach MCP server %s: %w", url, err)
		}
		return req, resp, nil
	}
	asks := func(r *http.Response) bool {
		return r.StatusCode == http.StatusUnauthorized || r.StatusCode == http.StatusForbidden && r.Header.Get("WWW-Authenticate") != ""
	}
	done := func(r *http.Response) {
		_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, 1<<20))
		_ = r.Body.Close()
	}
	req, resp, err := post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+loginProtocolVersion+`","capabilities":{},"clientInfo":{"name":"aidex","version":"login"}}}`, "")
	if err != nil {
		return nil, nil, err
	}
	if asks(resp) {
		return req, resp, nil
	}
	status := resp.Status
	session := resp.Header.Get("Mcp-Session-Id")
	done(resp)
	if resp.StatusCode/100 == 2 {
		if _, r, err := post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, session); err == nil {
			done(r)
		}
		req, resp, err := post(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, session)
		if err != nil {
			return nil, nil, err
		}
		if session != "" { // the anonymous session is done with
			if del, err := http.NewRequestWithContext(ctx, http.MethodDelete, url, nil); err == nil {
				del.Header.Set("Mcp-Session-Id", session)
				if r, err := s.httpClient().Do(del); err == nil {
					done(r)
				}
			}
		}
		if asks(resp) {
			return req, resp, nil
		}
		done(resp)
	}
	return nil, nil, fmt.Errorf("%w: %s answered %s without asking to sign in (to initialize nor to tools/list); nothing to do", ErrNoOAuth, url, status)
}

// loginProtocolVersion is the MCP protocol version the sign-in's requests
// name.
const loginProtocolVersion = "2025-06-18"

// fetcher shows the user the authorization URL (and opens it) and waits
// on ln for the browser's redirect with the code.
func fetcher(ln net.Listener, o LoginOptions) auth.AuthorizationCodeFetcher {
	return func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
		if o.Out != nil {
			fmt.Fprintf(o.Out, "Open this URL to sign in:\n  %s\nWaiting for the browser to come back to %s ...\n", args.URL, ln.Addr())
		}
		if o.OpenURL != nil {
			if err := o.OpenURL(args.URL); err != nil && o.Out != nil {
				fmt.Fprintf(o.Out, "could not open the browser (%v): open the URL by hand\n", err)
			}
		}
		return waitForCode(ctx, ln)
	}
}

// waitForCode serves the loopback redirect until it brings a code (or an
// error from the authorization server) or ctx ends.
func waitForCode(ctx context.Context, ln net.Listener) (*auth.AuthorizationResult, error) {
	type answer struct {
		res *auth.AuthorizationResult
		err error
	}
	ch := make(chan answer, 1)
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/callback" {
			http.NotFound(w, r)
			return
		}
		q := r.URL.Query()
		a := answer{res: &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}}
		if e := q.Get("error"); e != "" || a.res.Code == "" {
			a = answer{err: fmt.Errorf("the authorization server refused: %s %s", e, q.Get("error_description"))}
			fmt.Fprintf(w, "<p>aidex: sign-in failed: %s</p>", html.EscapeString(e))
		} else {
			fmt.Fprint(w, "<p>aidex: signed in. You can close this tab.</p>")
		}
		select {
		case ch <- a:
		default:
		}
	})}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	select {
	case a := <-ch:
		return a.res, a.err
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting for the browser's sign-in: %w", ctx.Err())
	}
}
