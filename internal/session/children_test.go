package session

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/llm"
)

func TestChildSessionLinkedToParent(t *testing.T) {
	s, ws := openTest(t)
	ctx := context.Background()
	parent, err := s.Create(ctx, ws, "p", "m")
	require.NoError(t, err)
	require.NoError(t, s.AppendMessage(ctx, parent.ID, llm.UserText("review it"), nil))
	child, err := s.CreateChild(ctx, Child{ParentID: parent.ID, ToolCallID: "call_1", Label: "reviewer: check"}, ws, "p", "m")
	require.NoError(t, err)
	call := llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{{Type: llm.PartToolCall,
		ToolCall: &llm.ToolCall{ID: "c", Name: "read_file", Arguments: json.RawMessage(`{}`)}}}}
	require.NoError(t, s.AppendMessage(ctx, child.ID, call, &llm.Usage{InputTokens: 7, OutputTokens: 3}))

	kids, err := s.Children(ctx, parent.ID)
	require.NoError(t, err)
	require.Len(t, kids, 1)
	require.Equal(t, parent.ID, kids[0].ParentID)
	require.Equal(t, "call_1", kids[0].ParentToolCallID)
	require.Equal(t, "reviewer: check", kids[0].Subagent)
	require.Equal(t, 1, kids[0].ToolCalls)
	require.Equal(t, 7, kids[0].Usage.InputTokens)

	list, err := s.List(ctx, ListOptions{Workspace: ws})
	require.NoError(t, err)
	require.Len(t, list, 1, "subagent sessions are not listed as sessions of their own")
	require.Equal(t, parent.ID, list[0].ID)
	latest, err := s.Latest(ctx, ws)
	require.NoError(t, err)
	require.Equal(t, parent.ID, latest.ID, "--continue never picks a subagent's session")

	require.NoError(t, s.Delete(ctx, parent.ID))
	_, err = s.Load(ctx, child.ID)
	require.ErrorIs(t, err, ErrNotFound, "deleting the parent deletes its children")

	_, err = s.CreateChild(ctx, Child{ParentID: "nope"}, ws, "p", "m")
	require.ErrorIs(t, err, ErrNotFound)
}

func TestDescendantsAndExport(t *testing.T) {
	s, ws := openTest(t)
	ctx := context.Background()
	parent, err := s.Create(ctx, ws, "p", "m")
	require.NoError(t, err)
	child, err := s.CreateChild(ctx, Child{ParentID: parent.ID, ToolCallID: "c1", Label: "general: outer"}, ws, "p", "m")
	require.NoError(t, err)
	grand, err := s.CreateChild(ctx, Child{ParentID: child.ID, ToolCallID: "c2", Label: "explore: inner"}, ws, "p", "m")
	require.NoError(t, err)
	require.NoError(t, s.AddUsage(ctx, grand.ID, llm.Usage{InputTokens: 40, OutputTokens: 4}, 0.5))

	all, err := s.Descendants(ctx, parent.ID)
	require.NoError(t, err)
	require.Len(t, all, 2)
	require.Equal(t, child.ID, all[0].ID)
	require.Equal(t, grand.ID, all[1].ID)

	var b strings.Builder
	require.NoError(t, s.Export(ctx, parent.ID, FormatMarkdown, &b))
	require.Contains(t, b.String(), "- Subagents:\n  - general: outer (`"+child.ID+"`)")
	require.Contains(t, b.String(), "  - explore: inner (`"+grand.ID+"`): 40 input tokens, 4 output tokens, cost $0.5000, 0 tool calls")
	b.Reset()
	require.NoError(t, s.Export(ctx, grand.ID, FormatMarkdown, &b))
	require.Contains(t, b.String(), "- Subagent explore: inner of session `"+child.ID+"` (task call `c2`)")
}
