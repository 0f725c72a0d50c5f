package app

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app/apptest"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/trust"
)

// answerer answers every approval with answer and records the requests.
type answerer struct {
	mu     sync.Mutex
	answer func(agent.ApprovalInfo) agent.Answer
	asked  []agent.ApprovalInfo
}

func (a *answerer) Approve(_ context.Context, req agent.ApprovalInfo) (agent.Answer, string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked = append(a.asked, req)
	return a.answer(req), "", nil
}

// contentFixture is a trusted workspace (trusted as aidex did before
// content approval: the folder only) with a hook, a command and a skill
// that widen.
func contentFixture(t *testing.T) (*apptest.Home, *llmtest.Script) {
	t.Helper()
	script := llmtest.NewScript(t)
	home := apptest.NewHome(t, apptest.FakeProvider(script.URL, []string{"m1"}, "max_retries = 0\n"))
	write := func(rel, text string) {
		p := filepath.Join(home.WS, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	write(".claude/settings.json", `{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "sh .claude/hooks/mark.sh"}]}]}}`)
	write(".claude/hooks/mark.sh", "echo x >> .claude/marks\n")
	write(".claude/commands/ship.md", "---\nallowed-tools: Bash(git push:*)\n---\nship it\n")
	write(".claude/skills/fmt/SKILL.md", "---\nname: fmt\ndescription: format\nallowed-tools: Bash(gofmt:*)\n---\nrun gofmt\n")
	return home, script
}

func startContent(t *testing.T, home *apptest.Home) *Service {
	t.Helper()
	svc, err := Start(context.Background(), StartOptions{Options: Options{Workspace: home.WS, Getenv: home.Getenv}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = svc.Close() })
	return svc
}

func contentRun(t *testing.T, svc *Service, o SessionOptions) error {
	t.Helper()
	ctx := context.Background()
	sess, err := svc.Pick(ctx, "", false)
	require.NoError(t, err)
	live, err := svc.Session(ctx, sess, o)
	if err != nil {
		return err
	}
	defer live.Close()
	_, err = live.Run(ctx, []llm.Part{{Type: llm.PartText, Text: "hello"}}, func(agent.Event) {})
	return err
}

// A folder trusted before content approval: nothing of its widening
// content counts, and the first interactive session reviews each item;
// "always" records the approval and the item runs; later sessions do not
// ask again.
func TestContentReviewAtFirstRun(t *testing.T) {
	home, _ := contentFixture(t)
	svc := startContent(t, home)
	require.NoError(t, svc.Runtime().Config.Paths.Trust(home.WS))
	_, err := svc.Reload(context.Background(), nil)
	require.NoError(t, err)
	rt := svc.Runtime()
	require.Len(t, rt.PendingContent(), 3)
	cmds, _ := rt.CustomCommands()
	for _, c := range cmds {
		require.NotEqual(t, "ship", c.Name, "an unapproved command is offered")
	}
	list, _ := rt.Skills()
	require.Empty(t, list, "an unapproved skill is offered")
	require.NotEmpty(t, rt.Hooks())
	require.Equal(t, NotApprovedNote, rt.Hooks()[0].Ignored)

	ap := &answerer{answer: func(agent.ApprovalInfo) agent.Answer { return agent.AnswerAlways }}
	require.NoError(t, contentRun(t, svc, SessionOptions{Approver: ap}))
	require.Len(t, ap.asked, 3)
	for _, q := range ap.asked {
		require.Equal(t, agent.RuleTrust, q.Rule)
	}
	marks, err := os.ReadFile(filepath.Join(home.WS, ".claude", "marks"))
	require.NoError(t, err, "the approved UserPromptSubmit hook ran in the same run")
	require.Equal(t, "x\n", string(marks))

	svc2 := startContent(t, home)
	require.Empty(t, svc2.Runtime().PendingContent())
	ap2 := &answerer{answer: func(agent.ApprovalInfo) agent.Answer { return agent.AnswerDeny }}
	require.NoError(t, contentRun(t, svc2, SessionOptions{Approver: ap2}))
	require.Empty(t, ap2.asked, "approved items start without asking")
	cmds, _ = svc2.Runtime().CustomCommands()
	found := false
	for _, c := range cmds {
		found = found || c.Name == "ship"
	}
	require.True(t, found)
}

// A skipped item stays left out, for this service and the next one; a
// "yes" counts for this service only.
func TestContentReviewSkipAndOnce(t *testing.T) {
	home, _ := contentFixture(t)
	svc := startContent(t, home)
	require.NoError(t, svc.Runtime().Config.Paths.Trust(home.WS))
	_, err := svc.Reload(context.Background(), nil)
	require.NoError(t, err)
	ap := &answerer{answer: func(q agent.ApprovalInfo) agent.Answer {
		if q.Tool == "project "+string(trust.KindCommand)+" /ship" {
			return agent.AnswerOnce
		}
		return agent.AnswerDeny
	}}
	require.NoError(t, contentRun(t, svc, SessionOptions{Approver: ap}))
	_, err = os.Stat(filepath.Join(home.WS, ".claude", "marks"))
	require.True(t, os.IsNotExist(err), "a skipped hook ran")
	cmds, _ := svc.Runtime().CustomCommands()
	found := false
	for _, c := range cmds {
		found = found || c.Name == "ship"
	}
	require.True(t, found, "a command approved for this session is offered")

	svc2 := startContent(t, home)
	require.Len(t, svc2.Runtime().PendingContent(), 3, "skipped and once-approved items are asked again next time")
}

// A session that cannot ask (headless) is refused before any model
// request when a hook is pending; without a pending hook, unapproved
// commands and skills are left out and the run goes on.
func TestContentGateHeadless(t *testing.T) {
	home, script := contentFixture(t)
	svc := startContent(t, home)
	require.NoError(t, svc.Runtime().Config.Paths.Trust(home.WS))
	_, err := svc.Reload(context.Background(), nil)
	require.NoError(t, err)
	err = contentRun(t, svc, SessionOptions{})
	var ce *ContentNotApprovedError
	require.ErrorAs(t, err, &ce)
	require.Contains(t, err.Error(), trust.ReviewCommand)
	require.Empty(t, script.Requests())

	var hook trust.Item
	for _, c := range svc.Runtime().PendingContent() {
		if c.Kind == trust.KindHook {
			hook = c.Item
		}
	}
	require.NoError(t, svc.Runtime().ApproveContent(hook))
	_, err = svc.Reload(context.Background(), nil)
	require.NoError(t, err)
	require.NoError(t, contentRun(t, svc, SessionOptions{}))
	require.Len(t, script.Requests(), 1)
	require.Len(t, svc.Runtime().PendingContent(), 2)
}
