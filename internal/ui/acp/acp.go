// Package acp is aidex as an Agent Client Protocol agent
// (https://agentclientprotocol.com, protocol version 1) for editors such
// as Zed, JetBrains IDEs and Neovim: JSON-RPC 2.0 over stdio, one JSON
// object a line, on github.com/coder/acp-go-sdk.
//
// It is one more front end of internal/app and has no session logic of
// its own: session/new picks a new stored session of the workspace named
// by cwd (one app.Service per workspace), session/prompt runs it, and the
// engine's events become session/update notifications (agent_message_chunk,
// agent_thought_chunk, tool_call and tool_call_update with kinds,
// titles, locations and diffs for edits, plan from todo_write). The
// policy's asks become session/request_permission with allow once, allow
// always (the same persisted allow rule as the terminal's "a"), reject
// once and reject always (a persisted deny rule of the same shape).
// ask_user is not offered in ACP sessions (ACP v1 has no question form).
package acp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/zelvior/aidex/internal/app"
)

// Options configure an Agent. Setup loads the runtime of each workspace
// (its Workspace is replaced by the session's cwd). Version is reported
// as agentInfo.version. Stderr gets diagnostics (nil: discarded); the
// editor shows it in its agent log.
type Options struct {
	Setup   app.Options
	Version string
	Stderr  io.Writer
}

// Agent serves ACP on one connection. Create it with New, run it with
// Serve.
type Agent struct {
	opts Options
	conn *sdk.AgentSideConnection

	mu sync.Mutex
	// hosts own the live sessions, one app.Host (over one app.Service)
	// per workspace; a session's ACP state (kinds, calls in flight, the
	// editor's files) is its HostSession's adapter.
	hosts  map[string]*app.Host // by workspace
	client sdk.ClientCapabilities
}

// New returns an agent that loads workspaces with o.
func New(o Options) *Agent {
	if o.Stderr == nil {
		o.Stderr = io.Discard
	}
	return &Agent{opts: o, hosts: map[string]*app.Host{}}
}

// Serve answers ACP requests read from in, writing to out, until in ends
// (the editor closed the pipe) or ctx is cancelled, then closes the
// sessions and services. It returns nil when the peer disconnected.
func (a *Agent) Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	// The connection serves requests as soon as it exists: its handlers
	// read a.conn under a.mu.
	a.mu.Lock()
	conn := sdk.NewAgentSideConnection(a, out, in)
	conn.SetLogger(slog.New(slog.NewTextHandler(a.opts.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	a.conn = conn
	a.mu.Unlock()
	select {
	case <-conn.Done():
	case <-ctx.Done():
	}
	return a.close()
}

// closeWait bounds how long closing waits for cancelled prompts to save
// their partial answers.
const closeWait = 5 * time.Second

// close ends every session and service.
func (a *Agent) close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	var errs []error
	for ws, h := range a.hosts {
		h.Close(closeWait)
		errs = append(errs, h.Service().Close())
		delete(a.hosts, ws)
	}
	return errors.Join(errs...)
}

// service returns the host of workspace cwd, starting its service first.
// Errors: a relative cwd, app.Start's (a missing key wraps
// app.ErrMissingKey: the client gets auth_required).
func (a *Agent) service(ctx context.Context, cwd string) (*app.Host, error) {
	if !filepath.IsAbs(cwd) {
		return nil, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("cwd %q is not an absolute path: send the project folder's absolute path", cwd)})
	}
	if fi, err := os.Stat(cwd); err != nil || !fi.IsDir() {
		return nil, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("cwd %q is not a folder: send the project folder's absolute path", cwd)})
	}
	cwd = filepath.Clean(cwd)
	a.mu.Lock()
	defer a.mu.Unlock()
	if h, ok := a.hosts[cwd]; ok {
		return h, nil
	}
	o := a.opts.Setup
	o.Workspace = cwd
	report := func(r app.Report) {
		prefix := "aidex acp: "
		if r.Warning {
			prefix += "warning: "
		}
		fmt.Fprintf(a.opts.Stderr, "%s%s (%s)\n", prefix, r.Text, cwd)
	}
	svc, err := app.Start(ctx, app.StartOptions{Options: o, Sandbox: true, Report: report, PrefetchGit: true})
	if errors.Is(err, app.ErrMissingKey) {
		return nil, sdk.NewAuthRequired(map[string]any{"error": err.Error()})
	}
	if err != nil {
		return nil, fmt.Errorf("start aidex in %s: %w", cwd, err)
	}
	h := app.NewHost(svc, app.HostOptions{Session: sessionOptions,
		Adapter: func(id string) any { return &session{id: sdk.SessionId(id)} }})
	a.hosts[cwd] = h
	return h, nil
}

// lookup returns the host's live session id, nil when no host has it.
func (a *Agent) lookup(id sdk.SessionId) *app.HostSession {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, h := range a.hosts {
		if hs := h.Get(string(id)); hs != nil {
			return hs
		}
	}
	return nil
}

// get returns the ACP state of live session id. Errors: an unknown id.
func (a *Agent) get(id sdk.SessionId) (*session, error) {
	hs := a.lookup(id)
	if hs == nil {
		return nil, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("unknown session %q: call session/new or session/load first", id)})
	}
	return hs.Adapter().(*session), nil
}

// Initialize answers the capabilities: loadSession, image and embedded
// context prompts, MCP over http and sse; with the provider's key
// missing, an auth method naming the variable to set.
func (a *Agent) Initialize(ctx context.Context, p sdk.InitializeRequest) (sdk.InitializeResponse, error) {
	a.mu.Lock()
	a.client = p.ClientCapabilities
	a.mu.Unlock()
	r := sdk.InitializeResponse{
		ProtocolVersion: sdk.ProtocolVersionNumber,
		AgentCapabilities: sdk.AgentCapabilities{
			LoadSession:        true,
			PromptCapabilities: sdk.PromptCapabilities{Image: true, EmbeddedContext: true},
			McpCapabilities:    sdk.McpCapabilities{Http: true, Sse: true},
		},
		AgentInfo:   &sdk.Implementation{Name: "aidex", Title: sdk.Ptr("aidex"), Version: a.opts.Version},
		AuthMethods: []sdk.AuthMethod{},
	}
	if err := a.keyMissing(ctx); err != nil {
		r.AuthMethods = append(r.AuthMethods, sdk.AuthMethod{Agent: &sdk.AuthMethodAgent{
			Id: "api-key", Name: "Set the provider's API key", Description: sdk.Ptr(err.Error())}})
	}
	return r, nil
}

// keyMissing returns the load error when the provider's key is missing,
// else nil.
func (a *Agent) keyMissing(ctx context.Context) error {
	_, err := app.Load(ctx, a.opts.Setup)
	if errors.Is(err, app.ErrMissingKey) {
		return err
	}
	return nil
}

// Authenticate succeeds unless the provider's key is still missing; then
// its error names the variable to set (aidex reads keys from the
// environment and its config, not from the editor).
func (a *Agent) Authenticate(ctx context.Context, _ sdk.AuthenticateRequest) (sdk.AuthenticateResponse, error) {
	if err := a.keyMissing(ctx); err != nil {
		return sdk.AuthenticateResponse{}, sdk.NewAuthRequired(map[string]any{"error": err.Error() + " (set it in the env of the editor's agent settings, or as [providers.NAME] api_key in the config file)"})
	}
	return sdk.AuthenticateResponse{}, nil
}

// Cancel needs nothing more: the SDK cancels the session's prompt
// context, the engine keeps the partial answer and Prompt answers
// cancelled.
func (a *Agent) Cancel(context.Context, sdk.CancelNotification) error { return nil }

// CloseSession ends a session's live state (its stored conversation
// stays).
func (a *Agent) CloseSession(_ context.Context, p sdk.CloseSessionRequest) (sdk.CloseSessionResponse, error) {
	if hs := a.lookup(p.SessionId); hs != nil {
		hs.Host().Drop(hs.ID())
	}
	return sdk.CloseSessionResponse{}, nil
}

// ListSessions is not offered (the capability is not advertised).
func (a *Agent) ListSessions(context.Context, sdk.ListSessionsRequest) (sdk.ListSessionsResponse, error) {
	return sdk.ListSessionsResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionList)
}

// ResumeSession is not offered: use session/load.
func (a *Agent) ResumeSession(context.Context, sdk.ResumeSessionRequest) (sdk.ResumeSessionResponse, error) {
	return sdk.ResumeSessionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionResume)
}

// SetSessionConfigOption is not offered (no config options are advertised).
func (a *Agent) SetSessionConfigOption(context.Context, sdk.SetSessionConfigOptionRequest) (sdk.SetSessionConfigOptionResponse, error) {
	return sdk.SetSessionConfigOptionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionSetConfigOption)
}

var (
	_ sdk.Agent       = (*Agent)(nil)
	_ sdk.AgentLoader = (*Agent)(nil)
)
