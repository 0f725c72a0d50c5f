package mcp_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/config"
	"github.com/zelvior/aidex/internal/mcp"
	"github.com/zelvior/aidex/internal/tools"
)

func TestConvert(t *testing.T) {
	r := mcp.Convert(&sdk.CallToolResult{Content: []sdk.Content{
		&sdk.TextContent{Text: "hello"},
		&sdk.ResourceLink{URI: "file:///a.txt", Name: "a.txt", MIMEType: "text/plain", Description: "the file"},
		&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "mem://x", MIMEType: "text/plain", Text: "inside"}},
		&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "mem://img", MIMEType: "image/png", Blob: []byte{1, 2}}},
		&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "mem://bin", MIMEType: "application/zip", Blob: []byte{1, 2, 3}}},
	}, StructuredContent: map[string]any{"temp": 21}})
	require.True(t, r.OK)
	for _, want := range []string{"hello", "[resource link] a.txt: file:///a.txt (text/plain) - the file", "[resource mem://x (text/plain)]\ninside",
		"[resource mem://bin (application/zip), 3 bytes of binary data: not shown]", `structuredContent: {"temp":21}`} {
		require.Contains(t, r.Output, want)
	}
	require.Equal(t, []tools.Image{{MIME: "image/png", Data: []byte{1, 2}}}, r.Images)

	// structuredContent already in a text block is not repeated.
	r = mcp.Convert(&sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: `{"temp": 21}`}}, StructuredContent: map[string]any{"temp": 21}})
	require.NotContains(t, r.Output, "structuredContent")

	r = mcp.Convert(&sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "repo not found"}}})
	require.False(t, r.OK)
	require.Equal(t, tools.CategoryExecution, r.Category)
	require.Contains(t, r.Error, "repo not found")

	big := strings.Repeat("a", 40000) + "THE END"
	r = mcp.Convert(&sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: big}}})
	require.Less(t, len(r.Output), 31000)
	require.Contains(t, r.Output, "THE END", "the tail is kept")
	require.Contains(t, r.Output, "characters cut")
	require.True(t, r.Meta.Truncated)
}

func TestDisabledServerAndToolTimeout(t *testing.T) {
	off := false
	slow := everything(t, "slow")
	slow.ToolTimeoutSec = 1
	m := start(t, config.MCPServer{Name: "off", Command: "/nonexistent", Enabled: &off, Source: "cfg:3"}, slow)
	require.Empty(t, m.Failures(), "a disabled server is not started")
	st := m.Status()
	require.Equal(t, mcp.StateDisabled, st[0].State)
	r := m.CallTool(context.Background(), "off", "x", nil)
	require.Contains(t, r.Error, "is disabled (enabled = false in cfg:3)")
	r = m.CallTool(context.Background(), "slow", "trigger-long-running-operation", json.RawMessage(`{"duration":30,"steps":2}`))
	require.False(t, r.OK)
	require.Contains(t, r.Error, "no answer within tool_timeout_sec (1s)")
}

// structuredContent whose every value the content blocks already carry is not
// sent again: the filesystem server's read_text_file answers a file as text and
// as {"content": text}, and a 21 KB file must reach the model once, uncut.
func TestStructuredContentCarriedByContentIsNotRepeated(t *testing.T) {
	file := strings.Repeat("package main // line of a Go file\n", 640) // ~21 KB
	png := []byte{0x89, 'P', 'N', 'G', 1, 2, 3}
	for _, c := range []struct {
		name string
		res  *sdk.CallToolResult
		want string // a piece of text that must appear exactly once
	}{
		{"text as {content}", &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: file}},
			StructuredContent: map[string]any{"content": file}}, "package main"},
		{"media as {content:[item]}", &sdk.CallToolResult{Content: []sdk.Content{&sdk.ImageContent{MIMEType: "image/png", Data: png}},
			StructuredContent: map[string]any{"content": []any{map[string]any{"type": "image", "mimeType": "image/png", "data": "iVBORwECAw=="}}}}, "image/png"},
		{"values in prose", &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "It is 21 degrees in Paris, sunny"}},
			StructuredContent: map[string]any{"city": "Paris", "temp": 21, "sky": "sunny"}}, "Paris"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := mcp.Convert(c.res)
			require.True(t, r.OK)
			require.NotContains(t, r.Output, "structuredContent")
			require.Nil(t, r.Meta, "the output was cut")
			bare := *c.res
			bare.StructuredContent = nil
			require.Equal(t, mcp.Convert(&bare).Output, r.Output, "the content reaches the model once")
			require.Contains(t, r.Output, c.want)
		})
	}
	// A value the text does not carry is sent.
	r := mcp.Convert(&sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "It is 21 degrees"}},
		StructuredContent: map[string]any{"temp": 21, "humidity": 0.63}})
	require.Contains(t, r.Output, `structuredContent: {"humidity":0.63,"temp":21}`)
}
