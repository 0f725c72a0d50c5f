package session

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/llm"
)

// TurnPoint names the last prompt and the conversation's length before
// it; AddSnapshot marks the turn snapshotted; snapshots are found by id
// or unique prefix and listed per session or workspace.
func TestSnapshotRecords(t *testing.T) {
	ctx := context.Background()
	s, _ := openTest(t)
	sess := newSession(t, s, "/ws")
	for _, m := range []llm.Message{llm.UserText("first"), llm.AssistantText("ok"), llm.UserText("second")} {
		require.NoError(t, s.AppendMessage(ctx, sess.ID, m, nil))
	}
	tp, err := s.TurnPoint(ctx, sess.ID)
	require.NoError(t, err)
	require.Equal(t, TurnPoint{Turn: 2, Prompt: "second", Messages: 2}, tp)

	sn, err := s.AddSnapshot(ctx, Snapshot{SessionID: sess.ID, Turn: tp.Turn, Kind: SnapshotTurn, Prompt: tp.Prompt,
		Messages: tp.Messages, Commit: "c1"})
	require.NoError(t, err)
	require.Len(t, sn.ID, snapshotIDLength)
	require.Equal(t, "/ws", sn.Workspace)
	tp, err = s.TurnPoint(ctx, sess.ID)
	require.NoError(t, err)
	require.True(t, tp.Snapshotted)

	got, err := s.SnapshotByID(ctx, sn.ID[:4])
	require.NoError(t, err)
	require.Equal(t, sn.Commit, got.Commit)
	_, err = s.SnapshotByID(ctx, "zzzzzzzzz")
	require.ErrorIs(t, err, ErrUnknownSnapshot)
	require.ErrorContains(t, err, "zzzzzzzzz")

	other := newSession(t, s, "/ws")
	_, err = s.AddSnapshot(ctx, Snapshot{SessionID: other.ID, Kind: SnapshotTurn, Commit: "c2"})
	require.NoError(t, err)
	mine, err := s.Snapshots(ctx, sess.ID, "")
	require.NoError(t, err)
	require.Len(t, mine, 1)
	all, err := s.Snapshots(ctx, "", "/ws")
	require.NoError(t, err)
	require.Len(t, all, 2)
	_, err = s.AddSnapshot(ctx, Snapshot{SessionID: "s_nope", Commit: "c"})
	require.ErrorIs(t, err, ErrNotFound)

	require.NoError(t, s.Delete(ctx, sess.ID))
	all, err = s.Snapshots(ctx, "", "/ws")
	require.NoError(t, err)
	require.Len(t, all, 1, "a session's checkpoints go with it")
}

// TruncateMessages keeps the first messages and refuses to grow the
// conversation.
func TestTruncateMessages(t *testing.T) {
	ctx := context.Background()
	s, _ := openTest(t)
	sess := newSession(t, s, "/ws")
	for _, m := range []llm.Message{llm.UserText("a"), llm.AssistantText("b"), llm.UserText("c"), llm.AssistantText("d")} {
		require.NoError(t, s.AppendMessage(ctx, sess.ID, m, nil))
	}
	require.ErrorContains(t, s.TruncateMessages(ctx, sess.ID, 5), "it has only 4")
	require.NoError(t, s.TruncateMessages(ctx, sess.ID, 2))
	got, err := s.Load(ctx, sess.ID)
	require.NoError(t, err)
	require.Equal(t, []llm.Message{llm.UserText("a"), llm.AssistantText("b")}, got.Messages)
	require.NoError(t, s.AppendMessage(ctx, sess.ID, llm.UserText("e"), nil))
	got, err = s.Load(ctx, sess.ID)
	require.NoError(t, err)
	require.Len(t, got.Messages, 3)
	require.ErrorIs(t, s.TruncateMessages(ctx, "s_nope", 0), ErrNotFound)
}
