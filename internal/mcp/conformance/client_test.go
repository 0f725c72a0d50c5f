package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/cli"
	"github.com/zelvior/aidex/internal/mcp/oauth/oauthtest"
)

// clientCalls are the tool calls the client adapter makes in a scenario
// (server "conformance", the suite's tool and its arguments): what a
// session's model would ask for.
var clientCalls = map[string][]struct {
	tool string
	args string
}{
	"tools_call":                          {{"add_numbers", `{"a":5,"b":3}`}},
	"sse-retry":                           {{"test_reconnection", `{}`}},
	"elicitation-sep1034-client-defaults": {{"test_client_elicitation_defaults", `{}`}},
	"auth/scope-step-up":                  {{"test-tool", `{}`}},
}

// runClient is the client adapter the suite's client mode runs (the test
// binary with roleEnv=client, the suite's server URL last): it configures
// the URL as the MCP server "conformance" in a fresh home, signs in first
// for the auth scenarios (`aidex mcp login conformance`, a browser that
// follows the sign-in URL), starts the application service's MCP client
// as a session does, and makes the scenario's tool calls. Exit 0 when
// every step worked.
func runClient(url, scenario string) int {
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	root, err := os.MkdirTemp("", "aidex-conformance-client-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(root)
	ws, getenv, err := clientHome(root, url, os.Getenv("MCP_CONFORMANCE_CONTEXT"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	login := func() bool {
		code := cli.Main(cli.Process{Context: ctx, Args: []string{"-w", ws, "mcp", "login", "conformance"}, Stdin: strings.NewReader(""),
			Stdout: os.Stdout, Stderr: os.Stderr, Getenv: getenv, OpenURL: oauthtest.Browser})
		if code != 0 {
			fmt.Fprintf(os.Stderr, "aidex mcp login conformance: exit %d\n", code)
		}
		return code == 0
	}
	if strings.HasPrefix(scenario, "auth/") && !login() {
		return 1
	}
	svc, err := app.Start(ctx, app.StartOptions{Options: app.Options{Workspace: ws, Getenv: getenv, Version: "v0.0.0-conformance"}, Base: true,
		Report: func(r app.Report) { fmt.Fprintln(os.Stderr, "aidex:", r.Text) }})
	if err != nil {
		fmt.Fprintln(os.Stderr, "aidex:", err)
		return 1
	}
	defer svc.Close()
	m := svc.MCP(ctx)
	if m == nil {
		fmt.Fprintln(os.Stderr, "aidex: no MCP server started")
		return 1
	}
	if f := m.Failures(); len(f) > 0 {
		fmt.Fprintln(os.Stderr, "aidex:", strings.Join(f, "; "))
		return 1
	}
	for _, st := range m.Status() {
		fmt.Printf("server %s: %s, %d tools\n", st.Name, st.State, len(st.Tools))
	}
	ok := true
	for _, c := range clientCalls[scenario] {
		res := m.CallTool(ctx, "conformance", c.tool, json.RawMessage(c.args))
		if !res.OK && strings.Contains(res.Error, "aidex mcp login conformance") && login() {
			// What the user does when the error asks (step-up
			// authorization): sign in again; the running session
			// takes the new token at its next request.
			res = m.CallTool(ctx, "conformance", c.tool, json.RawMessage(c.args))
		}
		b, _ := json.Marshal(res)
		fmt.Printf("%s: %s\n", c.tool, b)
		ok = ok && res.OK
	}
	if !ok {
		return 1
	}
	return 0
}

// scenarioContext is the suite's MCP_CONFORMANCE_CONTEXT of an auth
// scenario: the client registered beforehand with its authorization server.
type scenarioContext struct {
	Name         string `json:"name"`
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret"`
	// PrivateKeyPEM is the key of a private_key_jwt client.
	PrivateKeyPEM string `json:"private_key_pem"`
}

// secretVar is the environment variable the adapter's config names for
// the pre-registered client's secret.
const secretVar = "CONFORMANCE_CLIENT_SECRET"

// oauthConfig is the [mcp_servers.conformance.oauth] table of a scenario
// whose context names a pre-registered client (ctxJSON, the suite's
// MCP_CONFORMANCE_CONTEXT): its id, its secret through client_secret_env_var
// (set in env) or its private key through private_key_file (written in
// root), and the client-credentials grant for the client-credentials
// scenarios; "" without a client.
func oauthConfig(ctxJSON, root string, env map[string]string) (string, error) {
	if ctxJSON == "" {
		return "", nil
	}
	var c scenarioContext
	if err := json.Unmarshal([]byte(ctxJSON), &c); err != nil {
		return "", fmt.Errorf("MCP_CONFORMANCE_CONTEXT: %w", err)
	}
	if c.ClientID == "" {
		return "", nil
	}
	t := "[mcp_servers.conformance.oauth]\nclient_id = " + strconv.Quote(c.ClientID) + "\n"
	if c.ClientSecret != "" {
		env[secretVar] = c.ClientSecret
		t += "client_secret_env_var = " + strconv.Quote(secretVar) + "\n"
	}
	if c.PrivateKeyPEM != "" {
		keyFile := filepath.Join(root, "client-key.pem")
		if err := os.WriteFile(keyFile, []byte(c.PrivateKeyPEM), 0o600); err != nil {
			return "", err
		}
		t += "private_key_file = " + strconv.Quote(keyFile) + "\n"
	}
	if strings.HasPrefix(c.Name, "auth/client-credentials") {
		t += "grant = \"client_credentials\"\n"
	}
	return t, nil
}

// clientHome makes a home in root whose config names url as the MCP
// server "conformance" (with the OAuth client of the scenario's context,
// see oauthConfig), and a workspace; getenv is its environment.
func clientHome(root, url, ctxJSON string) (ws string, getenv func(string) string, err error) {
	env := map[string]string{"HOME": root, "XDG_CONFIG_HOME": filepath.Join(root, "config"), "XDG_DATA_HOME": filepath.Join(root, "data"),
		"XDG_STATE_HOME": filepath.Join(root, "state"), "XDG_CACHE_HOME": filepath.Join(root, "cache")}
	ws = filepath.Join(root, "ws")
	cfg := filepath.Join(root, "config", "aidex", "config.toml")
	for _, d := range []string{ws, filepath.Dir(cfg)} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return "", nil, err
		}
	}
	oauth, err := oauthConfig(ctxJSON, root, env)
	if err != nil {
		return "", nil, err
	}
	if err := os.WriteFile(cfg, []byte("[mcp_servers.conformance]\nurl = "+strconv.Quote(url)+"\n"+oauth), 0o600); err != nil {
		return "", nil, err
	}
	return ws, func(k string) string { return env[k] }, nil
}

// The conformance suite's client scenarios against aidex's MCP client,
// through the client adapter (this test binary).
func TestClient(t *testing.T) {
	t.Parallel()
	results := suite(t, []string{roleEnv + "=client"}, "client", "--suite", "all", "--command", os.Args[0])
	judge(t, "client", results, "initialize", "tools_call")
}
