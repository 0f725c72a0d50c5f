package acp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/config"
	"github.com/zelvior/aidex/internal/llm"
)

// session is the ACP state of one live session of a host (its
// HostSession's adapter): what the updates need (tool kinds, the calls in
// flight) and the editor's files.
type session struct {
	id    sdk.SessionId
	hs    *app.HostSession
	svc   *app.Service
	live  *app.Session
	conn  *sdk.AgentSideConnection
	kinds map[string]string // tool name → kind (read, write, exec, network, other)
	// editor is the client's file access (nil: not offered).
	editor *editorFiles

	// run serialises prompts: a prompt sent while one runs cancels it
	// (the SDK cancels its context) and waits for it to end.
	run sync.Mutex

	mu    sync.Mutex
	calls map[string]callView // by tool call id, for approvals and results
	// runCtx is the running prompt's context (nil between prompts).
	runCtx context.Context
}

// sessionOptions are the live session options of an ACP session: the
// editor answers approvals (session/request_permission) and, when it
// offers them, serves file reads and writes. ask_user is not offered.
func sessionOptions(hs *app.HostSession) app.SessionOptions {
	s := hs.Adapter().(*session)
	o := app.SessionOptions{Approver: &approver{s: s}}
	if s.editor != nil {
		o.Editor = s.editor
	}
	return o
}

// modes are aidex's permission modes as ACP session modes.
var modes = []sdk.SessionMode{
	{Id: "ask", Name: "Ask", Description: sdk.Ptr("Ask before edits and commands")},
	{Id: "auto-edit", Name: "Auto-edit", Description: sdk.Ptr("Edit workspace files without asking; ask before commands")},
	{Id: "plan", Name: "Plan", Description: sdk.Ptr("Read only: explore and plan, change nothing")},
	{Id: "yolo", Name: "YOLO", Description: sdk.Ptr("Run everything the rules do not deny, without asking")},
}

// modeState returns the modes with svc's current one.
func modeState(svc *app.Service) *sdk.SessionModeState {
	return &sdk.SessionModeState{AvailableModes: modes, CurrentModeId: sdk.SessionModeId(svc.Mode())}
}

// open makes stored session st live in host h (a session already live
// with that id is closed first: a session/load takes it over).
func (a *Agent) open(ctx context.Context, h *app.Host, st *agent.Conversation, servers []sdk.McpServer) (*session, error) {
	svc := h.Service()
	conf, err := mcpServers(servers)
	if err != nil {
		return nil, err
	}
	if err := svc.AddMCPServers(conf); err != nil {
		// The session works without them; the editor's log shows why.
		fmt.Fprintf(a.opts.Stderr, "aidex acp: %v\n", err)
	}
	h.Drop(st.ID)
	hs := h.Adopt(st)
	a.mu.Lock()
	conn, fsc := a.conn, a.client.Fs
	a.mu.Unlock()
	s := hs.Adapter().(*session)
	s.hs, s.svc, s.conn, s.kinds, s.calls = hs, svc, conn, map[string]string{}, map[string]callView{}
	if list, err := svc.Runtime().ToolList(false); err == nil {
		for _, t := range list {
			s.kinds[t.Name] = string(t.Kind)
		}
	}
	if fsc.ReadTextFile || fsc.WriteTextFile {
		s.editor = &editorFiles{s: s, read: fsc.ReadTextFile, write: fsc.WriteTextFile}
	}
	live, err := hs.Prepare(ctx)
	if err != nil {
		h.Drop(st.ID)
		return nil, fmt.Errorf("open session %s: %w", st.ID, err)
	}
	s.live = live
	return s, nil
}

// NewSession starts a new stored session in the workspace cwd, starting
// the client's MCP servers with the configured ones.
func (a *Agent) NewSession(ctx context.Context, p sdk.NewSessionRequest) (sdk.NewSessionResponse, error) {
	h, err := a.service(ctx, p.Cwd)
	if err != nil {
		return sdk.NewSessionResponse{}, err
	}
	svc := h.Service()
	st, err := svc.Pick(ctx, "", false)
	if err != nil {
		return sdk.NewSessionResponse{}, fmt.Errorf("new session: %w", err)
	}
	s, err := a.open(ctx, h, st, p.McpServers)
	if err != nil {
		return sdk.NewSessionResponse{}, err
	}
	go s.advertise(context.WithoutCancel(ctx))
	return sdk.NewSessionResponse{SessionId: s.id, Modes: modeState(svc)}, nil
}

// LoadSession opens stored session p.SessionId and replays its
// conversation as session/update notifications before answering.
func (a *Agent) LoadSession(ctx context.Context, p sdk.LoadSessionRequest) (sdk.LoadSessionResponse, error) {
	h, err := a.service(ctx, p.Cwd)
	if err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	svc := h.Service()
	st, err := svc.Pick(ctx, string(p.SessionId), false)
	if err != nil {
		return sdk.LoadSessionResponse{}, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("session %q: %v (aidex sessions lists them)", p.SessionId, err)})
	}
	if st.Workspace != "" && filepath.Clean(st.Workspace) != filepath.Clean(svc.Runtime().Workspace) {
		return sdk.LoadSessionResponse{}, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("session %s belongs to %s, not %s: open that folder to load it", st.ID, st.Workspace, p.Cwd)})
	}
	s, err := a.open(ctx, h, st, p.McpServers)
	if err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	if err := s.replay(ctx, st); err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	go s.advertise(context.WithoutCancel(ctx))
	return sdk.LoadSessionResponse{Modes: modeState(svc)}, nil
}

// SetSessionMode switches the permission mode of the session's workspace
// (every session of that cwd in this process).
func (a *Agent) SetSessionMode(ctx context.Context, p sdk.SetSessionModeRequest) (sdk.SetSessionModeResponse, error) {
	s, err := a.get(p.SessionId)
	if err != nil {
		return sdk.SetSessionModeResponse{}, err
	}
	if err := s.svc.SetMode(string(p.ModeId)); err != nil {
		return sdk.SetSessionModeResponse{}, sdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	_ = s.update(ctx, sdk.SessionUpdate{CurrentModeUpdate: &sdk.SessionCurrentModeUpdate{
		SessionUpdate: "current_mode_update", CurrentModeId: sdk.SessionModeId(s.svc.Mode())}})
	return sdk.SetSessionModeResponse{}, nil
}

// advertise sends the session's slash commands (availableCommands) as
// available_commands_update.
func (s *session) advertise(ctx context.Context) {
	_ = s.update(ctx, sdk.SessionUpdate{AvailableCommandsUpdate: &sdk.SessionAvailableCommandsUpdate{
		SessionUpdate: "available_commands_update", AvailableCommands: s.availableCommands(ctx)}})
}

// update sends one session/update.
func (s *session) update(ctx context.Context, u sdk.SessionUpdate) error {
	return s.conn.SessionUpdate(ctx, sdk.SessionNotification{SessionId: s.id, Update: u})
}

// Prompt runs the prompt (a custom slash command expanded first) and
// answers the stop reason: end_turn, max_turn_requests, cancelled.
func (a *Agent) Prompt(ctx context.Context, p sdk.PromptRequest) (sdk.PromptResponse, error) {
	s, err := a.get(p.SessionId)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	parts, err := promptParts(p.Prompt)
	if err != nil {
		return sdk.PromptResponse{}, sdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	s.run.Lock()
	defer s.run.Unlock()
	if ctx.Err() != nil {
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
	}
	if s.builtin(ctx, parts) {
		return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}, nil
	}
	if err := s.expand(ctx, parts); err != nil {
		return sdk.PromptResponse{}, sdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	run, err := s.hs.Start(ctx, app.RunOptions{})
	if err != nil {
		return sdk.PromptResponse{}, fmt.Errorf("aidex: %w", err)
	}
	defer run.End()
	ctx = run.Context()
	s.mu.Lock()
	s.runCtx = ctx
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.runCtx = nil
		s.mu.Unlock()
	}()
	send := s.emit(ctx)
	done, err := s.live.Run(ctx, parts, func(e agent.Event) {
		s.hs.Publish(string(e.Type), e) // for the host's subscribers and replay
		send(e)
	})
	if errors.Is(err, context.Canceled) || ctx.Err() != nil {
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
	}
	if err != nil {
		return sdk.PromptResponse{}, fmt.Errorf("aidex: %w", err)
	}
	return sdk.PromptResponse{StopReason: stopReason(done)}, nil
}

// expand replaces a first text part that is a custom command or an MCP
// prompt (/mcp__SERVER__PROMPT) with its expansion (app.Session.Expand,
// the one place they expand).
func (s *session) expand(ctx context.Context, parts []llm.Part) error {
	if len(parts) == 0 || parts[0].Type != llm.PartText {
		return nil
	}
	line := strings.TrimSpace(parts[0].Text)
	if !strings.HasPrefix(line, "/") {
		return nil
	}
	x, err := s.live.Expand(ctx, line, s.emit(ctx))
	if err != nil {
		return err
	}
	if x != nil {
		parts[0].Text = x.Text
	}
	return nil
}

// stopReason maps the engine's stop reason onto ACP's.
func stopReason(d *agent.DoneInfo) sdk.StopReason {
	if d == nil {
		return sdk.StopReasonEndTurn
	}
	switch d.StopReason {
	case agent.StopMaxTurns:
		return sdk.StopReasonMaxTurnRequests
	case agent.StopCancelled:
		return sdk.StopReasonCancelled
	}
	switch strings.ToLower(d.FinishReason) {
	case "length", "max_tokens", "max_output_tokens", "incomplete":
		return sdk.StopReasonMaxTokens
	case "content_filter", "refusal", "safety", "recitation", "prohibited_content", "blocklist", "spii":
		return sdk.StopReasonRefusal
	}
	return sdk.StopReasonEndTurn
}

// mcpServers converts the client's MCP servers to aidex's configuration.
func mcpServers(in []sdk.McpServer) ([]config.MCPServer, error) {
	var out []config.MCPServer
	for _, m := range in {
		switch {
		case m.Stdio != nil:
			env := map[string]string{}
			for _, e := range m.Stdio.Env {
				env[e.Name] = e.Value
			}
			out = append(out, config.MCPServer{Name: m.Stdio.Name, Command: m.Stdio.Command, Args: m.Stdio.Args, Env: env, Transport: "stdio"})
		case m.Http != nil:
			out = append(out, config.MCPServer{Name: m.Http.Name, URL: m.Http.Url, Transport: "http", HTTPHeaders: headers(m.Http.Headers)})
		case m.Sse != nil:
			out = append(out, config.MCPServer{Name: m.Sse.Name, URL: m.Sse.Url, Transport: "sse", HTTPHeaders: headers(m.Sse.Headers)})
		default:
			return nil, sdk.NewInvalidParams(map[string]any{"error": "mcpServers: aidex takes stdio, http and sse servers"})
		}
	}
	return out, nil
}

func headers(hs []sdk.HttpHeader) map[string]string {
	m := map[string]string{}
	for _, h := range hs {
		m[h.Name] = h.Value
	}
	return m
}
