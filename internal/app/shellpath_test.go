package app

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// countingApprover allows everything and counts the requests.
type countingApprover struct{ asked int }

func (a *countingApprover) Approve(context.Context, agent.ApprovalInfo) (agent.Answer, string, error) {
	a.asked++
	return agent.AnswerOnce, "", nil
}

// A file-tool path in shell syntax goes back to the model as a validation
// error before anyone is asked to approve it, and creates nothing.
func TestShellSyntaxPathRefusedBeforeApproval(t *testing.T) {
	f := newFixture(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"$HOME/.bashrc","content":"x"}`}}},
		llmtest.Turn{Text: "ok"})
	rt := f.backend.Runtime()
	rt.Config.PermissionMode = "ask"
	ctx := context.Background()
	sess, err := f.store.Create(ctx, rt.Workspace, rt.Provider.Name, rt.Model)
	require.NoError(t, err)
	ap := &countingApprover{}
	eng, closeEng, err := rt.Engine(ctx, engineOptions{Store: f.store, SessionID: sess.ID, Approver: ap})
	require.NoError(t, err)
	defer closeEng()
	var results []*agent.ToolResultInfo
	_, err = eng.Run(ctx, sess, []llm.Part{{Type: llm.PartText, Text: "set up my shell"}}, func(ev agent.Event) {
		if ev.ToolResult != nil {
			results = append(results, ev.ToolResult)
		}
	})
	require.NoError(t, err)
	require.Len(t, results, 1)
	require.Equal(t, "validation", results[0].Category)
	require.Contains(t, results[0].Error, "paths are not shell-expanded; use a path relative to the workspace")
	require.Zero(t, ap.asked, "no approval for a path that is refused anyway")
	_, err = os.Lstat(filepath.Join(f.ws, "$HOME"))
	require.True(t, os.IsNotExist(err))
}
