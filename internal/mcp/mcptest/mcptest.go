// Package mcptest holds MCP servers for the tests of aidex's MCP client in
// its front ends. Only tests import it.
package mcptest

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ElicitServer starts a streamable HTTP MCP server (named "deployer") whose
// one tool, deploy, asks the user for a form (elicitation/create) with the
// message "Where should it go?" and one required field, env (title
// "Environment", one of staging and production), and answers with the
// user's action and the form's content as JSON ("accept {"env":"production"}",
// "decline null"); a failed elicitation is the tool's error. It returns the
// server's URL; the test's end stops it.
func ElicitServer(t testing.TB) string {
	srv := sdk.NewServer(&sdk.Implementation{Name: "deployer", Version: "1"}, nil)
	sdk.AddTool(srv, &sdk.Tool{Name: "deploy", Description: "Deploys after asking where."}, func(ctx context.Context, req *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
		res, err := req.Session.Elicit(ctx, &sdk.ElicitParams{Message: "Where should it go?", RequestedSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"env": map[string]any{"type": "string", "title": "Environment", "enum": []string{"staging", "production"}},
			},
			"required": []string{"env"},
		}})
		if err != nil {
			return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "elicitation failed: " + err.Error()}}}, nil, nil
		}
		b, _ := json.Marshal(res.Content)
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: res.Action + " " + string(b)}}}, nil, nil
	})
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	t.Cleanup(hs.Close)
	return hs.URL
}

// ElicitConfig is the config.toml text that adds the server at url as MCP
// server "deployer" and allows its tools without asking.
func ElicitConfig(url string) string {
	return "\n[permissions]\nallow = [\"mcp__deployer__*\"]\n\n[mcp_servers.deployer]\nurl = \"" + url + "\"\n"
}
