package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/sharedtest"
)

// expectRun checks a command's exit code and that stdout and stderr hold
// the given texts.
func expectRun(t *testing.T, e *e2e, code int, out, errOut string, args ...string) result {
	t.Helper()
	r := e.run(context.Background(), args...)
	if r.code != code || !strings.Contains(r.stdout, out) || !strings.Contains(r.stderr, errOut) {
		t.Fatalf("%v: exit %d (want %d)\nstdout %q (want %q)\nstderr %q (want %q)", args, r.code, code, r.stdout, out, r.stderr, errOut)
	}
	return r
}

// aidex mcp add, list, get and remove over the real reference server.
func TestMCPCommands(t *testing.T) {
	bin := sharedtest.NPMBin(t, "mcp-server-everything")
	e := newE2E(t, llmtest.NewScript(t), "openai", "# keep this comment\n")
	cfgFile := filepath.Join(e.home, ".config", "aidex", "config.toml")

	expectRun(t, e, 0, "no MCP servers configured", "", "mcp", "list")
	expectRun(t, e, 0, "added to "+cfgFile, "", "mcp", "add", "everything", "--env", "A=b", "--", bin, "stdio")
	expectRun(t, e, 0, "added to", "", "mcp", "add", "remote", "--url", "http://127.0.0.1:1/mcp", "--header", "X-Team=a")
	expectRun(t, e, ExitUsage, "", "already in", "mcp", "add", "remote", "--url", "http://127.0.0.1:1/mcp")
	expectRun(t, e, ExitUsage, "", "aidex mcp add oops -- npx server", "mcp", "add", "oops", "npx", "server")

	r := expectRun(t, e, 0, "", "", "mcp", "list", "--json")
	var list []mcpListEntry
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil {
		t.Fatalf("list --json: %v\n%s", err, r.stdout)
	}
	want := []mcpListEntry{{Name: "everything", Transport: "stdio", Status: "ready"}, {Name: "remote", Transport: "http", Status: "failed"}}
	for i, w := range want {
		if len(list) != 2 || list[i].Name != w.Name || list[i].Transport != w.Transport || list[i].Status != w.Status {
			t.Fatalf("list --json: %+v", list)
		}
	}
	if list[0].ToolCount < 5 || list[0].DefinitionTokens <= 0 || list[1].Error == "" {
		t.Fatalf("list --json: %+v", list)
	}
	expectRun(t, e, 0, "everything  stdio", "", "mcp", "list")
	expectRun(t, e, 0, "mcp__everything__echo", "", "mcp", "get", "everything")
	expectRun(t, e, ExitUsage, "", `no MCP server "nope"`, "mcp", "get", "nope")

	expectRun(t, e, 0, "removed", "", "mcp", "remove", "everything")
	expectRun(t, e, 0, "removed", "", "mcp", "remove", "remote")
	data, err := os.ReadFile(cfgFile)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "mcp_servers") || !strings.Contains(string(data), "# keep this comment") {
		t.Fatalf("after remove:\n%s", data)
	}
}

// Permission rules name MCP tools as built-in ones: aidex permissions check
// judges mcp__SERVER__TOOL without starting the server.
func TestPermissionsCheckMCPTool(t *testing.T) {
	e := newE2E(t, llmtest.NewScript(t), "openai", "[permissions]\nallow = [\"mcp__github__*\"]\ndeny = [\"mcp__github__delete_repo\"]\n")
	ctx := context.Background()
	r := e.run(ctx, "permissions", "check", "mcp__github__create_issue", `{"title":"x"}`)
	if r.code != ExitOK || !strings.Contains(r.stdout, "allow") || !strings.Contains(r.stdout, "mcp__github__*") {
		t.Fatalf("allowed: %d %q %q", r.code, r.stdout, r.stderr)
	}
	r = e.run(ctx, "permissions", "check", "mcp__github__delete_repo", `{}`)
	if r.code != ExitDenied || !strings.Contains(r.stdout, "deny") {
		t.Fatalf("denied: %d %q %q", r.code, r.stdout, r.stderr)
	}
	r = e.run(ctx, "permissions", "check", "mcp__everything__echo", `{"message":"x"}`)
	if !strings.Contains(r.stdout, "ask") {
		t.Fatalf("default: %d %q %q", r.code, r.stdout, r.stderr)
	}
}
