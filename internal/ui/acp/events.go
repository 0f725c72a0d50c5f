package acp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/zelvior/aidex/internal/agent"
)

// callView is a tool call as the client sees it: kind, title, locations
// and, for edits, the diff.
type callView struct {
	kind      sdk.ToolKind
	title     string
	locations []sdk.ToolCallLocation
	diff      []sdk.ToolCallContent
	raw       any
}

// callArgs are the arguments the views read (any tool may have some).
type callArgs struct {
	Path        string `json:"path"`
	File        string `json:"file"`
	Source      string `json:"source"`
	Destination string `json:"destination"`
	Command     string `json:"command"`
	Pattern     string `json:"pattern"`
	Query       string `json:"query"`
	URL         string `json:"url"`
	Content     string `json:"content"`
	OldString   string `json:"old_string"`
	NewString   string `json:"new_string"`
	ReplaceAll  bool   `json:"replace_all"`
	Line        int    `json:"line"`
	StartLine   int    `json:"start_line"`
	Offset      int    `json:"offset"`
	Description string `json:"description"`
}

// toolKind maps a tool onto ACP's kinds by name, then by aidex's kind.
func toolKind(name, k string) sdk.ToolKind {
	switch {
	case name == "delete_file":
		return sdk.ToolKindDelete
	case name == "move_file":
		return sdk.ToolKindMove
	case name == "todo_write" || name == "think":
		return sdk.ToolKindThink
	case strings.Contains(name, "search") || strings.HasPrefix(name, "find_files") || name == "grep" || name == "glob":
		return sdk.ToolKindSearch
	case strings.Contains(name, "fetch"):
		return sdk.ToolKindFetch
	}
	switch k {
	case "read":
		return sdk.ToolKindRead
	case "write":
		return sdk.ToolKindEdit
	case "exec":
		return sdk.ToolKindExecute
	case "network":
		return sdk.ToolKindFetch
	}
	return sdk.ToolKindOther
}

// view builds the client's view of call tc in workspace ws.
func (s *session) view(tc *agent.ToolCallInfo, ws string) callView {
	var a callArgs
	_ = json.Unmarshal(tc.Arguments, &a)
	var raw any
	_ = json.Unmarshal(tc.Arguments, &raw)
	v := callView{kind: toolKind(tc.Name, s.kinds[tc.Name]), title: tc.Name, raw: raw}
	path := firstNonEmpty(a.Path, a.File, a.Source)
	switch {
	case a.Command != "":
		v.title = a.Command
	case path != "" && a.Destination != "":
		v.title = tc.Name + " " + path + " → " + a.Destination
	case path != "":
		v.title = tc.Name + " " + path
	case a.Pattern != "" || a.Query != "":
		v.title = tc.Name + " " + firstNonEmpty(a.Pattern, a.Query)
	case a.URL != "":
		v.title = tc.Name + " " + a.URL
	case a.Description != "":
		v.title = tc.Name + ": " + a.Description
	}
	if path != "" {
		abs := absIn(ws, path)
		loc := sdk.ToolCallLocation{Path: abs}
		if n := firstPositive(a.Line, a.StartLine, a.Offset); n > 0 {
			loc.Line = sdk.Ptr(n)
		}
		v.locations = []sdk.ToolCallLocation{loc}
		if a.Destination != "" {
			v.locations = append(v.locations, sdk.ToolCallLocation{Path: absIn(ws, a.Destination)})
		}
		v.diff = s.editDiff(tc.Name, abs, ws, a)
	}
	return v
}

// editDiff is the diff of a write_file or edit_file call (nil for other
// tools, and for files outside the workspace, symlinks resolved). The
// current text comes from the editor when it offers reads (its buffer).
func (s *session) editDiff(name, abs, ws string, a callArgs) []sdk.ToolCallContent {
	if name != "write_file" && name != "edit_file" {
		return nil
	}
	if !inside(ws, abs) {
		return nil
	}
	old, exists := s.current(abs)
	var next string
	switch name {
	case "write_file":
		next = a.Content
	case "edit_file":
		if !exists || a.OldString == "" {
			return nil
		}
		n := 1
		if a.ReplaceAll {
			n = -1
		}
		next = strings.Replace(string(old), a.OldString, a.NewString, n)
	default:
		return nil
	}
	if !exists {
		return []sdk.ToolCallContent{sdk.ToolDiffContent(abs, next)}
	}
	return []sdk.ToolCallContent{sdk.ToolDiffContent(abs, next, string(old))}
}

// absIn is p made absolute against ws.
func absIn(ws, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(ws, p)
}

// inside reports whether abs (its symlinks resolved, or its folder's for
// a new file) is in ws.
func inside(ws, abs string) bool {
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		dir, derr := filepath.EvalSymlinks(filepath.Dir(abs))
		if derr != nil {
			return false
		}
		real = filepath.Join(dir, filepath.Base(abs))
	}
	root, err := filepath.EvalSymlinks(ws)
	if err != nil {
		return false
	}
	rel, err := filepath.Rel(root, real)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// current is abs's text now: the editor's buffer when it offers reads,
// else the disk's; false when the file does not exist.
func (s *session) current(abs string) ([]byte, bool) {
	if _, err := os.Lstat(abs); err != nil {
		return nil, false
	}
	if s.editor != nil {
		if b, ok, err := s.editor.ReadText(context.Background(), abs); err == nil && ok {
			return b, true
		}
	}
	b, err := os.ReadFile(abs)
	return b, err == nil
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

func firstPositive(ns ...int) int {
	for _, n := range ns {
		if n > 0 {
			return n
		}
	}
	return 0
}

// emit returns the run's event handler: each engine event becomes a
// session/update (a subagent's text stays in its task card).
func (s *session) emit(ctx context.Context) func(agent.Event) {
	ws := s.svc.Runtime().Workspace
	return func(e agent.Event) {
		if u, ok := s.translate(e, ws); ok {
			_ = s.update(ctx, u)
		}
	}
}

// translate maps one engine event onto a session update (false: none).
func (s *session) translate(e agent.Event, ws string) (sdk.SessionUpdate, bool) {
	sub := e.ParentToolCallID != ""
	switch e.Type {
	case agent.EventText:
		return sdk.UpdateAgentMessageText(e.Text), !sub && e.Text != ""
	case agent.EventReasoning:
		return sdk.UpdateAgentThoughtText(e.Text), !sub && e.Text != ""
	case agent.EventToolCall:
		return s.start(e.ToolCall.ID, s.view(e.ToolCall, ws)), true
	case agent.EventApproval:
		if a := e.Approval; a.Answer != "" && a.Answer != agent.AnswerDeny {
			return sdk.UpdateToolCall(sdk.ToolCallId(a.CallID), sdk.WithUpdateStatus(sdk.ToolCallStatusInProgress)), true
		}
	case agent.EventToolResult:
		return s.result(e.ToolResult), true
	case agent.EventTodos:
		return plan(e.Todos), !sub
	case agent.EventNotice:
		return sdk.UpdateAgentMessageText("\n[aidex: " + e.Text + "]\n"), !sub && e.Text != ""
	case agent.EventBudget:
		if e.Budget != nil && !sub {
			return sdk.UpdateAgentMessageText("\n[aidex: budget: " + e.Budget.Message + "]\n"), true
		}
	case agent.EventError:
		if e.Error != nil && !e.Error.Fatal && !sub {
			return sdk.UpdateAgentMessageText("\n[aidex: " + e.Error.Message + "]\n"), true
		}
	}
	return sdk.SessionUpdate{}, false
}

// start records call id's view and returns its tool_call update.
func (s *session) start(id string, v callView) sdk.SessionUpdate {
	s.mu.Lock()
	s.calls[id] = v
	s.mu.Unlock()
	return sdk.StartToolCall(sdk.ToolCallId(id), v.title, sdk.WithStartKind(v.kind),
		sdk.WithStartStatus(sdk.ToolCallStatusPending), sdk.WithStartLocations(v.locations),
		sdk.WithStartContent(v.diff), sdk.WithStartRawInput(v.raw))
}

// result is the tool_call_update of a finished call: completed or
// failed, with the edit's diff and the output.
func (s *session) result(r *agent.ToolResultInfo) sdk.SessionUpdate {
	s.mu.Lock()
	v := s.calls[r.ID]
	delete(s.calls, r.ID)
	s.mu.Unlock()
	status := sdk.ToolCallStatusCompleted
	text := r.Output
	if !r.OK {
		status = sdk.ToolCallStatusFailed
		text = firstNonEmpty(r.Error, r.Output)
	}
	var content []sdk.ToolCallContent
	if r.OK {
		content = append(content, v.diff...)
	}
	if text != "" {
		content = append(content, sdk.ToolContent(sdk.TextBlock(text)))
	}
	return sdk.UpdateToolCall(sdk.ToolCallId(r.ID), sdk.WithUpdateStatus(status), sdk.WithUpdateContent(content),
		sdk.WithUpdateRawOutput(map[string]any{"ok": r.OK, "output": r.Output, "error": r.Error, "category": r.Category}))
}

// plan is todo_write's list as an ACP plan.
func plan(todos []agent.Todo) sdk.SessionUpdate {
	entries := make([]sdk.PlanEntry, 0, len(todos))
	for _, t := range todos {
		st := sdk.PlanEntryStatusPending
		switch t.Status {
		case "in_progress":
			st = sdk.PlanEntryStatusInProgress
		case "completed":
			st = sdk.PlanEntryStatusCompleted
		}
		entries = append(entries, sdk.PlanEntry{Content: t.Content, Status: st, Priority: sdk.PlanEntryPriorityMedium})
	}
	return sdk.UpdatePlan(entries...)
}
