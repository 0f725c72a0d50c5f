package oauth

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	neturl "net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// protectedResource returns the server's protected-resource metadata (RFC
// 9728), looked up where the MCP authorization spec says: the challenge's
// resource_metadata, then /.well-known/oauth-protected-resource with the
// MCP endpoint's path, then without. nil (and no error) when the server
// publishes none: a server of the 2025-03-26 spec (see legacyServerMeta).
func (s *Store) protectedResource(ctx context.Context, challenges []oauthex.Challenge, mcpURL string) (*oauthex.ProtectedResourceMetadata, error) {
	u, err := neturl.Parse(mcpURL)
	if err != nil {
		return nil, fmt.Errorf("MCP server URL %q: %w", mcpURL, err)
	}
	var urls []string
	for _, c := range challenges {
		if v := c.Params["resource_metadata"]; v != "" {
			urls = append(urls, v)
		}
	}
	for _, p := range []string{"/.well-known/oauth-protected-resource/" + strings.Trim(u.Path, "/"), "/.well-known/oauth-protected-resource"} {
		w := *u
		w.Path, w.RawQuery, w.Fragment = strings.TrimSuffix(p, "/"), "", ""
		urls = append(urls, w.String())
	}
	for _, m := range urls {
		prm, err := oauthex.GetProtectedResourceMetadata(ctx, m, mcpURL, s.httpClient())
		if err != nil || prm == nil {
			continue // as the go-sdk's sign-in: the next place, then the 2025-03-26 fallback
		}
		if len(prm.AuthorizationServers) == 0 {
			return nil, fmt.Errorf("the protected resource metadata %s names no authorization server", m)
		}
		return prm, nil
	}
	return nil, nil
}

// legacyServerMeta is the authorization server of a server of the MCP
// 2025-03-26 authorization spec (one without protected-resource metadata):
// the authorization base URL is the MCP URL's origin (its path
// discarded); the metadata is at its /.well-known/oauth-authorization-server,
// and without it the endpoints are the spec's defaults /authorize, /token
// and /register there. Metadata whose issuer is another URL on the same
// origin (an issuer with a path) is accepted, its issuer set to the base
// URL: the document was served by the MCP server's origin, the place the
// 2025-03-26 spec trusts; an issuer on another origin is refused.
// found reports whether the metadata was found (false: the defaults).
func (s *Store) legacyServerMeta(ctx context.Context, mcpURL string) (asm *oauthex.AuthServerMeta, found bool, err error) {
	base, err := originOf(mcpURL)
	if err != nil {
		return nil, false, err
	}
	defaults := &oauthex.AuthServerMeta{Issuer: base, AuthorizationEndpoint: base + "/authorize", TokenEndpoint: base + "/token",
		RegistrationEndpoint: base + "/register", CodeChallengeMethodsSupported: []string{"S256"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+legacyMetaPath, nil)
	if err != nil {
		return nil, false, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := s.httpClient().Do(req)
	if err != nil {
		return nil, false, fmt.Errorf("authorization server metadata %s%s: %w", base, legacyMetaPath, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 && resp.StatusCode < 500 {
		return defaults, false, nil
	}
	if resp.StatusCode != http.StatusOK {
		return nil, false, fmt.Errorf("authorization server metadata %s%s: %s", base, legacyMetaPath, resp.Status)
	}
	var m oauthex.AuthServerMeta
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&m); err != nil {
		return nil, false, fmt.Errorf("authorization server metadata %s%s is not JSON: %w", base, legacyMetaPath, err)
	}
	if o, err := originOf(m.Issuer); err != nil || o != base {
		return nil, false, fmt.Errorf("authorization server metadata %s%s names the issuer %q, which is not on the server's origin %s", base, legacyMetaPath, m.Issuer, base)
	}
	for _, e := range []string{m.AuthorizationEndpoint, m.TokenEndpoint, m.RegistrationEndpoint} {
		if u, err := neturl.Parse(e); e != "" && (err != nil || u.Scheme != "https" && u.Scheme != "http" || u.Host == "") {
			return nil, false, fmt.Errorf("authorization server metadata %s%s: %q is not an http(s) URL", base, legacyMetaPath, e)
		}
	}
	m.Issuer = base
	if m.TokenEndpoint == "" {
		m.TokenEndpoint = defaults.TokenEndpoint
	}
	return &m, true, nil
}

// legacyMetaPath is where a 2025-03-26 server's authorization server
// metadata is, under its origin.
const legacyMetaPath = "/.well-known/oauth-authorization-server"

// originOf is u's scheme and host ("https://host:port"). Errors: u is not
// an absolute http(s) URL.
func originOf(u string) (string, error) {
	p, err := neturl.Parse(u)
	if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
		return "", fmt.Errorf("%q is not an http(s) URL", u)
	}
	return p.Scheme + "://" + p.Host, nil
}

// servedMeta answers the GET of url with the metadata body (as the
// authorization server would have, its issuer the base URL) and sends
// every other request on: the go-sdk's sign-in then uses a 2025-03-26
// server's metadata that legacyServerMeta accepted.
type servedMeta struct {
	url  string
	body []byte
	next http.RoundTripper
}

// RoundTrip implements http.RoundTripper.
func (t *servedMeta) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method != http.MethodGet || r.URL.String() != t.url {
		return t.next.RoundTrip(r)
	}
	return &http.Response{StatusCode: http.StatusOK, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(bytes.NewReader(t.body)),
		ContentLength: int64(len(t.body)), Request: r}, nil
}

// signInClient is the HTTP client of the go-sdk's sign-in to mcpURL: for
// a 2025-03-26 server whose metadata legacyServerMeta accepted, one that
// serves that metadata; otherwise the store's.
func (s *Store) signInClient(ctx context.Context, challenges []oauthex.Challenge, mcpURL string) (*http.Client, error) {
	hc := s.httpClient()
	if prm, err := s.protectedResource(ctx, challenges, mcpURL); err != nil || prm != nil {
		return hc, err
	}
	asm, found, err := s.legacyServerMeta(ctx, mcpURL)
	if err != nil || !found {
		return hc, err
	}
	body, err := json.Marshal(asm)
	if err != nil {
		return nil, err
	}
	next := hc.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	c := *hc
	c.Transport = &servedMeta{url: asm.Issuer + legacyMetaPath, body: body, next: next}
	return &c, nil
}
