package session

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/llm"
)

// LoadRecent returns the session with its last n messages in order, the
// count of all of them, and the rest of the session as Load has it.
func TestLoadRecent(t *testing.T) {
	s, ws := openTest(t)
	ctx := context.Background()
	older := newSession(t, s, ws)
	sess := newSession(t, s, ws)
	for i := range 5 {
		require.NoError(t, s.AppendMessage(ctx, sess.ID, llm.UserText(fmt.Sprint("m", i)), nil))
	}
	require.NoError(t, s.AppendMessage(ctx, older.ID, llm.UserText("other"), nil)) // now the latest
	full, err := s.Load(ctx, sess.ID)
	require.NoError(t, err)

	got, total, err := s.LoadRecent(ctx, sess.ID[:len(sess.ID)-2], 2)
	require.NoError(t, err)
	require.Equal(t, 5, total)
	require.Equal(t, full.Messages[3:], got.Messages, "the last two, oldest first")
	got.Messages = full.Messages
	require.Equal(t, full, got, "all but the messages as Load has them")

	all, total, err := s.LoadRecent(ctx, sess.ID, 50)
	require.NoError(t, err)
	require.Equal(t, 5, total)
	require.Equal(t, full.Messages, all.Messages)

	_, _, err = s.LoadRecent(ctx, sess.ID, 0)
	require.ErrorContains(t, err, "below 1")
	_, _, err = s.LoadRecent(ctx, "s_nosuch", 3)
	require.ErrorIs(t, err, ErrNotFound)

	id, err := s.LatestID(ctx, ws)
	require.NoError(t, err)
	require.Equal(t, older.ID, id)
	_, err = s.LatestID(ctx, t.TempDir())
	require.ErrorIs(t, err, ErrNotFound)
}
