package oauth

import (
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// LoginOptions configure [Store.Login]. Out is told the authorization URL
// (always printed, so it can be opened by hand); OpenURL opens it in the
// browser (nil: not opened, as with --no-browser).
type LoginOptions struct {
	Out     io.Writer
	OpenURL func(url string) error
}

// ErrNoOAuth is wrapped by [Store.Login]'s error when the server answered
// without asking for authorization.
var ErrNoOAuth = errors.New("the server does not ask for OAuth")

// Login signs in to MCP server server at url and stores the token: it
// asks the server (an unauthenticated initialize), discovers its
// authorization server from the 401's metadata, registers aidex as a
// client, has the user authorise in the browser (redirected back to a
// loopback listener on 127.0.0.1), exchanges the code with the PKCE
// verifier, and stores the token 0600. Errors: the server does not ask
// for OAuth (wrapping ErrNoOAuth), cannot be reached, or a step of the
// flow failed (each names the step); ctx ending stops the wait for the
// browser.
func (s *Store) Login(ctx context.Context, server, url string, o LoginOptions) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("OAuth redirect listener: %w", err)
	}
	defer ln.Close()
	redirect := "http://" + ln.Addr().String() + "/callback"
	var got *record
	h, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			RedirectURIs: []string{redirect}, ClientName: "aidex", TokenEndpointAuthMethod: "none",
			GrantTypes: []string{"authorization_code", "refresh_token"}, ResponseTypes: []string{"code"}}},
		RedirectURL:              redirect,
		RequestRefreshToken:      true,
		Client:                   s.httpClient(),
		AuthorizationCodeFetcher: fetcher(ln, o),
		NewTokenSource: func(ctx context.Context, cfg *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
			got = &record{Server: server, URL: url, ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret,
				AuthStyle: cfg.Endpoint.AuthStyle, TokenURL: cfg.Endpoint.TokenURL, Scopes: cfg.Scopes, Token: tok}
			return oauth2.StaticTokenSource(tok), nil
		},
	})
	if err != nil {
		return err
	}
	req, resp, err := s.challenge(ctx, url)
	if err != nil {
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

// challenge sends the server an unauthenticated initialize and returns
// the request and its 401 (or 403) answer.
func (s *Store) challenge(ctx context.Context, url string) (*http.Request, *http.Response, error) {
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"aidex","version":"login"}}}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return nil, nil, fmt.Errorf("MCP server URL %q: %w", url, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := s.httpClient().Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("reach MCP server %s: %w", url, err)
	}
	if resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden {
		_ = resp.Body.Close()
		return nil, nil, fmt.Errorf("%w: %s answered %s without asking to sign in; nothing to do", ErrNoOAuth, url, resp.Status)
	}
	return req, resp, nil
}

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
