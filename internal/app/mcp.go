package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/config"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/mcp"
	"github.com/zelvior/aidex/internal/mcp/oauth"
	"github.com/zelvior/aidex/internal/slashcmd"
	"github.com/zelvior/aidex/internal/tools"
)

// mcpSlot holds a service's MCP manager, started at the first session.
type mcpSlot struct {
	mu      sync.Mutex
	started bool
	m       *mcp.Manager
	// HTTPClient is passed to the manager (mcp.Options.HTTPClient): the OAuth
	// login's authorised client of a remote server.
	httpClient func(ctx context.Context, server, url string) (*http.Client, error)
	// progress receives the servers' progress notifications (set per run).
	progress func(mcp.Progress)
	// extra are servers a front end added (AddMCPServers).
	extra []config.MCPServer
	// asker answers the servers' elicitations (set per run; nil: no one).
	asker *elicitTarget
}

// MCPServers returns the configured MCP servers in name order.
func (rt *Runtime) MCPServers() []config.MCPServer {
	names := make([]string, 0, len(rt.Config.MCPServers))
	for n := range rt.Config.MCPServers {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]config.MCPServer, 0, len(names))
	for _, n := range names {
		out = append(out, rt.Config.MCPServers[n])
	}
	return out
}

// MCPLogDir is where the MCP servers' stderr logs go (under the state dir).
func (rt engineRoom) mcpLogDir() string { return filepath.Join(rt.Config.Paths.StateDir, "mcp") }

// StartMCP starts the runtime's configured MCP servers in parallel (see
// mcp.Start) and returns their manager, or nil when none is configured. Each
// server that fails to start is reported in one line to report (nil: ignored),
// and one whose start-up takes long is reported while it starts (Report.Progress).
// Close the manager when done.
func (rt *Runtime) StartMCP(ctx context.Context, httpClient func(ctx context.Context, server, url string) (*http.Client, error),
	progress func(mcp.Progress), report func(Report)) *mcp.Manager {
	return rt.engineRoom().startMCP(ctx, nil, httpClient, progress, report, nil)
}

// startMCP is StartMCP with extra servers (replacing configured ones of
// the same name) and the answerer of the servers' elicitations (nil:
// refused).
func (rt engineRoom) startMCP(ctx context.Context, extra []config.MCPServer, httpClient func(ctx context.Context, server, url string) (*http.Client, error),
	progress func(mcp.Progress), report func(Report), elicit func(ctx context.Context, server string, p *sdk.ElicitParams) (*sdk.ElicitResult, error)) *mcp.Manager {
	servers := rt.MCPServers()
	for _, x := range extra {
		servers = slices.DeleteFunc(servers, func(c config.MCPServer) bool { return c.Name == x.Name })
		servers = append(servers, x)
	}
	if len(servers) == 0 {
		return nil
	}
	if httpClient == nil {
		httpClient = rt.mcpOAuthClient
	}
	opts := mcp.Options{Servers: servers, LogDir: rt.engineRoom().mcpLogDir(), Getenv: rt.Getenv,
		HTTPClient: httpClient, Progress: progress, Version: rt.Version, Elicit: elicit}
	if report != nil {
		opts.Starting = func(_, text string) { report(Report{Text: text, Progress: true}) }
	}
	m := mcp.Start(ctx, opts)
	if report != nil {
		for _, f := range m.Failures() {
			report(Report{Text: f, Warning: true})
		}
	}
	return m
}

// mcpOAuthClient is the default HTTP client of a remote MCP server: one
// authorised with the token `aidex mcp login NAME` stored (refreshed as
// needed), or nil (a plain client with the configured headers) when no
// token is stored for it. Errors: a token file that cannot be read, a
// token issued for another URL.
func (rt engineRoom) mcpOAuthClient(ctx context.Context, server, url string) (*http.Client, error) {
	c, err := oauth.NewStore(rt.Config.Paths.StateDir).HTTPClient(ctx, server, url)
	if errors.Is(err, oauth.ErrNoToken) {
		return nil, nil
	}
	return c, err
}

// SetMCPHTTPClient sets the HTTP client the service's remote MCP servers are
// reached with (mcp.Options.HTTPClient), before the first session starts them.
func (s *Service) SetMCPHTTPClient(f func(ctx context.Context, server, url string) (*http.Client, error)) {
	s.mcp.mu.Lock()
	defer s.mcp.mu.Unlock()
	s.mcp.httpClient = f
}

// MCP returns the service's MCP manager, starting the configured servers at the
// first call (nil when none is configured). Servers that failed to start are
// reported by every session's first run, as notice events (mcpNotices): every
// front end shows them; they also go to the service's Report function, marked
// InSession. The session goes on without those servers. A start-up that
// takes long (npx installing a package) is reported to the Report function
// while it goes on (Report.Progress): the front ends show it as it comes.
func (s *Service) MCP(ctx context.Context) *mcp.Manager {
	s.mcp.mu.Lock()
	defer s.mcp.mu.Unlock()
	if !s.mcp.started {
		s.mcp.started = true
		var report func(Report)
		if s.report != nil {
			report = func(r Report) { r.InSession = !r.Progress; s.report(r) }
		}
		s.mcp.m = s.Runtime().engineRoom().startMCP(ctx, s.mcp.extra, s.mcp.httpClient, s.mcp.notify, report, s.mcpElicit)
	}
	return s.mcp.m
}

// progressTo sends the MCP servers' progress notifications to emit as progress
// events while a run goes on; emit is serialised with the run's own events.
// restore ends it.
func (ms *mcpSlot) progressTo(sessionID string, emit func(agent.Event)) (serialised func(agent.Event), restore func()) {
	var mu sync.Mutex
	serialised = func(e agent.Event) {
		mu.Lock()
		defer mu.Unlock()
		emit(e)
	}
	ms.mu.Lock()
	prev := ms.progress
	ms.progress = func(p mcp.Progress) {
		serialised(agent.Event{Type: agent.EventProgress, SessionID: sessionID, Progress: &agent.ProgressInfo{
			Tool: mcp.ToolName(p.Server, p.Tool), Message: p.Message, Progress: p.Progress, Total: p.Total}})
	}
	ms.mu.Unlock()
	return serialised, func() {
		ms.mu.Lock()
		ms.progress = prev
		ms.mu.Unlock()
	}
}

// notify passes a server's progress notification to the run that set
// progress (none: dropped).
func (ms *mcpSlot) notify(p mcp.Progress) {
	ms.mu.Lock()
	f := ms.progress
	ms.mu.Unlock()
	if f != nil {
		f(p)
	}
}

// MCPStatus returns the state of every configured MCP server, its tools and
// prompts; servers are started first if no session started them yet.
func (s *Service) MCPStatus(ctx context.Context) []mcp.ServerStatus {
	if m := s.MCP(ctx); m != nil {
		return m.Status()
	}
	return nil
}

// MCPPrompt expands the MCP server prompt of a slash command
// (/mcp__SERVER__PROMPT args; command without the slash) into the prompt text
// to send. Errors: no MCP servers configured, no such prompt, the server's.
func (s *Service) MCPPrompt(ctx context.Context, command, args string) (string, error) {
	m := s.MCP(ctx)
	if m == nil {
		return "", fmt.Errorf("no MCP servers are configured, so there is no /%s: add one with `aidex mcp add`", command)
	}
	return m.GetPrompt(ctx, command, args)
}

// mcpCommands lists the MCP servers' prompts as custom slash commands
// (/mcp__SERVER__PROMPT args), so that every front end that expands custom
// commands (the web chat, headless -p, the terminal UI and the line mode)
// runs them. With no server configured it starts nothing.
func (s *Service) mcpCommands(ctx context.Context) ([]slashcmd.Command, error) {
	if len(s.Runtime().MCPServers()) == 0 {
		return nil, nil
	}
	m := s.MCP(ctx)
	if m == nil {
		return nil, nil
	}
	var out []slashcmd.Command
	for _, p := range m.Prompts() {
		name := p.Command
		desc := p.Description
		if desc == "" {
			desc = "MCP prompt " + p.Name + " of " + p.Server
		}
		out = append(out, slashcmd.Command{Name: name, Description: desc, ArgumentHint: strings.Join(p.Arguments, " "),
			Path: "MCP server " + p.Server, Scope: slashcmd.ScopeOther,
			Prompt: func(ctx context.Context, args string) (string, error) { return s.MCPPrompt(ctx, name, args) }})
	}
	return out, nil
}

func (s *Service) closeMCP() error {
	s.mcp.mu.Lock()
	m := s.mcp.m
	s.mcp.m = nil
	s.mcp.mu.Unlock()
	if m == nil {
		return nil
	}
	return m.Close()
}

// mcpTools is a session's view of the MCP tools: which are offered to the model
// (all, or when their definitions exceed the budget, only those tool_search found)
// and the registry kept in step with the servers' tool lists.
type mcpTools struct {
	m        *mcp.Manager
	reg      *tools.Registry
	deferred bool
	mu       sync.Mutex
	gen      int64
	found    map[string]bool
}

// newMCPTools registers m's tools (and the resource tools) in reg and decides
// whether the definitions are deferred: when they take more than budget of the
// context window.
func newMCPTools(m *mcp.Manager, reg *tools.Registry, window int, budget float64) (*mcpTools, error) {
	mt := &mcpTools{m: m, reg: reg, found: map[string]bool{}, gen: m.Generation()}
	if err := reg.Register(m.Defs()...); err != nil {
		return nil, fmt.Errorf("MCP tools: %w", err)
	}
	if err := reg.Register(m.ResourceDefs()...); err != nil {
		return nil, fmt.Errorf("MCP tools: %w", err)
	}
	mt.deferred = window > 0 && budget < 1 && float64(m.DefinitionTokens()) > budget*float64(window)
	return mt, nil
}

// sync registers the servers' current tools when a list changed.
func (mt *mcpTools) sync() {
	mt.mu.Lock()
	defer mt.mu.Unlock()
	if g := mt.m.Generation(); g != mt.gen {
		mt.gen = g
		mt.reg.Unregister(tools.ExternalPrefix)
		_ = mt.reg.Register(mt.m.Defs()...)
	}
}

// offered returns the MCP tools offered now.
func (mt *mcpTools) offered() []llm.Tool {
	mt.sync()
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

// searchTool is tool_search: the model finds deferred MCP tools by words of
// their names and descriptions; found tools are offered from the next request on.
func (mt *mcpTools) searchTool() agent.EngineTool {
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

func (mt *mcpTools) search(query string) string {
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
