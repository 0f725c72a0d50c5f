package app

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app/toolcall"
	"github.com/zelvior/aidex/internal/config"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/permission"
	"github.com/zelvior/aidex/internal/permission/shell"
)

// recordingApprover denies and keeps the requests.
type recordingApprover struct{ reqs []agent.ApprovalInfo }

func (a *recordingApprover) Approve(_ context.Context, r agent.ApprovalInfo) (agent.Answer, string, error) {
	a.reqs = append(a.reqs, r)
	return agent.AnswerDeny, "", nil
}

// A command with a carriage return asks even in yolo mode with
// run_command(*) allowed, and the approval shows it escaped, with no rule
// to save.
func TestControlCharacterCommandApprovalEscaped(t *testing.T) {
	f := newFixture(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "run_command", Args: `{"command":"echo safe\r; touch pwned"}`}}},
		llmtest.Turn{Text: "ok"})
	rt := f.backend.Runtime()
	rt.Config.PermissionMode = "yolo"
	rt.Config.Permissions.Allow = append(rt.Config.Permissions.Allow, config.Rule{Text: "run_command(*)", Source: "test"})
	ctx := context.Background()
	sess, err := f.store.Create(ctx, rt.Workspace, rt.Provider.Name, rt.Model)
	require.NoError(t, err)
	ap := &recordingApprover{}
	eng, closeEng, err := rt.Engine(ctx, engineOptions{Store: f.store, SessionID: sess.ID, Approver: ap})
	require.NoError(t, err)
	defer closeEng()
	_, err = eng.Run(ctx, sess, []llm.Part{{Type: llm.PartText, Text: "go"}}, func(agent.Event) {})
	require.NoError(t, err)
	require.Len(t, ap.reqs, 1)
	req := ap.reqs[0]
	require.Equal(t, `echo safe\r; touch pwned`, req.Command)
	require.Contains(t, req.Rule, permission.RuleControlChars)
	require.Contains(t, req.Reason, `\r`)
	require.Empty(t, req.Suggested, "no rule may allow such a line")
	require.NoFileExists(t, f.ws+"/pwned")
}

// The engine's escaping of approval commands (agent.ShowControls, which
// may not import the shell package) is the policy's (shell.EscapeControls).
func TestShowControlsMatchesPolicy(t *testing.T) {
	for r := rune(0); r < 0x10000; r++ {
		s := "a" + string(r) + "b"
		if got, want := agent.ShowControls(s), shell.EscapeControls(s); got != want {
			t.Fatalf("U+%04X: engine shows %q, policy %q", r, got, want)
		}
	}
}

// `aidex tool` and POST /api/tool name the rule of a refusal once.
func TestCallToolRefusalNamesRuleOnce(t *testing.T) {
	f := newFixture(t)
	rt := f.backend.Runtime()
	rt.Config.Permissions.Deny = append(rt.Config.Permissions.Deny, config.Rule{Text: "run_command(rm *)", Source: "flag"})
	for _, c := range []struct{ args, rule string }{
		{`{"command":"rm -rf build"}`, "run_command(rm *)"},
		{`{"command":"touch x"}`, "mode auto-edit"},
	} {
		out, err := rt.CallTool(context.Background(), "run_command", []byte(c.args), toolcall.Options{})
		require.NoError(t, err)
		require.Equal(t, toolcall.Refused, out.Outcome)
		require.Equal(t, 1, strings.Count(out.Result.Error, c.rule), out.Result.Error)
	}
}
