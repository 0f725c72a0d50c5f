package conformance

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/app/apptest"
	"github.com/zelvior/aidex/internal/sharedtest"
)

// tokenClient connects the TypeScript SDK's client (the one Claude Code and
// the Inspector are built on) to URL without a token, with an OAuth
// provider as those clients have or without one, and prints the error it
// ends with and whether it sent the user to sign in.
const tokenClient = `
import { Client } from 'SDK/dist/esm/client/index.js';
import { StreamableHTTPClientTransport } from 'SDK/dist/esm/client/streamableHttp.js';
const url = new URL(process.argv[2]);
let redirected = false;
const provider = {
  get redirectUrl() { return 'http://127.0.0.1:1/callback'; },
  get clientMetadata() { return { client_name: 'probe', redirect_uris: ['http://127.0.0.1:1/callback'] }; },
  clientInformation() { return undefined; },
  saveClientInformation() {},
  tokens() { return undefined; },
  saveTokens() {},
  redirectToAuthorization() { redirected = true; },
  saveCodeVerifier() {},
  codeVerifier() { return 'v'; },
};
for (const withOAuth of [true, false]) {
  const t = new StreamableHTTPClientTransport(url, withOAuth ? { authProvider: provider } : {});
  try {
    await new Client({ name: 'probe', version: '1' }).connect(t);
    console.log('CONNECTED');
  } catch (e) {
    console.log((withOAuth ? 'oauth: ' : 'plain: ') + e.message);
  }
}
console.log('redirected: ' + redirected);
`

// Without the token, the TypeScript SDK's client, with an OAuth provider
// or without, ends with aidex's message naming the printed token and the
// token file, and never sends the user to an OAuth sign-in.
func TestHTTPClientWithoutTheTokenIsToldWhereItIs(t *testing.T) {
	t.Parallel()
	node := sharedtest.NPMBin(t, "node")
	sdk := sharedtest.NPMModule(t, "@modelcontextprotocol/sdk")
	h := apptest.NewHome(t, "")
	endpoint, _ := serveHTTP(t, h)
	script := filepath.Join(t.TempDir(), "probe.mjs")
	if err := os.WriteFile(script, []byte(strings.ReplaceAll(tokenClient, "SDK/", filepath.ToSlash(sdk)+"/")), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(node, script, endpoint).CombinedOutput()
	if err != nil {
		t.Fatalf("probe: %v: %s", err, out)
	}
	got := string(out)
	t.Logf("the TypeScript SDK's client says:\n%s", got)
	if strings.Contains(got, "CONNECTED") || !strings.Contains(got, "redirected: false") {
		t.Fatalf("the client connected or was sent to sign in: %s", got)
	}
	for _, line := range strings.Split(strings.TrimSpace(got), "\n") {
		if !strings.HasPrefix(line, "oauth: ") && !strings.HasPrefix(line, "plain: ") {
			continue
		}
		for _, want := range []string{"token: ...", filepath.Join(h.Root, "token"), "Authorization: Bearer TOKEN"} {
			if !strings.Contains(line, want) {
				t.Errorf("%q does not name %q", line, want)
			}
		}
	}
}
