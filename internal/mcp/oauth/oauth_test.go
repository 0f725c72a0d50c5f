package oauth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/mcp/oauth/oauthtest"
)

// Login discovers, registers, authorises with PKCE and stores the token
// 0600; the HTTP client sends it, refreshing (and storing) it when expired;
// logout deletes it.
func TestLoginStoresATokenTheClientRefreshes(t *testing.T) {
	f := oauthtest.NewServer(t)
	dir := t.TempDir()
	s := NewStore(dir)
	url := f.URL + "/mcp"
	var out strings.Builder
	require.NoError(t, s.Login(context.Background(), "remote", url, LoginOptions{Out: &out, OpenURL: oauthtest.Browser}))
	require.Contains(t, out.String(), f.URL+"/authorize?")
	registered, _ := f.Counts()
	require.Equal(t, 1, registered)

	path := filepath.Join(dir, "mcp-oauth", "remote.json")
	info, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	var rec record
	b, _ := os.ReadFile(path)
	require.NoError(t, json.Unmarshal(b, &rec))
	require.Equal(t, "client-1", rec.ClientID)
	first := rec.Token.AccessToken

	c, err := s.HTTPClient(context.Background(), "remote", url)
	require.NoError(t, err)
	resp, err := c.Get(url)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	_, refreshes := f.Counts()
	require.Equal(t, 1, refreshes, "the expired token was refreshed")
	b, _ = os.ReadFile(path)
	require.NoError(t, json.Unmarshal(b, &rec))
	require.NotEqual(t, first, rec.Token.AccessToken, "the refreshed token was stored")
	require.Equal(t, "hello "+rec.Token.AccessToken, string(body))

	_, err = s.HTTPClient(context.Background(), "remote", f.URL+"/other")
	require.ErrorContains(t, err, "aidex mcp login remote")
	removed, err := s.Logout("remote")
	require.NoError(t, err)
	require.True(t, removed)
	_, err = s.HTTPClient(context.Background(), "remote", url)
	require.ErrorIs(t, err, ErrNoToken)
	require.ErrorContains(t, err, "aidex mcp login remote")
	removed, err = s.Logout("remote")
	require.NoError(t, err)
	require.False(t, removed)
}

// A server that answers without asking for a token needs no login.
func TestLoginRefusesAServerWithoutOAuth(t *testing.T) {
	open := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "{}") }))
	defer open.Close()
	err := NewStore(t.TempDir()).Login(context.Background(), "open", open.URL, LoginOptions{})
	require.ErrorIs(t, err, ErrNoOAuth)
}

// An expired token that cannot be refreshed makes requests fail with an
// error naming the login command; nothing reaches the server unsigned.
func TestExpiredTokenWithoutRefreshNamesLogin(t *testing.T) {
	f := oauthtest.NewServer(t)
	dir := t.TempDir()
	s := NewStore(dir)
	url := f.URL + "/mcp"
	require.NoError(t, s.Login(context.Background(), "remote", url, LoginOptions{OpenURL: oauthtest.Browser}))
	path := filepath.Join(dir, "mcp-oauth", "remote.json")
	var rec record
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &rec))
	rec.Token.RefreshToken = ""
	b, _ = json.Marshal(rec)
	require.NoError(t, os.WriteFile(path, b, 0o600))

	c, err := s.HTTPClient(context.Background(), "remote", url)
	require.NoError(t, err)
	_, err = c.Get(url)
	require.ErrorContains(t, err, "aidex mcp login remote")
	_, refreshes := f.Counts()
	require.Zero(t, refreshes)
}

// A server that accepts initialize anonymously and asks for a scope on a
// later request (step-up authorization) can be signed in to.
func TestLoginStepUpServer(t *testing.T) {
	f := oauthtest.NewServer(t)
	f.StepUp = true
	s := NewStore(t.TempDir())
	url := f.URL + "/mcp"
	require.NoError(t, s.Login(context.Background(), "stepup", url, LoginOptions{OpenURL: oauthtest.Browser}))
	rec, err := s.load("stepup")
	require.NoError(t, err)
	require.Contains(t, rec.Scopes, "tools", "the challenge's scope was asked for")
}

// A client registered beforehand (its id, a fixed callback port) is used
// instead of dynamic registration, with the configured scopes.
func TestLoginPreregisteredClient(t *testing.T) {
	f := oauthtest.NewServer(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())
	f.Preregister("aidex-pre", "", fmt.Sprintf("http://127.0.0.1:%d/callback", port))
	s := NewStore(t.TempDir())
	url := f.URL + "/mcp"
	require.NoError(t, s.Login(context.Background(), "pre", url, LoginOptions{OpenURL: oauthtest.Browser,
		ClientID: "aidex-pre", CallbackPort: port, Scopes: []string{"read", "write"}}))
	registered, _ := f.Counts()
	require.Zero(t, registered, "no dynamic registration")
	rec, err := s.load("pre")
	require.NoError(t, err)
	require.Equal(t, "aidex-pre", rec.ClientID)
	require.Subset(t, rec.Scopes, []string{"read", "write"})
}

// The client-credentials grant signs in without a browser with a client id
// and secret; the token is fetched again when it expires.
func TestLoginClientCredentials(t *testing.T) {
	f := oauthtest.NewServer(t)
	f.Preregister("machine", "s3cret", "")
	dir := t.TempDir()
	s := NewStore(dir)
	url := f.URL + "/mcp"
	err := s.Login(context.Background(), "m2m", url, LoginOptions{ClientID: "machine", ClientSecret: "wrong", ClientCredentials: true,
		OpenURL: func(string) error { t.Fatal("the client-credentials grant opened a browser"); return nil }})
	require.ErrorContains(t, err, "invalid_client")
	require.NoError(t, s.Login(context.Background(), "m2m", url, LoginOptions{ClientID: "machine", ClientSecret: "s3cret", ClientCredentials: true,
		OpenURL: func(string) error { t.Fatal("the client-credentials grant opened a browser"); return nil }}))
	info, err := os.Stat(filepath.Join(dir, "mcp-oauth", "m2m.json"))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	c, err := s.HTTPClient(context.Background(), "m2m", url)
	require.NoError(t, err)
	resp, err := c.Get(url)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	require.Contains(t, string(body), "hello access-")
}

// Step-up authorization: a 403 insufficient_scope challenge to a signed-in
// request is noted; the next sign-in asks for the token's scopes and the
// challenged ones; a client made before it (a running session) sends the
// new token from its next request.
func TestLoginStepUpAsksForTheChallengedScopes(t *testing.T) {
	f := oauthtest.NewServer(t)
	s := NewStore(t.TempDir())
	url := f.URL + "/mcp"
	require.NoError(t, s.Login(context.Background(), "up", url, LoginOptions{OpenURL: oauthtest.Browser, Scopes: []string{"tools"}}))
	c, err := s.HTTPClient(context.Background(), "up", url)
	require.NoError(t, err)
	resp, err := c.Get(f.URL + "/admin")
	require.NoError(t, err)
	_ = resp.Body.Close()
	require.Equal(t, http.StatusForbidden, resp.StatusCode)

	var out strings.Builder
	require.NoError(t, s.Login(context.Background(), "up", url, LoginOptions{Out: &out, OpenURL: oauthtest.Browser}))
	require.Regexp(t, `scope=(tools\+admin|admin\+tools)`, out.String(), "the second sign-in asks for the challenged scopes")
	rec, err := s.load("up")
	require.NoError(t, err)
	require.ElementsMatch(t, []string{"tools", "admin"}, rec.Scopes)
	first := rec.Token.AccessToken

	resp, err = c.Get(url)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	rec, err = s.load("up") // the client refreshes the short-lived token at once
	require.NoError(t, err)
	require.Equal(t, "hello "+rec.Token.AccessToken, string(body), "the running client took the new sign-in's token")
	require.Equal(t, "refresh-1", rec.Token.RefreshToken)
	require.ElementsMatch(t, []string{"tools", "admin"}, rec.Scopes, "the refresh kept the new sign-in (%s)", first)
}

// The client-credentials grant of a client that authenticates with a
// private key (private_key_jwt): a JWT signed with it for the issuer, no
// secret; the token is fetched again, with a new JWT, when it expires. A
// key file that is not PEM is named in the error.
func TestLoginClientCredentialsPrivateKeyJWT(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	der, err := x509.MarshalPKCS8PrivateKey(key)
	require.NoError(t, err)
	keyFile := filepath.Join(t.TempDir(), "client.pem")
	require.NoError(t, os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600))
	f := oauthtest.NewServer(t)
	f.PreregisterKey("signer", &key.PublicKey)
	s := NewStore(t.TempDir())
	url := f.URL + "/mcp"
	bad := filepath.Join(t.TempDir(), "bad.pem")
	require.NoError(t, os.WriteFile(bad, []byte("not a key"), 0o600))
	err = s.Login(context.Background(), "jwt", url, LoginOptions{ClientID: "signer", PrivateKeyFile: bad, ClientCredentials: true})
	require.ErrorContains(t, err, bad+" is not PEM")
	require.NoError(t, s.Login(context.Background(), "jwt", url, LoginOptions{ClientID: "signer", PrivateKeyFile: keyFile, ClientCredentials: true}))
	c, err := s.HTTPClient(context.Background(), "jwt", url)
	require.NoError(t, err)
	resp, err := c.Get(url) // the 2 s token has expired within the oauth2 margin: a new JWT fetches another
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	rec, err := s.load("jwt")
	require.NoError(t, err)
	require.Empty(t, rec.ClientSecret)
	require.Equal(t, "hello "+rec.Token.AccessToken, string(body))
}
