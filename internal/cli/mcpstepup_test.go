package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/mcp/oauth/oauthtest"
	"github.com/zelvior/aidex/internal/ui/chat"
)

// `aidex mcp login` signs in to a server that accepts initialize
// anonymously and asks for a scope only later (step-up authorization), and
// with the client-credentials grant of a pre-registered client configured in
// [mcp_servers.NAME.oauth] (no browser). Before the sign-in the server's
// failure names the login command.
func TestMCPLoginStepUpAndClientCredentials(t *testing.T) {
	stepup := oauthtest.NewServer(t)
	stepup.StepUp = true
	m2m := oauthtest.NewServer(t)
	m2m.Preregister("machine", "s3cret", "")
	e := newE2E(t, llmtest.NewScript(t), "openai", "")
	f, err := os.OpenFile(filepath.Join(e.home, ".config", "aidex", "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.WriteString("\n[mcp_servers.stepup]\nurl = \"" + stepup.URL + "/mcp\"\n\n[mcp_servers.m2m]\nurl = \"" + m2m.URL + "/mcp\"\n" +
		"oauth = { client_id = \"machine\", client_secret_env_var = \"M2M_SECRET\", grant = \"client_credentials\" }\n")
	_ = f.Close()

	r := e.run(context.Background(), "mcp", "get", "stepup")
	if !strings.Contains(r.stdout+r.stderr, "needs authorisation") || !strings.Contains(r.stdout+r.stderr, "aidex mcp login stepup") {
		t.Fatalf("before the sign-in: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r = e.run(context.Background(), "mcp", "login", "m2m")
	if r.code != ExitUsage || !strings.Contains(r.stderr, "M2M_SECRET") {
		t.Fatalf("login without the secret: exit %d, stderr %q", r.code, r.stderr)
	}
	e.env["M2M_SECRET"] = "s3cret"
	for _, name := range []string{"stepup", "m2m"} {
		var out, errb strings.Builder
		code := Main(Process{Chat: chat.Run, Args: []string{"-w", e.ws, "mcp", "login", name}, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
			Getenv: func(k string) string { return e.env[k] }, OpenURL: func(u string) error {
				if name == "m2m" {
					t.Errorf("the client-credentials sign-in opened a browser")
				}
				return oauthtest.Browser(u)
			}})
		if code != ExitOK || !strings.Contains(out.String(), "signed in to MCP server "+name) {
			t.Fatalf("login %s: exit %d, stdout %q, stderr %q", name, code, out.String(), errb.String())
		}
		r := e.run(context.Background(), "mcp", "get", name)
		if r.code != ExitOK || strings.Contains(r.stdout+r.stderr, "needs authorisation") || !strings.Contains(r.stdout, "whoami") {
			t.Fatalf("mcp get %s after login: exit %d, stdout %q, stderr %q", name, r.code, r.stdout, r.stderr)
		}
	}
}
