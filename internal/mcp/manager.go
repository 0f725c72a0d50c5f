package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zelvior/aidex/internal/config"
)

// Default timeouts of a server without startup_timeout_sec / tool_timeout_sec.
// A stdio server started through a package runner (npx -y, uvx, ...) may
// install its package first: a cold npm cache takes tens of seconds on a slow
// network, so its start-up gets DefaultPackageRunnerStartupTimeout.
const (
	DefaultStartupTimeout              = 10 * time.Second
	DefaultPackageRunnerStartupTimeout = 2 * time.Minute
	DefaultToolTimeout                 = 60 * time.Second
)

// Options configure [Start].
//
// Servers are the configured servers (disabled ones are listed, not started).
// LogDir receives one stderr log per stdio server (mcp-NAME.log; "" discards
// stderr but the last line is still kept for failure reports). Getenv looks up
// env_vars, bearer_token_env_var and the base environment of stdio servers.
// HTTPClient returns the HTTP client of a remote server (nil: a default client
// that sends the configured http_headers and bearer token); the OAuth login
// plugs its authorised client in here. Progress is told the progress
// notifications of running calls (nil: ignored). Version is aidex's version,
// sent as the client's implementation version. Elicit answers a server's
// elicitation/create request (a form the user fills in; server names the
// server asking); nil refuses every request with an error saying that no one
// can answer here. The client always declares elicitation, so that a server
// asking gets that reason rather than a missing capability.
//
// Starting is told, one line at a time, about a server whose start-up
// takes longer than StartingAfter (0: DefaultStartingAfter): that it is
// starting (and what runs: npx installing its package), every
// StartingEvery (0: DefaultStartingEvery) that it still is, and that it
// is ready (nil: not told). It is called from the start-up's goroutines.
type Options struct {
	Servers    []config.MCPServer
	LogDir     string
	Getenv     func(string) string
	HTTPClient func(ctx context.Context, server, url string) (*http.Client, error)
	Progress   func(Progress)
	Version    string
	Elicit     func(ctx context.Context, server string, p *sdk.ElicitParams) (*sdk.ElicitResult, error)

	Starting      func(server, text string)
	StartingAfter time.Duration
	StartingEvery time.Duration
}

// Progress is one progress notification of a running tool call: the server,
// the tool (as the server names it), the server's message, and progress out
// of total (total 0: unknown).
type Progress struct {
	Server, Tool, Message string
	Progress, Total       float64
}

// State is a server's state.
type State string

// The server states.
const (
	StateReady    State = "ready"
	StateFailed   State = "failed"
	StateDisabled State = "disabled"
)

// Manager runs a session's MCP servers. It is safe for concurrent use.
type Manager struct {
	opts    Options
	servers map[string]*server
	names   []string
	// gen counts changes of the tool lists (a server's tools/list_changed, a
	// restart): users of Defs compare it to refresh their registry.
	gen atomic.Int64
	// calls numbers progress tokens.
	calls atomic.Int64
}

// Start starts every enabled server in parallel and waits until each is ready,
// failed or past its startup timeout (a failure is recorded, see [Manager.Failures];
// the others go on). ctx bounds the start-up only. Close the manager when the
// session ends.
func Start(ctx context.Context, opts Options) *Manager {
	if opts.Getenv == nil {
		opts.Getenv = func(string) string { return "" }
	}
	m := &Manager{opts: opts, servers: map[string]*server{}}
	for _, c := range opts.Servers {
		m.servers[c.Name] = &server{cfg: c, m: m, turn: make(chan struct{}, 1)}
		m.names = append(m.names, c.Name)
	}
	sort.Strings(m.names)
	var wg sync.WaitGroup
	for _, name := range m.names {
		s := m.servers[name]
		if !s.cfg.IsEnabled() {
			s.state = StateDisabled
			continue
		}
		wg.Go(func() { s.start(ctx) })
	}
	wg.Wait()
	return m
}

// Generation changes whenever a server's tool list changed (tools/list_changed,
// a restart): a registry built from [Manager.Defs] of another generation is stale.
func (m *Manager) Generation() int64 { return m.gen.Load() }

// Failures returns one line per server that failed to start: its name, the cause
// and its last stderr line, and that the session goes on without it.
func (m *Manager) Failures() []string {
	var out []string
	for _, name := range m.names {
		s := m.servers[name]
		s.mu.Lock()
		if s.state == StateFailed {
			out = append(out, fmt.Sprintf("MCP server %s failed to start: %s; the session goes on without it", name, s.failure()))
		}
		s.mu.Unlock()
	}
	return out
}

// RequiredFailures are the failures of the servers configured with
// required = true (Codex's key) that failed to start: one line each,
// naming the server, where it is configured, the cause and the fix. A
// session's runs stop with them.
func (m *Manager) RequiredFailures() []string {
	var out []string
	for _, name := range m.names {
		s := m.servers[name]
		if !s.cfg.Required {
			continue
		}
		s.mu.Lock()
		if s.state == StateFailed {
			out = append(out, fmt.Sprintf("MCP server %s is required (required = true, %s) but failed to start: %s; fix it, or set required = false to go on without it",
				name, s.cfg.Source, s.failure()))
		}
		s.mu.Unlock()
	}
	return out
}

// Close ends every server: sessions are closed and stdio servers' process groups
// killed. It waits for them and returns the first error.
func (m *Manager) Close() error {
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	for _, name := range m.names {
		s := m.servers[name]
		wg.Go(func() {
			if err := s.close(); err != nil {
				mu.Lock()
				errs = append(errs, fmt.Errorf("MCP server %s: %w", s.cfg.Name, err))
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// ServerStatus is one server as `aidex mcp list` and /mcp show it.
type ServerStatus struct {
	Name      string `json:"name"`
	Transport string `json:"transport"`
	State     State  `json:"status"`
	// Error is the failure's one line (failed servers).
	Error string `json:"error,omitempty"`
	// Tools are the offered tools (enabled_tools / disabled_tools applied).
	Tools []ToolInfo `json:"tools"`
	// DefinitionTokens estimates the tokens the tools' definitions take in a request.
	DefinitionTokens int `json:"definition_tokens"`
	// Prompts are the server's prompts as slash commands (mcp__SERVER__PROMPT, no slash).
	Prompts []string `json:"prompts,omitempty"`
	// Source is where the server is configured ("FILE:LINE").
	Source string `json:"source,omitempty"`
	// Started and Ready are when the start-up began and ended (zero if none).
	Started time.Time `json:"-"`
	Ready   time.Time `json:"-"`
}

// Status returns every configured server, by name.
func (m *Manager) Status() []ServerStatus {
	out := make([]ServerStatus, 0, len(m.names))
	for _, name := range m.names {
		out = append(out, m.servers[name].status())
	}
	return out
}

// Tools returns the offered tools of every ready server, by server then tool.
func (m *Manager) Tools() []ToolInfo {
	var out []ToolInfo
	for _, name := range m.names {
		out = append(out, m.servers[name].toolInfos()...)
	}
	return out
}

// DefinitionTokens estimates the tokens all offered tools' definitions take.
func (m *Manager) DefinitionTokens() int {
	n := 0
	for _, t := range m.Tools() {
		n += t.Tokens()
	}
	return n
}

func (m *Manager) server(name string) (*server, error) {
	s, ok := m.servers[name]
	if !ok {
		return nil, fmt.Errorf("no MCP server %q: configured servers are %v", name, m.names)
	}
	return s, nil
}

// Names returns the configured servers' names, sorted.
func (m *Manager) Names() []string { return slices.Clone(m.names) }

// clientFor builds the go-sdk client of a server, with its notification handlers.
func (m *Manager) clientFor(s *server) *sdk.Client {
	return sdk.NewClient(&sdk.Implementation{Name: "aidex", Version: m.opts.Version}, &sdk.ClientOptions{
		Capabilities: &sdk.ClientCapabilities{},
		ElicitationHandler: func(ctx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			if m.opts.Elicit == nil || req.Params == nil {
				return nil, fmt.Errorf("aidex cannot show MCP server %s's request for input here: no one can answer it (a headless run)", s.cfg.Name)
			}
			return m.opts.Elicit(ctx, s.cfg.Name, req.Params)
		},
		ToolListChangedHandler: func(ctx context.Context, _ *sdk.ToolListChangedRequest) {
			go s.refreshTools(context.WithoutCancel(ctx))
		},
		PromptListChangedHandler: func(ctx context.Context, _ *sdk.PromptListChangedRequest) {
			go s.refreshPrompts(context.WithoutCancel(ctx))
		},
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
			if m.opts.Progress == nil || req.Params == nil {
				return
			}
			s.progressMu.Lock()
			defer s.progressMu.Unlock()
			tool, ok := s.progressTool(req.Params.ProgressToken)
			if !ok {
				return // its call has ended: its result was reported
			}
			m.opts.Progress(Progress{Server: s.cfg.Name, Tool: tool, Message: req.Params.Message,
				Progress: req.Params.Progress, Total: req.Params.Total})
		},
	})
}
