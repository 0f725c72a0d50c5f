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
	ws, getenv, err := clientHome(root, url)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if strings.HasPrefix(scenario, "auth/") {
		code := cli.Main(cli.Process{Context: ctx, Args: []string{"-w", ws, "mcp", "login", "conformance"}, Stdin: strings.NewReader(""),
			Stdout: os.Stdout, Stderr: os.Stderr, Getenv: getenv, OpenURL: oauthtest.Browser})
		if code != 0 {
			fmt.Fprintf(os.Stderr, "aidex mcp login conformance: exit %d\n", code)
			return 1
		}
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
		b, _ := json.Marshal(res)
		fmt.Printf("%s: %s\n", c.tool, b)
		ok = ok && res.OK
	}
	if !ok {
		return 1
	}
	return 0
}

// clientHome makes a home in root whose config names url as the MCP
// server "conformance", and a workspace; getenv is its environment.
func clientHome(root, url string) (ws string, getenv func(string) string, err error) {
	env := map[string]string{"HOME": root, "XDG_CONFIG_HOME": filepath.Join(root, "config"), "XDG_DATA_HOME": filepath.Join(root, "data"),
		"XDG_STATE_HOME": filepath.Join(root, "state"), "XDG_CACHE_HOME": filepath.Join(root, "cache")}
	ws = filepath.Join(root, "ws")
	cfg := filepath.Join(root, "config", "aidex", "config.toml")
	for _, d := range []string{ws, filepath.Dir(cfg)} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return "", nil, err
		}
	}
	if err := os.WriteFile(cfg, []byte("[mcp_servers.conformance]\nurl = "+strconv.Quote(url)+"\n"), 0o600); err != nil {
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
