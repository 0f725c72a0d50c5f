package app

import (
	"context"
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
	"github.com/zelvior/aidex/internal/mcp"
	"github.com/zelvior/aidex/internal/mcp/oauth"
	"github.com/zelvior/aidex/internal/slashcmd"
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
