package app

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/config"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// wrapConfiner stands in for the OS sandbox: it runs each command as
// `sh -c 'SANDBOXED=1 exec "$0" "$@"' ARGV...` and explains outputs that
// say "blocked-by-sandbox".
type wrapConfiner struct{}

const wrapExplain = "the sandbox refused a write outside the workspace; allow it with --add-dir"

func (wrapConfiner) Confine(cmd *exec.Cmd, network bool) error {
	sh, err := exec.LookPath("sh")
	if err != nil {
		return err
	}
	cmd.Args = append([]string{"sh", "-c", `SANDBOXED=1 exec "$0" "$@"`}, cmd.Args...)
	cmd.Path = sh
	return nil
}

func (wrapConfiner) Explain(output string) string {
	if strings.Contains(output, "blocked-by-sandbox") {
		return wrapExplain
	}
	return ""
}

// answeringApprover answers every request with answer and keeps them.
type answeringApprover struct {
	mu     sync.Mutex
	answer agent.Answer
	reqs   []agent.ApprovalInfo
}

func (a *answeringApprover) Approve(_ context.Context, r agent.ApprovalInfo) (agent.Answer, string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.reqs = append(a.reqs, r)
	return a.answer, "", nil
}

// sandboxedCommand fails (as the sandbox would) when it runs confined and
// creates "free" when it runs without the sandbox.
const sandboxedCommand = `{"command":"if [ -n \"$SANDBOXED\" ]; then echo blocked-by-sandbox; exit 1; fi; touch free; echo ran-free"}`

// runSandboxed runs one scripted run_command under the fake sandbox with
// approver (nil: headless) in mode, and returns its tool result and the
// approvals asked.
func runSandboxed(t *testing.T, mode string, approver *answeringApprover) (agent.ToolResultInfo, []agent.ApprovalInfo, *fixture) {
	t.Helper()
	f := newFixture(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "run_command", Args: sandboxedCommand}}},
		llmtest.Turn{Text: "ok"})
	rt := f.backend.Runtime()
	rt.Config.PermissionMode = mode
	rt.Config.Permissions.Allow = append(rt.Config.Permissions.Allow, config.Rule{Text: "run_command(*)", Source: "test"})
	ctx := context.Background()
	sess, err := f.store.Create(ctx, rt.Workspace, rt.Provider.Name, rt.Model)
	require.NoError(t, err)
	opts := engineOptions{Store: f.store, SessionID: sess.ID}
	if approver != nil {
		opts.Approver = approver
	}
	eng, closeEng, err := rt.Engine(ctx, opts)
	require.NoError(t, err)
	defer closeEng()
	eng.Tools.(*toolSet).env.Confiner = wrapConfiner{}
	var results []agent.ToolResultInfo
	var approvals []agent.ApprovalInfo
	_, err = eng.Run(ctx, sess, []llm.Part{{Type: llm.PartText, Text: "go"}}, func(ev agent.Event) {
		switch {
		case ev.ToolResult != nil:
			results = append(results, *ev.ToolResult)
		case ev.Approval != nil:
			approvals = append(approvals, *ev.Approval)
		}
	})
	require.NoError(t, err)
	require.Len(t, results, 1)
	return results[0], approvals, f
}

// In ask mode a command the sandbox stopped is offered again without the
// sandbox; once allowed, that run's result is the tool result.
func TestSandboxRerunUnconfinedApproved(t *testing.T) {
	ap := &answeringApprover{answer: agent.AnswerOnce}
	res, events, f := runSandboxed(t, "ask", ap)
	require.Len(t, ap.reqs, 1)
	req := ap.reqs[0]
	require.Equal(t, agent.RuleSandbox, req.Rule)
	require.Equal(t, "run_command", req.Tool)
	require.Contains(t, req.Reason, wrapExplain)
	require.Contains(t, req.Reason, "run it again without the sandbox")
	require.Empty(t, req.Suggested, "no rule is saved for an unsandboxed rerun")
	require.Len(t, events, 2, "the request and its answer are events")
	require.Equal(t, agent.AnswerOnce, events[1].Answer)
	require.True(t, res.OK, "%s %s", res.Error, res.Output)
	require.Contains(t, res.Output, "ran-free")
	require.FileExists(t, filepath.Join(f.ws, "free"))
}

// Denied, the sandboxed failure stands with its explanation.
func TestSandboxRerunUnconfinedDenied(t *testing.T) {
	ap := &answeringApprover{answer: agent.AnswerDeny}
	res, _, f := runSandboxed(t, "ask", ap)
	require.Len(t, ap.reqs, 1)
	require.False(t, res.OK)
	require.Contains(t, res.Error, wrapExplain)
	require.NotContains(t, res.Error, "--sandbox off", "the user was asked and said no")
	require.NoFileExists(t, filepath.Join(f.ws, "free"))
}

// Headless runs cannot ask: the result names the fix, nothing reruns.
// Yolo mode does not ask either.
func TestSandboxRerunNotOfferedHeadlessOrYolo(t *testing.T) {
	res, events, f := runSandboxed(t, "ask", nil)
	require.Empty(t, events)
	require.False(t, res.OK)
	require.Contains(t, res.Error, wrapExplain)
	require.Contains(t, res.Error, "use --sandbox off (or /sandbox off in a session)")
	require.NoFileExists(t, filepath.Join(f.ws, "free"))

	ap := &answeringApprover{answer: agent.AnswerOnce}
	res, _, f = runSandboxed(t, "yolo", ap)
	require.Empty(t, ap.reqs)
	require.False(t, res.OK)
	require.Contains(t, res.Error, wrapExplain)
	require.Contains(t, res.Error, "--sandbox off")
	require.NoFileExists(t, filepath.Join(f.ws, "free"))
}
