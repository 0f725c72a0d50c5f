package cli

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

func TestToolCommandExitCodes(t *testing.T) {
	e := newE2E(t, llmtest.NewScript(t), "openai", `[permissions]
allow = ["write_file(src/**)"]
deny = ["read_file(secret/**)"]
`)
	e.write("a.txt", "hello\n")
	e.write("secret/k.txt", "key\n")
	for _, c := range []struct {
		name, tool, args string
		code             int
		want             string
	}{
		{"ok", "read_file", `{"path":"a.txt"}`, ExitOK, "hello"},
		{"alias", "cat", `{"path":"a.txt"}`, ExitOK, "hello"},
		{"denied by rule", "read_file", `{"path":"secret/k.txt"}`, ExitDenied, "read_file(secret/**)"},
		{"outside the workspace", "read_file", `{"path":"../x"}`, ExitDenied, `"category": "security"`},
		{"needs approval", "run_command", `{"command":"touch x"}`, ExitDenied, `"category": "permission"`},
		{"allowed write", "write_file", `{"path":"src/new.txt","content":"x"}`, ExitOK, `"ok": true`},
		{"invalid arguments", "read_file", `{"nope":1}`, ExitFailure, `"category": "validation"`},
		{"unknown tool", "no_such_tool", `{}`, ExitFailure, "unknown tool"},
		{"missing file", "read_file", `{"path":"missing.txt"}`, ExitFailure, `"ok": false`},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := e.run(context.Background(), "tool", c.tool, "--args", c.args)
			if r.code != c.code || !strings.Contains(r.stdout, c.want) {
				t.Fatalf("exit %d (want %d), stdout %s (want %q), stderr %s", r.code, c.code, r.stdout, c.want, r.stderr)
			}
			var res map[string]any
			if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
				t.Fatalf("stdout is not one JSON object: %v", err)
			}
		})
	}
	if got := e.read("src/new.txt"); got != "x" {
		t.Errorf("src/new.txt = %q", got)
	}
}

func TestPermissionsCheckExplains(t *testing.T) {
	e := newE2E(t, llmtest.NewScript(t), "openai", `[permissions]
deny = ["run_command(git push *)"]
`)
	r := e.run(context.Background(), "permissions", "check", "git status && git push origin main")
	if r.code != ExitDenied || !strings.Contains(r.stdout, "deny") || !strings.Contains(r.stdout, "git push") || !strings.Contains(r.stdout, "(mode ask") {
		t.Fatalf("exit %d stdout %s stderr %s", r.code, r.stdout, r.stderr)
	}
	r = e.run(context.Background(), "permissions", "check", "read_file", `{"path":"a.txt"}`)
	if r.code != ExitOK || !strings.Contains(r.stdout, "allow") {
		t.Fatalf("tool check: exit %d stdout %s", r.code, r.stdout)
	}
	r = e.run(context.Background(), "permissions", "check", "read_file", `{"bad":1}`)
	if r.code != ExitUsage {
		t.Fatalf("bad arguments: exit %d, want %d", r.code, ExitUsage)
	}
}

// --args that is not a JSON object is bad usage (exit 2), with no result.
func TestToolCommandBadArgsJSON(t *testing.T) {
	e := newE2E(t, llmtest.NewScript(t), "openai", "")
	for _, args := range []string{`{"path":`, `["a.txt"]`, `a.txt`, `null`} {
		r := e.run(context.Background(), "tool", "read_file", "--args", args)
		if r.code != ExitUsage || !strings.Contains(r.stderr, "--args must be a JSON object") || r.stdout != "" {
			t.Errorf("--args %s: exit %d stdout %q stderr %q", args, r.code, r.stdout, r.stderr)
		}
	}
	r := e.run(context.Background(), "permissions", "check", "read_file", `{"path":`)
	if r.code != ExitUsage || !strings.Contains(r.stderr, "must be a JSON object") {
		t.Errorf("permissions check: exit %d stderr %q", r.code, r.stderr)
	}
}

// permissions check exits 0 for allow, 3 for deny and 10 for ask, so
// scripts can use it.
func TestPermissionsCheckExitCodes(t *testing.T) {
	e := newE2E(t, llmtest.NewScript(t), "openai", `[permissions]
allow = ["run_command(go test *)"]
deny = ["run_command(git push *)"]
`)
	for cmd, code := range map[string]int{"go test ./...": ExitOK, "git push origin": ExitDenied, "make build": ExitAsk, "ls": ExitOK,
		// what the README says of ask mode: read-only commands run, reading a
		// credential file or outside the workspace asks
		"git status": ExitOK, "grep -rn TODO .": ExitOK, "cat .env": ExitAsk, "cat ../x": ExitAsk, "rm a.txt": ExitAsk} {
		if r := e.run(context.Background(), "permissions", "check", cmd); r.code != code {
			t.Errorf("%s: exit %d, want %d\n%s", cmd, r.code, code, r.stdout)
		}
	}
}

func TestToolsCommandLists(t *testing.T) {
	e := newE2E(t, llmtest.NewScript(t), "openai", "")
	r := e.run(context.Background(), "tools", "--profile", "full", "--json")
	var schemas []struct {
		Name       string          `json:"name"`
		Parameters json.RawMessage `json:"parameters"`
		Kind       string          `json:"kind"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &schemas); err != nil || r.code != ExitOK {
		t.Fatalf("exit %d: %v\n%s", r.code, err, r.stdout)
	}
	if len(schemas) < 40 || schemas[0].Name != "read_file" || len(schemas[0].Parameters) == 0 || schemas[0].Kind != "" {
		t.Fatalf("%d schemas, first %+v: want only name, description and parameters", len(schemas), schemas[0])
	}
	r = e.run(context.Background(), "tools")
	if r.code != ExitOK || !strings.Contains(r.stdout, "(profile standard)") || !strings.Contains(r.stdout, "read_file  ") {
		t.Fatalf("text list: exit %d\n%s", r.code, r.stdout)
	}
	if r = e.run(context.Background(), "tools", "--profile", "huge"); r.code != ExitUsage {
		t.Fatalf("unknown profile: exit %d, want %d", r.code, ExitUsage)
	}
}

func TestUndoRestoresTheLastTurn(t *testing.T) {
	srv := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"a.txt"}`}}},
		llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"a.txt","content":"changed\n"}`}}},
		llmtest.Turn{Text: "done"})
	e := newE2E(t, srv, "openai", "")
	e.write("a.txt", "original\n")
	if r := e.run(context.Background(), "-p", "change a.txt", "--allow", "write_file(a.txt)"); r.code != ExitOK {
		t.Fatalf("run: exit %d stderr %s", r.code, r.stderr)
	}
	if got := e.read("a.txt"); got != "changed\n" {
		t.Fatalf("a.txt after the run = %q", got)
	}
	r := e.run(context.Background(), "undo")
	if r.code != ExitOK || !strings.Contains(r.stdout, "restored") || e.read("a.txt") != "original\n" {
		t.Fatalf("undo: exit %d stdout %s; a.txt = %q", r.code, r.stdout, e.read("a.txt"))
	}
	if r = e.run(context.Background(), "undo"); r.code != ExitFailure || !strings.Contains(r.stderr, "nothing to undo") {
		t.Fatalf("second undo: exit %d stderr %s", r.code, r.stderr)
	}
}
