package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// The line mode shows an MCP server's form request (elicitation) naming the
// server, reads the answers and the server gets them typed; -p refuses it
// with the reason.
func TestMCPElicitationLineModeAndHeadless(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "deployer", Version: "1"}, nil)
	sdk.AddTool(srv, &sdk.Tool{Name: "deploy"}, func(ctx context.Context, req *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
		res, err := req.Session.Elicit(ctx, &sdk.ElicitParams{Message: "Where should it go?", RequestedSchema: map[string]any{
			"type": "object", "required": []string{"env"},
			"properties": map[string]any{
				"env":      map[string]any{"type": "string", "enum": []string{"staging", "production"}},
				"replicas": map[string]any{"type": "integer"},
			}}})
		if err != nil {
			return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: err.Error()}}}, nil, nil
		}
		b, _ := json.Marshal(res.Content)
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: res.Action + " " + string(b)}}}, nil, nil
	})
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	t.Cleanup(hs.Close)
	for _, c := range []struct {
		name string
		run  func(e *e2e) string
		want string
	}{
		{"line mode", func(e *e2e) string { return plainRun(e, "go\n2\n3\n", nil) }, `accept {"env":"production","replicas":3}`},
		{"headless -p", func(e *e2e) string { return e.run(context.Background(), "-p", "go").stdout }, "no one can answer during this run"},
	} {
		t.Run(c.name, func(t *testing.T) {
			script := llmtest.NewScript(t, llmtest.Turn{Calls: []llmtest.Call{{Name: "mcp__deployer__deploy", Args: `{}`}}}, llmtest.Turn{Text: "done"})
			e := newE2E(t, script, "openai", "")
			f, err := os.OpenFile(filepath.Join(e.home, ".config", "aidex", "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(f, "\n[permissions]\nallow = [\"mcp__deployer__*\"]\n\n[mcp_servers.deployer]\nurl = %q\n", hs.URL)
			_ = f.Close()
			out := c.run(e)
			if c.name == "line mode" && !strings.Contains(out, "MCP server deployer asks") {
				t.Errorf("the line mode does not name the server:\n%s", out)
			}
			reqs := script.Requests()
			if len(reqs) < 2 || !strings.Contains(string(reqs[1]), strings.ReplaceAll(c.want, `"`, `\"`)) {
				t.Fatalf("the model did not get %q; output:\n%s", c.want, out)
			}
		})
	}
}
