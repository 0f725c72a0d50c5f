package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/tools"
)

// ToolInfo is one MCP tool as aidex offers it.
type ToolInfo struct {
	// Name is the name the model calls: mcp__SERVER__TOOL, sanitised to
	// [A-Za-z0-9_-] and at most tools.MaxExternalName bytes.
	Name string `json:"name"`
	// Server and Tool are the server's name and the tool's own name.
	Server string `json:"server"`
	Tool   string `json:"tool"`
	// Description and Schema are the server's (Schema: the JSON Schema of the input).
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"input_schema"`
	// ReadOnly: the server marks it readOnlyHint and the config trusts annotations.
	ReadOnly bool `json:"read_only,omitempty"`
}

// Tokens estimates the tokens the tool's definition takes in a request (about
// four bytes a token, as the engine estimates).
func (t ToolInfo) Tokens() int {
	return (len(t.Name)+len(t.Description)+len(t.Schema))/4 + 8
}

// ToolName is the name of server's tool: mcp__SERVER__TOOL with every character
// outside [A-Za-z0-9_-] replaced by '_' and, past tools.MaxExternalName bytes,
// cut and ended with a short hash of the full name (so it stays unique).
func ToolName(server, tool string) string {
	name := tools.ExternalPrefix + sanitize(server) + "__" + sanitize(tool)
	if len(name) <= tools.MaxExternalName {
		return name
	}
	sum := sha256.Sum256([]byte(server + "\x00" + tool))
	h := hex.EncodeToString(sum[:])[:8]
	return name[:tools.MaxExternalName-9] + "_" + h
}

func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, s)
}

// toolKey is how the registry compares names (case folded, '-' as '_').
func toolKey(name string) string { return strings.ToLower(strings.ReplaceAll(name, "-", "_")) }

// offered reports whether the config offers the tool (enabled_tools, disabled_tools).
func (s *server) offered(name string) bool {
	if len(s.cfg.EnabledTools) > 0 && !slices.Contains(s.cfg.EnabledTools, name) {
		return false
	}
	return !slices.Contains(s.cfg.DisabledTools, name)
}

func (s *server) toolInfos() []ToolInfo {
	s.mu.Lock()
	list, ready := s.tools, s.state == StateReady
	s.mu.Unlock()
	if !ready {
		return nil
	}
	var out []ToolInfo
	seen := map[string]bool{}
	for _, t := range list {
		if !s.offered(t.Name) {
			continue
		}
		name := ToolName(s.cfg.Name, t.Name)
		for i := 2; seen[toolKey(name)]; i++ {
			suffix := fmt.Sprintf("_%d", i)
			name = ToolName(s.cfg.Name, t.Name)
			name = name[:min(len(name), tools.MaxExternalName-len(suffix))] + suffix
		}
		seen[toolKey(name)] = true
		schema, _ := json.Marshal(t.InputSchema)
		if len(schema) == 0 || string(schema) == "null" {
			schema = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		ro := s.cfg.TrustAnnotations && t.Annotations != nil && t.Annotations.ReadOnlyHint
		out = append(out, ToolInfo{Name: name, Server: s.cfg.Name, Tool: t.Name, Description: describe(t), Schema: schema, ReadOnly: ro})
	}
	return out
}

func describe(t *sdk.Tool) string {
	d := t.Description
	if d == "" {
		d = t.Title
	}
	return d
}

// Defs returns every offered MCP tool as a registry tool: kind other (the policy
// asks in every mode but yolo, unless a rule allows it), or read for a tool the
// server marks readOnlyHint when its config says trust_annotations = true.
func (m *Manager) Defs() []tools.Def {
	var out []tools.Def
	for _, t := range m.Tools() {
		k := kind.Other
		if t.ReadOnly {
			k = kind.Read
		}
		spec := tools.Spec{Name: t.Name, Description: fmt.Sprintf("[MCP %s] %s", t.Server, t.Description), Kind: k, Standard: true}
		server, tool := t.Server, t.Tool
		out = append(out, tools.DefineRaw(spec, t.Schema, func(ctx context.Context, _ *tools.Env, args json.RawMessage) tools.Result {
			return m.CallTool(ctx, server, tool, args)
		}))
	}
	return out
}

// CallTool calls a server's tool (by the server's own name) with a JSON object of
// arguments, within the server's tool timeout. A crashed stdio server is started
// again once first; a call during which the server crashed is not sent again.
// Cancelling ctx sends notifications/cancelled to the server.
// The result is converted as [Convert] does; transport failures are execution
// failures naming the server.
func (m *Manager) CallTool(ctx context.Context, serverName, tool string, args json.RawMessage) tools.Result {
	s, err := m.server(serverName)
	if err != nil {
		return tools.Failf(tools.CategoryNotFound, "%v", err)
	}
	var argv map[string]any
	if len(args) > 0 {
		if err := json.Unmarshal(args, &argv); err != nil {
			return tools.Failf(tools.CategoryValidation, "arguments for %s must be a JSON object: %v", tool, err)
		}
	}
	res, err := s.call(ctx, tool, argv)
	if err != nil {
		return tools.Failf(tools.CategoryExecution, "MCP server %s, tool %s: %v", serverName, tool, err)
	}
	return Convert(res)
}

func (s *server) call(ctx context.Context, tool string, args map[string]any) (*sdk.CallToolResult, error) {
	if !s.cfg.SupportsParallelToolCalls {
		// One call at a time (Codex's default); the wait does not count
		// against tool_timeout_sec.
		select {
		case s.turn <- struct{}{}:
			defer func() { <-s.turn }()
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	ctx, cancel := context.WithTimeout(ctx, s.toolTimeout())
	defer cancel()
	sess, err := s.session(ctx)
	if err != nil {
		return nil, err
	}
	token := fmt.Sprintf("aidex-%d", s.m.calls.Add(1))
	s.mu.Lock()
	if s.progress == nil {
		s.progress = map[any]string{}
	}
	s.progress[token] = tool
	s.mu.Unlock()
	p := &sdk.CallToolParams{Name: tool, Arguments: args}
	p.SetProgressToken(token)
	res, err := sess.CallTool(ctx, p)
	s.progressMu.Lock()
	s.mu.Lock()
	delete(s.progress, token)
	s.mu.Unlock()
	s.progressMu.Unlock()
	if err == nil {
		return res, nil
	}
	if ctx.Err() != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return nil, fmt.Errorf("no answer within tool_timeout_sec (%s)", s.toolTimeout())
		}
		return nil, ctx.Err()
	}
	if s.crashed(sess) {
		// The call may have had effects before the crash: it is never sent
		// again on its own (tools need not be idempotent).
		s.mu.Lock()
		last := ""
		if s.stderr != nil {
			if l := s.stderr.LastLine(); l != "" {
				last = fmt.Sprintf(" (last stderr line: %q)", l)
			}
		}
		s.mu.Unlock()
		return nil, fmt.Errorf("MCP server %s stopped during the call%s; the call was not sent again because it may already have taken effect: "+
			"check its effects before calling again (the server is restarted at the next call)", s.cfg.Name, last)
	}
	return nil, s.challenged(err)
}

// crashed reports whether sess ended (the stdio server exited), marking the
// server dead so that the next call restarts it.
func (s *server) crashed(sess *sdk.ClientSession) bool {
	if s.cfg.TransportName() != "stdio" {
		return false
	}
	done := make(chan struct{})
	go func() { _ = sess.Wait(); close(done) }()
	select {
	case <-done:
	case <-s.waitBriefly():
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sess == sess {
		s.dead = true
	}
	return true
}
