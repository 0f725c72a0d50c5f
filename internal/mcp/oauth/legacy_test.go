package oauth

import (
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/mcp/oauth/oauthtest"
)

// A server of the MCP 2025-03-26 authorization spec publishes no
// protected-resource metadata: the sign-in finds the authorization server
// metadata at the server's origin (whose issuer may name a path there), or
// uses the spec's default endpoints /authorize, /token and /register at the
// origin when that is absent too; both grants; the token then works.
func TestLoginLegacy20250326(t *testing.T) {
	for _, mode := range []struct {
		name   string
		legacy oauthtest.Legacy
	}{{"metadata at the origin", oauthtest.LegacyMetadata}, {"default endpoints", oauthtest.LegacyDefaults}} {
		for _, grant := range []string{"authorization_code", "client_credentials"} {
			t.Run(mode.name+" "+grant, func(t *testing.T) {
				f := oauthtest.NewServer(t)
				f.Legacy = mode.legacy
				s := NewStore(t.TempDir())
				url := f.URL + "/mcp"
				o := LoginOptions{OpenURL: oauthtest.Browser}
				if grant == "client_credentials" {
					f.Preregister("machine", "s3cret", "")
					o = LoginOptions{ClientID: "machine", ClientSecret: "s3cret", ClientCredentials: true}
				}
				require.NoError(t, s.Login(context.Background(), "old", url, o))
				c, err := s.HTTPClient(context.Background(), "old", url)
				require.NoError(t, err)
				resp, err := c.Get(url)
				require.NoError(t, err)
				body, _ := io.ReadAll(resp.Body)
				_ = resp.Body.Close()
				require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
				require.Contains(t, string(body), "hello access-")
			})
		}
	}
}
