package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/mcp"
	"github.com/zelvior/aidex/internal/tools"
)

// MCPTools is a session's view of the MCP tools: which are offered to the model
// (all, or when their definitions exceed the budget, only those tool_search found)
// and the registry kept in step with the servers' tool lists.
type MCPTools struct {
	m        *mcp.Manager
	reg      *tools.Registry
	deferred bool
	mu       sync.Mutex
	gen      int64
	found    map[string]bool
}

// NewMCPTools registers m's tools (and the resource tools) in reg and decides
// whether the definitions are deferred: when they take more than budget of the
// context window. Errors: a tool name taken twice (the registry's).
func NewMCPTools(m *mcp.Manager, reg *tools.Registry, window int, budget float64) (*MCPTools, error) {
	mt := &MCPTools{m: m, reg: reg, found: map[string]bool{}, gen: m.Generation()}
	if err := reg.Register(m.Defs()...); err != nil {
		return nil, fmt.Errorf("MCP tools: %w", err)
	}
	if err := reg.Register(m.ResourceDefs()...); err != nil {
		return nil, fmt.Errorf("MCP tools: %w", err)
	}
	mt.deferred = window > 0 && budget < 1 && float64(m.DefinitionTokens()) > budget*float64(window)
	return mt, nil
}

// Sync registers the servers' current tools when a list changed.
func (mt *MCPTools) Sync() {
	mt.mu.Lock()
	defer mt.mu.Unlock()
	if g := mt.m.Generation(); g != mt.gen {
		mt.gen = g
		mt.reg.Unregister(tools.ExternalPrefix)
		_ = mt.reg.Register(mt.m.Defs()...)
	}
}

// Offered returns the MCP tools offered now.
func (mt *MCPTools) Offered() []llm.Tool {
	mt.Sync()
	mt.mu.Lock()
	defer mt.mu.Unlock()
	var out []llm.Tool
	for _, t := range mt.m.Tools() {
		if mt.deferred && !mt.found[t.Name] {
			continue
		}
		d, ok := mt.reg.Lookup(t.Name)
		if !ok {
			continue
		}
		s, err := d.Schema()
		if err != nil {
			continue
		}
		out = append(out, llm.Tool{Name: d.Name, Description: d.Description, Parameters: s})
	}
	return out
}

// SearchTool is tool_search: the model finds deferred MCP tools by words of
// their names and descriptions; found tools are offered from the next request on.
func (mt *MCPTools) SearchTool() agent.EngineTool {
	schema := json.RawMessage(`{"type":"object","properties":{"query":{"type":"string","description":"Words to look for in the MCP tools' names and descriptions, e.g. \"github issue\"; or select:NAME,NAME to load tools by name"}},"required":["query"]}`)
	return agent.EngineTool{
		Spec: llm.Tool{Name: "tool_search", Parameters: schema,
			Description: "Find MCP tools (not loaded yet, to save context). Returns matching tools' names, descriptions and input schemas; they can be called from your next step on."},
		Run: func(_ context.Context, _ *agent.Conversation, args json.RawMessage) agent.ToolResultInfo {
			var a struct {
				Query string `json:"query"`
			}
			if err := json.Unmarshal(args, &a); err != nil || strings.TrimSpace(a.Query) == "" {
				return agent.ToolResultInfo{Error: `tool_search needs {"query": "words"}`, Category: "validation"}
			}
			return agent.ToolResultInfo{OK: true, Output: mt.search(a.Query)}
		},
	}
}

func (mt *MCPTools) search(query string) string {
	all := mt.m.Tools()
	var hits []mcp.ToolInfo
	if names, ok := strings.CutPrefix(strings.TrimSpace(query), "select:"); ok {
		for _, t := range all {
			for _, n := range strings.Split(names, ",") {
				if strings.EqualFold(strings.TrimSpace(n), t.Name) {
					hits = append(hits, t)
				}
			}
		}
	} else {
		hits = rankTools(all, strings.Fields(strings.ToLower(query)))
	}
	if len(hits) == 0 {
		return fmt.Sprintf("no MCP tool matches %q; %d MCP tools are available, try other words", query, len(all))
	}
	mt.mu.Lock()
	for _, t := range hits {
		mt.found[t.Name] = true
	}
	mt.mu.Unlock()
	type entry struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"input_schema"`
	}
	out := make([]entry, len(hits))
	for i, t := range hits {
		out[i] = entry{t.Name, t.Description, t.Schema}
	}
	b, _ := json.MarshalIndent(out, "", "  ")
	return "These tools can be called from your next step on:\n" + string(b)
}

// rankTools returns up to 5 tools matching the most words (name matches count
// double), best first.
func rankTools(all []mcp.ToolInfo, words []string) []mcp.ToolInfo {
	type scored struct {
		t mcp.ToolInfo
		n int
	}
	var hits []scored
	for _, t := range all {
		name, desc := strings.ToLower(t.Name), strings.ToLower(t.Description)
		n := 0
		for _, w := range words {
			if strings.Contains(name, w) {
				n += 2
			} else if strings.Contains(desc, w) {
				n++
			}
		}
		if n > 0 {
			hits = append(hits, scored{t, n})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].n > hits[j].n })
	out := make([]mcp.ToolInfo, 0, 5)
	for i := 0; i < len(hits) && i < 5; i++ {
		out = append(out, hits[i].t)
	}
	return out
}

// Deferred reports whether the MCP tools' definitions exceed the budget,
// so they are offered only once tool_search found them (the engine then
// gets [MCPTools.SearchTool]).
func (mt *MCPTools) Deferred() bool { return mt.deferred }
