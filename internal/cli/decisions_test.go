package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/ui/web"
)

// decisionCase is one tool call with a subject the policy judges (a
// command, a URL, a path) and the decision the rule set must give it.
type decisionCase struct {
	name, tool, args string
	allowed          bool
}

// decisionRules is the rule set every path runs under. Deny rules overlap
// allow rules on purpose: deny must win in every front end.
const decisionRules = `permission_mode = "ask"
web_allow_shell_tools = true
web_fetch_allow_private = true

[permissions]
allow = ["web_fetch(https://*)", "web_fetch(%[1]s/*)", "run_command(echo *)", "run_command(rm *)",
         "read_file(**)", "write_file(src/**)", "write_file(locked/**)"]
deny = ["web_fetch(https://blocked.example/*)", "run_command(rm *)", "read_file(secret/**)", "write_file(locked/**)"]
`

func decisionCases(fetchURL string) []decisionCase {
	return []decisionCase{
		{"url denied over an allow", "web_fetch", `{"url":"https://blocked.example/x"}`, false},
		{"url allowed", "web_fetch", fmt.Sprintf(`{"url":%q}`, fetchURL+"/ok"), true},
		{"command denied over an allow", "run_command", `{"command":"rm -rf build"}`, false},
		{"command allowed", "run_command", `{"command":"echo hi"}`, true},
		{"command chained onto an allowed one", "run_command", `{"command":"echo hi; rm -rf build"}`, false},
		{"read denied over an allow", "read_file", `{"path":"secret/key.txt"}`, false},
		{"read allowed", "read_file", `{"path":"notes.txt"}`, true},
		{"read outside the workspace", "read_file", `{"path":"../outside.txt"}`, false},
		{"write denied over an allow", "write_file", `{"path":"locked/a.txt","content":"x"}`, false},
		{"write allowed", "write_file", `{"path":"src/a.txt","content":"x"}`, true},
	}
}

// TestDecisionsSameInEveryPath runs one rule set through the engine
// (headless run), `aidex tool` and the web UI's POST /api/tool for every
// tool that has a subject, and requires the same decision from all three.
func TestDecisionsSameInEveryPath(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "fetched")
	}))
	defer site.Close()
	cases := decisionCases(site.URL)
	var turns []llmtest.Turn
	for _, c := range cases {
		turns = append(turns, llmtest.Turn{Calls: []llmtest.Call{{Name: c.tool, Args: c.args}}})
	}
	turns = append(turns, llmtest.Turn{Text: "done"})
	e := newE2E(t, llmtest.NewScript(t, turns...), "openai", fmt.Sprintf(decisionRules, site.URL))
	e.write("notes.txt", "notes\n")
	e.write("secret/key.txt", "key\n")
	e.write("src/.keep", "")
	e.write("locked/.keep", "")

	engine := engineDecisions(t, e, len(cases))
	webAllowed := newWebDecider(t, e)
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			viaTool := e.run(context.Background(), "tool", c.tool, "--args", c.args)
			toolAllowed := viaTool.code != ExitDenied
			if got := engine[i]; got != c.allowed {
				t.Errorf("engine: allowed = %v, want %v", got, c.allowed)
			}
			if toolAllowed != c.allowed {
				t.Errorf("aidex tool: allowed = %v (exit %d: %s), want %v", toolAllowed, viaTool.code, viaTool.stdout, c.allowed)
			}
			if got := webAllowed(c); got != c.allowed {
				t.Errorf("POST /api/tool: allowed = %v, want %v", got, c.allowed)
			}
		})
	}
}

// engineDecisions runs the scripted calls headless and reports, per call,
// whether the policy let it run (a refusal is a permission or security
// tool result).
func engineDecisions(t *testing.T, e *e2e, n int) []bool {
	t.Helper()
	r := e.run(context.Background(), "-p", "go", "--output-format", "stream-json")
	var out []bool
	for _, ev := range events(t, r.stdout) {
		if ev["type"] != "tool_result" {
			continue
		}
		res, _ := ev["tool_result"].(map[string]any)
		cat, _ := res["category"].(string)
		out = append(out, res["ok"] == true || (cat != "permission" && cat != "security"))
	}
	if len(out) != n {
		t.Fatalf("engine ran %d tool calls, want %d\nstdout: %s\nstderr: %s", len(out), n, r.stdout, r.stderr)
	}
	return out
}

// newWebDecider serves the web UI over e's workspace and returns a func
// that posts a case to /api/tool and reports whether it was allowed (not
// 403).
func newWebDecider(t *testing.T, e *e2e) func(decisionCase) bool {
	t.Helper()
	const token = "decisions-token"
	srv, err := web.New(context.Background(), web.Options{Setup: app.Options{Workspace: e.ws, Getenv: func(k string) string { return e.env[k] }},
		Token: token, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(nil)
	ts.Config.Handler = srv.Handler(ts.Listener.Addr())
	ts.Start()
	t.Cleanup(func() {
		ts.Close()
		_ = srv.Close()
	})
	return func(c decisionCase) bool {
		body, _ := json.Marshal(map[string]any{"tool": c.tool, "params": json.RawMessage(c.args)})
		req, _ := http.NewRequest(http.MethodPost, ts.URL+"/api/tool", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		return resp.StatusCode != http.StatusForbidden
	}
}
