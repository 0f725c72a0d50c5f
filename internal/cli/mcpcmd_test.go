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

// aidex mcp add, list, get and remove over the real reference server.
func TestMCPCommands(t *testing.T) {
	bin := sharedtest.NPMBin(t, "mcp-server-everything")
	e := newE2E(t, llmtest.NewScript(t), "openai", "# keep this comment\n")
	ctx := context.Background()
	cfgFile := filepath.Join(e.home, ".config", "aidex", "config.toml")

	r := e.run(ctx, "mcp", "list")
	if r.code != 0 || !strings.Contains(r.stdout, "no MCP servers configured") {
		t.Fatalf("empty list: %d %q %q", r.code, r.stdout, r.stderr)
	}
	r = e.run(ctx, "mcp", "add", "everything", "--env", "A=b", "--", bin, "stdio")
	if r.code != 0 || !strings.Contains(r.stdout, "added to "+cfgFile) {
		t.Fatalf("add: %d %q %q", r.code, r.stdout, r.stderr)
	}
	r = e.run(ctx, "mcp", "add", "remote", "--url", "http://127.0.0.1:1/mcp", "--header", "X-Team=a")
	if r.code != 0 {
		t.Fatalf("add --url: %d %q %q", r.code, r.stdout, r.stderr)
	}
	r = e.run(ctx, "mcp", "add", "remote", "--url", "http://127.0.0.1:1/mcp")
	if r.code != ExitUsage || !strings.Contains(r.stderr, "already in") {
		t.Fatalf("add twice: %d %q", r.code, r.stderr)
	}
	r = e.run(ctx, "mcp", "add", "oops", "npx", "server")
	if r.code != ExitUsage || !strings.Contains(r.stderr, "aidex mcp add oops -- npx server") {
		t.Fatalf("add without --: %d %q", r.code, r.stderr)
	}

	r = e.run(ctx, "mcp", "list", "--json")
	if r.code != 0 {
		t.Fatalf("list --json: %d %q %q", r.code, r.stdout, r.stderr)
	}
	var list []mcpListEntry
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil {
		t.Fatalf("list --json: %v\n%s", err, r.stdout)
	}
	if len(list) != 2 || list[0].Name != "everything" || list[0].Status != "ready" || list[0].ToolCount < 5 || list[0].DefinitionTokens <= 0 ||
		list[0].Transport != "stdio" || list[1].Name != "remote" || list[1].Status != "failed" || list[1].Error == "" {
		t.Fatalf("list --json: %+v", list)
	}
	r = e.run(ctx, "mcp", "list")
	if !strings.Contains(r.stdout, "NAME") || !strings.Contains(r.stdout, "everything  stdio") || !strings.Contains(r.stdout, "remote: ") {
		t.Fatalf("list: %q", r.stdout)
	}
	r = e.run(ctx, "mcp", "get", "everything")
	if r.code != 0 || !strings.Contains(r.stdout, "mcp__everything__echo") || !strings.Contains(r.stdout, "status: ready") {
		t.Fatalf("get: %d %q %q", r.code, r.stdout, r.stderr)
	}
	r = e.run(ctx, "mcp", "get", "nope")
	if r.code != ExitUsage || !strings.Contains(r.stderr, `no MCP server "nope"`) {
		t.Fatalf("get nope: %d %q", r.code, r.stderr)
	}

	for _, name := range []string{"everything", "remote"} {
		if r = e.run(ctx, "mcp", "remove", name); r.code != 0 {
			t.Fatalf("remove %s: %d %q", name, r.code, r.stderr)
		}
	}
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
