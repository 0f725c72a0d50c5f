package app

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// storedConversation writes a session of n messages (prompts and
// answers) into svc's store as the workspace's latest and returns it.
func storedConversation(t *testing.T, svc *Service, n int) *agent.Conversation {
	t.Helper()
	ctx := context.Background()
	sess, err := svc.Pick(ctx, "", false)
	require.NoError(t, err)
	for i := range n {
		m := llm.UserText(fmt.Sprint("prompt ", i))
		if i%2 == 1 {
			m = llm.AssistantText(fmt.Sprint("answer ", i))
		}
		require.NoError(t, svc.Store().AppendMessage(ctx, sess.ID, m, nil))
	}
	full, err := svc.Store().Load(ctx, sess.ID)
	require.NoError(t, err)
	return full
}

// PickRecent gives the last messages at once and the whole conversation
// to everything that reads or continues it: the live session's Info, and
// the first run's request to the model.
func TestPickRecentLoadsTheRestBeforeItIsNeeded(t *testing.T) {
	script := llmtest.NewScript(t, llmtest.Turn{Text: "ok"})
	env, ws := sessionEnv(t, script)
	svc := startService(t, script, env, ws)
	stored := storedConversation(t, svc, 40)
	ctx := context.Background()

	sess, err := svc.PickRecent(ctx, "", true, 6)
	require.NoError(t, err)
	require.Equal(t, stored.ID, sess.ID)
	live, err := svc.Session(ctx, sess, SessionOptions{})
	require.NoError(t, err)
	defer live.Close()
	recent, total := live.Recent()
	require.Equal(t, 40, total)
	require.Equal(t, stored.Messages[40-len(recent):], recent, "the last messages (or all, once loaded)")
	require.GreaterOrEqual(t, len(recent), 6)
	require.Equal(t, stored.ID, live.ID())

	require.Equal(t, stored.Messages, live.Info().Messages, "Info waits for the whole conversation")
	recent, total = live.Recent()
	require.Equal(t, stored.Messages, recent)
	require.Equal(t, 40, total)

	_, err = live.Run(ctx, prompt("next"), func(agent.Event) {})
	require.NoError(t, err)
	var req struct{ Messages []json.RawMessage }
	require.NoError(t, json.Unmarshal(script.Requests()[0], &req))
	require.Len(t, req.Messages, 1+40+1, "system, the whole conversation, the prompt")
}

// A conversation no longer than the messages asked for comes back whole,
// and without -c or -r PickRecent starts a new session as Pick does.
func TestPickRecentShortAndNew(t *testing.T) {
	svc := newTestService(t)
	stored := storedConversation(t, svc, 4)
	ctx := context.Background()
	sess, err := svc.PickRecent(ctx, stored.ID, false, 10)
	require.NoError(t, err)
	require.Equal(t, stored.Messages, sess.Messages)
	require.Nil(t, svc.loads.of(sess), "nothing left to load")

	fresh, err := svc.PickRecent(ctx, "", false, 10)
	require.NoError(t, err)
	require.NotEqual(t, stored.ID, fresh.ID)
	require.Empty(t, fresh.Messages)

	_, err = svc.PickRecent(ctx, "s_nosuch", false, 10)
	require.Error(t, err)
}

// Close waits for a conversation PickRecent is still loading: the load
// never runs on a closed store, and the session holds the whole
// conversation once Close returns.
func TestCloseWaitsForTheRecentLoad(t *testing.T) {
	script := llmtest.NewScript(t)
	env, ws := sessionEnv(t, script)
	svc := startService(t, script, env, ws)
	stored := storedConversation(t, svc, 400)
	sess, err := svc.PickRecent(context.Background(), "", true, 4)
	require.NoError(t, err)
	require.NoError(t, svc.Close())
	require.Nil(t, svc.loads.of(sess), "no load outlives Close")
	require.Equal(t, stored.Messages, sess.Messages)
}
