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

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/app/apptest"
	"github.com/zelvior/aidex/internal/cli"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/mcp"
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

// modelEnv names the scripted model's URL (TestClient's) for the scenarios
// the client adapter runs as a session's turn (sessionScenarios).
const modelEnv = "AIDEX_CONFORMANCE_MODEL"

// sessionScenarios are run as a session's turn, not as bare tool calls:
// the scripted model makes the scenario's calls, and a user answers the
// server's requests (elicitation forms) through the session's Asker, as
// the terminal UI, the line mode and the web UI do.
var sessionScenarios = map[string]bool{"elicitation-sep1034-client-defaults": true}

// defaultsTaker is the user of the session scenarios: one who leaves every
// text field empty and picks the choices marked as the default, what the
// user of SEP-1034's scenario is asked to do ("please accept with
// defaults").
type defaultsTaker struct{}

func (defaultsTaker) Ask(_ context.Context, info agent.InteractionInfo) (agent.InteractionAnswer, error) {
	out := agent.InteractionAnswer{ID: info.ID, Answers: map[string]agent.Reply{}}
	for _, q := range info.Questions {
		var picks []string
		for _, o := range q.Options {
			if strings.HasSuffix(o.Label, " (default)") {
				picks = append(picks, o.Label)
			}
		}
		switch {
		case q.Kind == agent.KindChoice && q.MultiSelect:
			out.Answers[q.Question] = agent.ListReply(picks...)
		case q.Kind == agent.KindChoice && len(picks) == 1:
			out.Answers[q.Question] = agent.TextReply(picks[0])
		case q.Kind == agent.KindConfirm:
			out.Answers[q.Question] = agent.TextReply(agent.ConfirmYes)
		default:
			out.Answers[q.Question] = agent.TextReply("")
		}
	}
	return out, nil
}

// runTurn runs one turn of a new session of svc (the scripted model makes
// the scenario's calls, defaultsTaker answers the forms) and reports
// whether every tool call of it worked.
func runTurn(ctx context.Context, svc *app.Service) bool {
	id, err := svc.Pick(ctx, "", false)
	if err == nil {
		var live *app.Session
		if live, err = svc.Session(ctx, id, app.SessionOptions{Asker: defaultsTaker{}}); err == nil {
			defer live.Close()
			calls := 0
			ok := true
			_, err = live.Run(ctx, []llm.Part{{Type: llm.PartText, Text: "go"}}, func(e agent.Event) {
				if e.Type == agent.EventToolResult {
					calls++
					ok = ok && e.ToolResult.OK
					fmt.Printf("%s: ok=%v %s%s\n", e.ToolResult.Name, e.ToolResult.OK, e.ToolResult.Output, e.ToolResult.Error)
				}
			})
			if err == nil {
				return ok && calls > 0
			}
		}
	}
	fmt.Fprintln(os.Stderr, "aidex:", err)
	return false
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
	model := ""
	if sessionScenarios[scenario] {
		model = os.Getenv(modelEnv)
	}
	ws, getenv, err := clientHome(root, url, os.Getenv("MCP_CONFORMANCE_CONTEXT"), model)
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
	svc, err := app.Start(ctx, app.StartOptions{Options: app.Options{Workspace: ws, Getenv: getenv, Version: "v0.0.0-conformance"}, Base: model == "",
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
	var ok bool
	if sessionScenarios[scenario] {
		ok = runTurn(ctx, svc)
	} else {
		ok = callTools(ctx, m, scenario, login)
	}
	if !ok {
		return 1
	}
	return 0
}

// callTools makes scenario's tool calls (clientCalls) on m's server
// "conformance", signing in again with login where a call asks for it,
// and reports whether every call worked.
func callTools(ctx context.Context, m *mcp.Manager, scenario string, login func() bool) bool {
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
	return ok
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
// see oauthConfig), and a workspace; getenv is its environment. With a
// model URL (a scripted model), the config names it as the provider and
// allows the server's tools.
func clientHome(root, url, ctxJSON, model string) (ws string, getenv func(string) string, err error) {
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
	text := "[mcp_servers.conformance]\nurl = " + strconv.Quote(url) + "\n" + oauth
	if model != "" {
		text = apptest.FakeProvider(model, []string{"m1"}, "max_retries = 0\n") + "\n[permissions]\nallow = [\"mcp__conformance__*\"]\n\n" + text
	}
	if err := os.WriteFile(cfg, []byte(text), 0o600); err != nil {
		return "", nil, err
	}
	return ws, func(k string) string { return env[k] }, nil
}

// The conformance suite's client scenarios against aidex's MCP client,
// through the client adapter (this test binary).
func TestClient(t *testing.T) {
	t.Parallel()
	// The model of the session scenarios: it calls the elicitation
	// scenario's tool, then ends the turn.
	script := llmtest.NewScript(t, llmtest.Turn{Calls: []llmtest.Call{{Name: "mcp__conformance__test_client_elicitation_defaults", Args: `{}`}}},
		llmtest.Turn{Text: "done"})
	results := suite(t, []string{roleEnv + "=client", modelEnv + "=" + script.URL}, "client", "--suite", "all", "--command", os.Args[0])
	judge(t, "client", results, "initialize", "tools_call")
}
