package mcp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/tools"
)

type listResourcesArgs struct {
	Server string `json:"server,omitempty" jsonschema:"Only this MCP server's resources (default: every server)"`
}

type readResourceArgs struct {
	Server string `json:"server" jsonschema:"The MCP server holding the resource"`
	URI    string `json:"uri" jsonschema:"The resource's URI, as list_mcp_resources gave it"`
}

// ResourceDefs returns the tools list_mcp_resources and read_mcp_resource (kind
// read: they only read what the configured servers offer).
func (m *Manager) ResourceDefs() []tools.Def {
	list := tools.Define(tools.Spec{Name: "list_mcp_resources", Kind: kind.Read, Standard: true,
		Description: "List the resources (files, records, documents) the MCP servers offer: server, URI, name, MIME type."},
		func(ctx context.Context, _ *tools.Env, a listResourcesArgs) tools.Result {
			out, err := m.ListResources(ctx, a.Server)
			if err != nil {
				return tools.Failf(tools.CategoryExecution, "%v", err)
			}
			return tools.Success(out, nil)
		})
	read := tools.Define(tools.Spec{Name: "read_mcp_resource", Kind: kind.Read, Standard: true,
		Description: "Read one resource of an MCP server by its URI (see list_mcp_resources)."},
		func(ctx context.Context, _ *tools.Env, a readResourceArgs) tools.Result {
			return m.ReadResource(ctx, a.Server, a.URI)
		})
	return []tools.Def{list, read}
}

// ListResources lists the resources of one server ("" every ready server), one a
// line: "SERVER URI NAME (MIME) - DESCRIPTION".
func (m *Manager) ListResources(ctx context.Context, only string) (string, error) {
	names := m.names
	if only != "" {
		if _, err := m.server(only); err != nil {
			return "", err
		}
		names = []string{only}
	}
	var b strings.Builder
	for _, name := range names {
		s := m.servers[name]
		sess, err := s.session(ctx)
		if err != nil {
			if only != "" {
				return "", err
			}
			continue
		}
		if ir := sess.InitializeResult(); ir == nil || ir.Capabilities == nil || ir.Capabilities.Resources == nil {
			continue
		}
		for r, err := range sess.Resources(ctx, nil) {
			if err != nil {
				return "", fmt.Errorf("MCP server %s: list resources: %w", name, err)
			}
			fmt.Fprintf(&b, "%s %s %s", name, r.URI, r.Name)
			if r.MIMEType != "" {
				fmt.Fprintf(&b, " (%s)", r.MIMEType)
			}
			if r.Description != "" {
				fmt.Fprintf(&b, " - %s", oneLine(r.Description))
			}
			b.WriteByte('\n')
		}
	}
	if b.Len() == 0 {
		return "no MCP server offers resources", nil
	}
	out, _ := capOutput(b.String())
	return out, nil
}

// ReadResource reads a resource: text as is, an image as an image part, other
// binary data named.
func (m *Manager) ReadResource(ctx context.Context, server, uri string) tools.Result {
	s, err := m.server(server)
	if err != nil {
		return tools.Failf(tools.CategoryNotFound, "%v", err)
	}
	sess, err := s.session(ctx)
	if err != nil {
		return tools.Failf(tools.CategoryExecution, "%v", err)
	}
	res, err := sess.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
	if err != nil {
		return tools.Failf(tools.CategoryExecution, "MCP server %s: read %s: %v", server, uri, err)
	}
	content := make([]sdk.Content, 0, len(res.Contents))
	for _, c := range res.Contents {
		content = append(content, &sdk.EmbeddedResource{Resource: c})
	}
	return Convert(&sdk.CallToolResult{Content: content})
}

// PromptInfo is one server prompt, offered as the slash command /mcp__SERVER__PROMPT.
type PromptInfo struct {
	Command     string   `json:"command"` // mcp__SERVER__PROMPT (no slash)
	Server      string   `json:"server"`
	Name        string   `json:"name"`
	Description string   `json:"description,omitempty"`
	Arguments   []string `json:"arguments,omitempty"` // names, in order
}

// Prompts returns the ready servers' prompts.
func (m *Manager) Prompts() []PromptInfo {
	var out []PromptInfo
	for _, name := range m.names {
		s := m.servers[name]
		s.mu.Lock()
		for _, p := range s.prompts {
			pi := PromptInfo{Command: ToolName(name, p.Name), Server: name, Name: p.Name, Description: p.Description}
			for _, a := range p.Arguments {
				pi.Arguments = append(pi.Arguments, a.Name)
			}
			out = append(out, pi)
		}
		s.mu.Unlock()
	}
	return out
}

// GetPrompt expands a prompt (command: mcp__SERVER__PROMPT) with args, the text
// after the command: "k=v k2=v2", or plain words given to the prompt's arguments
// in order (the last takes the rest). It returns the prompt's messages as text.
func (m *Manager) GetPrompt(ctx context.Context, command, args string) (string, error) {
	var pi *PromptInfo
	for _, p := range m.Prompts() {
		if strings.EqualFold(p.Command, command) {
			pi = &p
			break
		}
	}
	if pi == nil {
		return "", fmt.Errorf("no MCP prompt /%s: see /mcp for the servers' prompts", command)
	}
	s, _ := m.server(pi.Server)
	sess, err := s.session(ctx)
	if err != nil {
		return "", err
	}
	res, err := sess.GetPrompt(ctx, &sdk.GetPromptParams{Name: pi.Name, Arguments: promptArgs(pi.Arguments, args)})
	if err != nil {
		return "", fmt.Errorf("MCP server %s: prompt %s: %w", pi.Server, pi.Name, err)
	}
	var b strings.Builder
	for _, msg := range res.Messages {
		if t, ok := msg.Content.(*sdk.TextContent); ok {
			if b.Len() > 0 {
				b.WriteString("\n\n")
			}
			b.WriteString(t.Text)
		}
	}
	return b.String(), nil
}

func promptArgs(names []string, text string) map[string]string {
	out := map[string]string{}
	fields := strings.Fields(text)
	named := len(fields) > 0
	for _, f := range fields {
		if k, _, ok := strings.Cut(f, "="); !ok || k == "" {
			named = false
		}
	}
	if named {
		for _, f := range fields {
			k, v, _ := strings.Cut(f, "=")
			out[k] = v
		}
		return out
	}
	for i, n := range names {
		if i >= len(fields) {
			break
		}
		if i == len(names)-1 {
			out[n] = strings.Join(fields[i:], " ")
			break
		}
		out[n] = fields[i]
	}
	return out
}
