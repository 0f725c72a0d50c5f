package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/app/toolcall"
	"github.com/zelvior/aidex/internal/llm"
)

// RunArgs are aidex_run's arguments: the prompt, and optionally the model
// ("MODEL" or "PROVIDER/MODEL") and the permission mode of the run (no
// wider than the server's).
type RunArgs struct {
	Prompt         string `json:"prompt"`
	Model          string `json:"model,omitempty"`
	PermissionMode string `json:"permission_mode,omitempty"`
}

// RunResult is aidex_run's structured result: the final answer, the
// session id (aidex -r ID continues it), why the run stopped, its model
// responses and the calls the policy denied.
type RunResult struct {
	Answer     string `json:"answer"`
	SessionID  string `json:"session_id"`
	StopReason string `json:"stop_reason"`
	Turns      int    `json:"turns"`
	Denials    int    `json:"denials,omitempty"`
}

const runSchema = `{"type":"object","properties":{` +
	`"prompt":{"type":"string","description":"the task for aidex"},` +
	`"model":{"type":"string","description":"model to use, MODEL or PROVIDER/MODEL (default: the configured model)"},` +
	`"permission_mode":{"type":"string","enum":["plan","ask","auto-edit","yolo"],"description":"permission mode of the run, no wider than the server's (default: the server's)"}},` +
	`"required":["prompt"],"additionalProperties":false}`

func runTool() *mcp.Tool {
	yes := true
	return &mcp.Tool{
		Name: RunToolName,
		Description: "Run a whole aidex session headless (as `aidex -p`): aidex works on the prompt with its tools in this workspace " +
			"under the server's permission policy and returns its final answer and the session id. " +
			"Progress notifications follow the run when the request carries a progress token.",
		InputSchema: json.RawMessage(runSchema),
		Annotations: &mcp.ToolAnnotations{Title: "Run aidex", DestructiveHint: &yes, OpenWorldHint: &yes},
	}
}

// runHandler runs aidex_run: a refused argument (empty prompt, unknown or
// too wide mode) is an error result naming the fix; a run that fails is an
// error result with the session id when there is one.
func (s *Server) runHandler(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var a RunArgs
	if err := json.Unmarshal(orEmpty(req.Params.Arguments), &a); err != nil {
		return errorResult("aidex_run: the arguments must be {\"prompt\": \"...\", \"model\"?: \"...\", \"permission_mode\"?: \"...\"}: %v", err), nil
	}
	if strings.TrimSpace(a.Prompt) == "" {
		return errorResult("aidex_run: the prompt is empty: pass {\"prompt\": \"what aidex should do\"}"), nil
	}
	mode, err := s.runMode(a.PermissionMode)
	if err != nil {
		return errorResult("aidex_run: %v", err), nil
	}
	res, err := s.run(ctx, req, a, mode)
	if err != nil {
		msg := fmt.Sprintf("aidex_run failed: %v", err)
		if res.SessionID != "" {
			msg += fmt.Sprintf(" (session %s)", res.SessionID)
		}
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}, StructuredContent: res}, nil
	}
	text := res.Answer
	if text == "" {
		text = "(no answer)"
	}
	text += fmt.Sprintf("\n\n[aidex session %s, stop reason %s]", res.SessionID, res.StopReason)
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: res}, nil
}

func orEmpty(b json.RawMessage) json.RawMessage {
	if len(b) == 0 || string(b) == "null" {
		return json.RawMessage("{}")
	}
	return b
}

func errorResult(format string, args ...any) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf(format, args...)}}}
}

// runMode is the mode a run asks for ("" is the server's), refused when it
// is unknown or wider than the server's (plan < ask < auto-edit < yolo).
func (s *Server) runMode(asked string) (string, error) {
	if asked == "" {
		return s.mode, nil
	}
	m, err := app.ParseMode(asked)
	if err != nil {
		return "", fmt.Errorf("permission_mode: %w", err)
	}
	if app.ModeWider(m, s.mode) {
		return "", fmt.Errorf("permission_mode %q is wider than this server's %q: ask for %s or a narrower mode, or start aidex mcp serve --permission-mode %s", m, s.mode, s.mode, m)
	}
	return m, nil
}

// run starts a service for the run's model and mode, runs the prompt in a
// new session of the workspace and reports progress to the client.
func (s *Server) run(ctx context.Context, req *mcp.CallToolRequest, a RunArgs, mode string) (RunResult, error) {
	so := s.opts.Start
	so.Flags = withFlag(so.Flags, "permission_mode", mode)
	if a.Model != "" {
		so.Flags["model"] = a.Model
		if provider, _, ok := strings.Cut(a.Model, "/"); ok && provider != "" {
			so.Flags["provider"] = provider
			so.Flags["model"] = a.Model[len(provider)+1:]
		}
	}
	so.Sandbox, so.Base = true, false
	svc, err := app.Start(ctx, so)
	if err != nil {
		return RunResult{}, err
	}
	defer svc.Close()
	sess, err := svc.Pick(ctx, "", false)
	if err != nil {
		return RunResult{}, err
	}
	res := RunResult{SessionID: sess.ID}
	o := app.SessionOptions{}
	if canElicit(req.Session) {
		o.Approver = &elicitation{ss: req.Session}
	}
	live, err := svc.Session(ctx, sess, o)
	if err != nil {
		return res, err
	}
	defer live.Close()
	p := newProgress(ctx, req)
	done, err := live.Run(ctx, []llm.Part{{Type: llm.PartText, Text: a.Prompt}}, p.event)
	if done != nil {
		res.Answer, res.StopReason, res.Turns, res.Denials = done.Result, string(done.StopReason), done.Turns, done.Denials
	}
	if err == nil && done != nil && done.StopReason == agent.StopError {
		err = errors.New("the run stopped on an error (see the session)")
	}
	return res, err
}

// elicitation answers the engine's approvals of an aidex_run through MCP
// elicitation: accept allows the call once, anything else denies it.
type elicitation struct{ ss *mcp.ServerSession }

// Approve asks the client's user about one call of the run.
func (e *elicitation) Approve(ctx context.Context, info agent.ApprovalInfo) (agent.Answer, string, error) {
	ask := elicitApprover(e.ss)
	ok, err := ask(ctx, toolcall.Approval{Tool: info.Tool, Arguments: info.Arguments, Subject: info.Command, Rule: info.Rule, Reason: info.Reason})
	switch {
	case err != nil:
		return agent.AnswerDeny, err.Error(), nil
	case !ok:
		return agent.AnswerDeny, "the MCP client's user declined the call", nil
	}
	return agent.AnswerOnce, "", nil
}

// progress sends the run's events to the client as progress notifications
// when the request carries a progress token.
type progress struct {
	ctx   context.Context
	ss    *mcp.ServerSession
	token any
	mu    sync.Mutex
	n     float64
}

func newProgress(ctx context.Context, req *mcp.CallToolRequest) *progress {
	return &progress{ctx: ctx, ss: req.Session, token: req.Params.GetProgressToken()}
}

// event notifies the client of one step of the run: a model request, a
// tool call and its result, an approval, an error. Text deltas are not
// sent (the answer comes with the result).
func (p *progress) event(e agent.Event) {
	if p.token == nil || p.ss == nil {
		return
	}
	msg := progressMessage(e)
	if msg == "" {
		return
	}
	p.mu.Lock()
	p.n++
	n := p.n
	p.mu.Unlock()
	_ = p.ss.NotifyProgress(p.ctx, &mcp.ProgressNotificationParams{ProgressToken: p.token, Progress: n, Message: msg})
}

// progressMessage is the one line of progress of event e, "" for events
// that are not reported.
func progressMessage(e agent.Event) string {
	switch e.Type {
	case agent.EventSession:
		if e.Session != nil {
			return fmt.Sprintf("session %s (%s/%s)", e.Session.ID, e.Session.Provider, e.Session.Model)
		}
	case agent.EventWaiting:
		return "waiting for the model"
	case agent.EventToolCall:
		if e.ToolCall != nil {
			return "tool call: " + e.ToolCall.Name
		}
	case agent.EventToolResult:
		if r := e.ToolResult; r != nil {
			if r.OK {
				return "tool result: " + r.Name + " ok"
			}
			return "tool result: " + r.Name + " failed: " + r.Error
		}
	case agent.EventApproval:
		if e.Approval != nil && e.Approval.Answer == "" {
			return "approval asked: " + e.Approval.Tool
		}
	case agent.EventError:
		if e.Error != nil {
			return "error: " + e.Error.Message
		}
	case agent.EventBudget:
		if e.Budget != nil {
			return "budget: " + e.Budget.Message
		}
	case agent.EventDone:
		if e.Done != nil {
			return "done: " + string(e.Done.StopReason)
		}
	}
	return ""
}
