// Package server is aidex's MCP server mode (`aidex mcp serve`): it offers
// the tools of one tool profile for the workspace it was started in, every
// call through the application service's tool pipeline (app.Runtime.CallTool:
// confinement, deny rules, protected paths, safe mode, the permission mode),
// and the tool aidex_run, which runs a whole headless aidex session. A call
// the policy would ask about is sent to the client as an MCP elicitation when
// the client declared that capability, else refused with the allow rule that
// would let it run. The workspace's files are resources (read through
// read_file, completed by completion/complete, watched for
// resources/subscribe: resources.go); over streamable HTTP a bearer token
// guards every request and SSE streams resume (http.go).
//
// The protocol is github.com/modelcontextprotocol/go-sdk. The server speaks
// the protocol versions of the initialize handshake (2025-11-25 and older):
// approvals are elicitation requests sent while a call is served, which the
// 2026-07-28 protocol replaced by multi round-trip input requests; clients of
// that version fall back to the handshake.
package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/app/toolcall"
	"github.com/zelvior/aidex/internal/kind"
)

// Options configure a [Server].
//
// Start is how the application service is started (workspace, config flags,
// environment); the server sets the config key permission_mode to Mode,
// and chooses a provider only for aidex_run.
// Profile is the tool profile offered ("standard", "full", "readonly"; ""
// is "standard"). Mode is the permission mode of the server's own calls and
// the widest an aidex_run may ask for ("" is "ask"). Version is the
// version the server reports to clients.
type Options struct {
	Start   app.StartOptions
	Profile string
	Mode    string
	Version string
}

// Server is aidex as an MCP server: the application service, the tools of
// the profile and the permission mode. Build the protocol server with
// [Server.MCP]; Close the Server when done.
type Server struct {
	svc     *app.Service
	opts    Options
	mode    string
	profile string
	tools   []toolcall.Info

	// clients are the tool sessions of the connected clients: what one
	// client's calls start (background processes) lives until its
	// connection ends.
	mu       sync.Mutex
	clients  map[*mcp.ServerSession]toolcall.Client
	watchers []*watcher
	closed   bool

	// pollEvery is how often subscribed files are checked (0: every
	// second).
	pollEvery time.Duration
}

// RunToolName is the name of the tool that runs a whole aidex session.
const RunToolName = "aidex_run"

// New starts the application service for o and lists the profile's tools.
// Errors: an unknown mode or profile (naming the choices), the service's
// start-up errors (configuration, the provider, the session store).
func New(ctx context.Context, o Options) (*Server, error) {
	if o.Mode == "" {
		o.Mode = "ask"
	}
	if o.Profile == "" {
		o.Profile = "standard"
	}
	mode, err := app.ParseMode(o.Mode)
	if err != nil {
		return nil, fmt.Errorf("--permission-mode: %w", err)
	}
	o.Start.Flags = withFlag(o.Start.Flags, "permission_mode", mode)
	base := o.Start
	base.Base = true // the tools need no provider; aidex_run chooses one
	svc, err := app.Start(ctx, base)
	if err != nil {
		return nil, err
	}
	name, list, err := svc.Runtime().ProfileTools(o.Profile)
	if err != nil {
		_ = svc.Close()
		return nil, fmt.Errorf("--profile: %w (use standard, full or readonly)", err)
	}
	return &Server{svc: svc, opts: o, mode: mode, profile: name, tools: list}, nil
}

// withFlag returns a copy of flags with key set to value.
func withFlag(flags map[string]string, key, value string) map[string]string {
	out := make(map[string]string, len(flags)+1)
	for k, v := range flags {
		out[k] = v
	}
	out[key] = value
	return out
}

// Close stops what the clients' calls started and closes the
// application service.
func (s *Server) Close() error {
	s.mu.Lock()
	clients := s.clients
	watchers := s.watchers
	s.clients, s.watchers, s.closed = nil, nil, true
	s.mu.Unlock()
	for _, w := range watchers {
		w.close()
	}
	for _, ts := range clients {
		ts.Close()
	}
	return s.svc.Close()
}

// toolSession returns the tool session of client ss, started at its first
// call and closed when its connection ends (a nil ss, a call without a
// session, gets one of its own that the caller must close: owned true).
func (s *Server) toolSession(ss *mcp.ServerSession) (ts toolcall.Client, owned bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ts := s.clients[ss]; ts != nil {
		return ts, false, nil
	}
	if ts, err = s.svc.Runtime().NewToolClient(); err != nil {
		return nil, false, err
	}
	if ss == nil || s.closed {
		return ts, true, nil
	}
	if s.clients == nil {
		s.clients = map[*mcp.ServerSession]toolcall.Client{}
	}
	s.clients[ss] = ts
	go func() {
		_ = ss.Wait()
		s.mu.Lock()
		if s.clients[ss] == ts {
			delete(s.clients, ss)
		}
		s.mu.Unlock()
		ts.Close()
	}()
	return ts, false, nil
}

// Mode returns the server's permission mode, canonical ("plan", "ask",
// "auto-edit", "yolo").
func (s *Server) Mode() string { return s.mode }

// Profile returns the name of the tool profile the server offers.
func (s *Server) Profile() string { return s.profile }

// Workspace returns the workspace the tools work in.
func (s *Server) Workspace() string { return s.svc.Runtime().Workspace }

// MCP builds the protocol server: the profile's tools, aidex_run, the
// workspace's files as the resource template [FileTemplate] (subscribe
// to be told of a change), and completion of its path. One protocol
// server serves any number of client sessions; its subscriptions are
// watched until the Server is closed.
func (s *Server) MCP() *mcp.Server {
	versions := slices.DeleteFunc(mcp.SupportedProtocolVersions(), func(v string) bool { return v >= "2026-07-28" })
	w := newWatcher(s.Workspace(), s.pollEvery)
	srv := mcp.NewServer(&mcp.Implementation{Name: "aidex", Title: "aidex", Version: s.opts.Version}, &mcp.ServerOptions{
		Instructions: fmt.Sprintf("aidex's tools (profile %s) for the workspace %s, under aidex's permission policy (mode %s); %s runs a whole aidex session. The workspace's files are the resources %s.",
			s.profile, s.Workspace(), s.mode, RunToolName, FileTemplate),
		Capabilities: &mcp.ServerCapabilities{
			Tools:       &mcp.ToolCapabilities{},
			Resources:   &mcp.ResourceCapabilities{Subscribe: true},
			Completions: &mcp.CompletionCapabilities{},
		},
		SupportedProtocolVersions: versions,
		CompletionHandler:         s.complete,
		SubscribeHandler:          w.subscribe,
		UnsubscribeHandler:        w.unsubscribe,
	})
	w.srv = srv
	s.mu.Lock()
	if s.closed {
		w.closed = true
	} else {
		s.watchers = append(s.watchers, w)
	}
	s.mu.Unlock()
	for _, t := range s.tools {
		srv.AddTool(toolOf(t), s.callHandler(t.Name))
	}
	srv.AddTool(runTool(), s.runHandler)
	srv.AddResourceTemplate(fileTemplate(), s.readResource)
	return srv
}

// toolOf describes an aidex tool to MCP clients, with annotations from its
// kind.
func toolOf(t toolcall.Info) *mcp.Tool {
	schema := json.RawMessage(t.Parameters)
	if len(schema) == 0 {
		schema = json.RawMessage(`{"type":"object"}`)
	}
	return &mcp.Tool{Name: t.Name, Description: t.Description, InputSchema: schema, Annotations: Annotations(t.Kind)}
}

// Annotations are the MCP hints of a tool of kind k: reads are read-only,
// idempotent and closed-world; network tools (web_fetch) read-only and
// open-world; writes destructive (they replace and delete files) and
// closed-world; commands destructive and open-world (a command can do
// anything, the network included); other tools (background processes,
// bookkeeping) are not read-only and may be destructive (they can kill a
// process), closed-world.
func Annotations(k kind.Kind) *mcp.ToolAnnotations {
	yes, no := true, false
	a := &mcp.ToolAnnotations{DestructiveHint: &yes, OpenWorldHint: &no}
	switch k {
	case kind.Read:
		a.ReadOnlyHint, a.IdempotentHint, a.DestructiveHint = true, true, &no
	case kind.Network:
		a.ReadOnlyHint, a.DestructiveHint, a.OpenWorldHint = true, &no, &yes
	case kind.Exec:
		a.OpenWorldHint = &yes
	}
	return a
}

// callHandler runs the aidex tool name through the tool pipeline.
func (s *Server) callHandler(name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ts, owned, err := s.toolSession(req.Session)
		if err != nil {
			return nil, err
		}
		if owned {
			defer ts.Close()
		}
		out, err := ts.CallTool(ctx, name, req.Params.Arguments, toolcall.Options{Approve: elicitApprover(req.Session)})
		if err != nil && !errors.Is(err, toolcall.ErrInternal) {
			return nil, err
		}
		return resultOf(out), nil
	}
}

// resultOf turns a direct call's outcome into an MCP result: the tool's
// output as text (its metadata as structured content), or an error result
// with the tool's message and, for a call refused because it needed an
// approval, the allow rule that would let it run.
func resultOf(out toolcall.Result) *mcp.CallToolResult {
	r := out.Result
	if !r.OK {
		msg := r.Error
		if out.Suggested != "" {
			msg += fmt.Sprintf(". To allow it without asking, add the allow rule %q (permissions.allow in .aidex/config.toml, or --allow %q to aidex mcp serve)", out.Suggested, out.Suggested)
		}
		if r.Category != "" {
			msg = string(r.Category) + ": " + msg
		}
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: r.Output}}}
	if r.Meta != nil {
		res.StructuredContent = r.Meta
	}
	return res
}

// errCannotAsk refuses a call that needs an approval when the client did
// not declare the elicitation capability.
var errCannotAsk = errors.New("the MCP client cannot be asked for an approval (it did not declare the elicitation capability)")

// elicitApprover asks the client's user about a call through MCP
// elicitation: accept runs the call once, decline or cancel refuses it.
// Without the client's elicitation capability every such call is refused.
func elicitApprover(ss *mcp.ServerSession) func(context.Context, toolcall.Approval) (bool, error) {
	return func(ctx context.Context, a toolcall.Approval) (bool, error) {
		if !canElicit(ss) {
			return false, errCannotAsk
		}
		res, err := ss.Elicit(ctx, &mcp.ElicitParams{Message: approvalMessage(a), RequestedSchema: json.RawMessage(`{"type":"object","properties":{}}`)})
		if err != nil {
			return false, fmt.Errorf("asking the MCP client for an approval: %w", err)
		}
		return res.Action == "accept", nil
	}
}

// canElicit reports whether the client declared the elicitation capability.
func canElicit(ss *mcp.ServerSession) bool {
	if ss == nil {
		return false
	}
	p := ss.InitializeParams()
	return p != nil && p.Capabilities != nil && p.Capabilities.Elicitation != nil
}

// approvalMessage is the question the client's user answers: the tool,
// what it works on, and why aidex asks.
func approvalMessage(a toolcall.Approval) string {
	var b strings.Builder
	fmt.Fprintf(&b, "aidex: allow %s", a.Tool)
	switch {
	case a.Subject != "":
		fmt.Fprintf(&b, " %q", a.Subject)
	case len(a.Paths) > 0:
		fmt.Fprintf(&b, " on %s", strings.Join(a.Paths, ", "))
	case len(a.Arguments) > 0:
		fmt.Fprintf(&b, " %s", a.Arguments)
	}
	b.WriteString(" once?")
	if a.Reason != "" {
		fmt.Fprintf(&b, " (%s", a.Reason)
		if a.Rule != "" {
			fmt.Fprintf(&b, " [%s]", a.Rule)
		}
		b.WriteString(")")
	}
	return b.String()
}
