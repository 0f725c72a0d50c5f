package session

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/llm"
)

// A session carries the store's update time from Create, Load and Latest;
// SetModelSince reports the new one only while nothing else changed the
// session since the time given, so a holder knows its copy is current.
func TestStoredAtAndSetModelSince(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	clock := time.Unix(1_700_000_000, 0)
	s.now = func() time.Time { clock = clock.Add(time.Second); return clock }
	sess := newSession(t, s, "/w")
	require.Equal(t, clock, sess.StoredAt, "Create")
	require.NoError(t, s.AppendMessage(ctx, sess.ID, llm.UserText("hi"), nil))
	loaded, err := s.Load(ctx, sess.ID)
	require.NoError(t, err)
	require.Equal(t, clock, loaded.StoredAt, "Load")
	latest, err := s.Latest(ctx, "/w")
	require.NoError(t, err)
	require.Equal(t, clock, latest.StoredAt, "Latest")

	now, err := s.SetModelSince(ctx, sess.ID, "openai", "gpt-5", loaded.StoredAt)
	require.NoError(t, err)
	require.Equal(t, clock, now, "the copy was current: the new update time")
	sum, err := s.Info(ctx, sess.ID)
	require.NoError(t, err)
	require.Equal(t, "openai/gpt-5", sum.Provider+"/"+sum.Model)
	require.Equal(t, now, sum.UpdatedAt)

	require.NoError(t, s.AppendMessage(ctx, sess.ID, llm.AssistantText("hello"), nil)) // another process
	now, err = s.SetModelSince(ctx, sess.ID, "openai", "gpt-5", now)
	require.NoError(t, err)
	require.True(t, now.IsZero(), "changed since: zero, got %v", now)
	now, err = s.SetModelSince(ctx, sess.ID, "openai", "gpt-5", time.Time{})
	require.NoError(t, err)
	require.True(t, now.IsZero(), "no time given: zero")

	// The same provider and model again: nothing written, the update time
	// (the session's place in the recent list) kept, the copy still current.
	sum, err = s.Info(ctx, sess.ID)
	require.NoError(t, err)
	kept, err := s.SetModelSince(ctx, sess.ID, "openai", "gpt-5", sum.UpdatedAt)
	require.NoError(t, err)
	require.Equal(t, sum.UpdatedAt, kept, "an unchanged model keeps the copy current")
	after, err := s.Info(ctx, sess.ID)
	require.NoError(t, err)
	require.Equal(t, sum.UpdatedAt, after.UpdatedAt, "resuming without a model change does not move the session")

	_, err = s.SetModelSince(ctx, "s_missing", "openai", "gpt-5", clock)
	require.True(t, errors.Is(err, ErrNotFound), "unknown id: %v", err)
}

// A long session (decoded on every CPU) loads in order, every message as
// saved; a corrupt row fails the load naming the first corrupt message,
// wherever the rows are split between decoders.
func TestLoadLongSessionInOrderAndFirstCorruptRowNamed(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	sess := newSession(t, s, "/w")
	var msgs []llm.Message
	for i := range 3 * parallelDecodeMin {
		if i%2 == 0 {
			msgs = append(msgs, llm.UserText(fmt.Sprintf("prompt %d", i)))
		} else {
			msgs = append(msgs, llm.AssistantText(fmt.Sprintf("answer %d", i)))
		}
	}
	require.NoError(t, s.ReplaceMessages(ctx, sess.ID, msgs))
	loaded, err := s.Load(ctx, sess.ID)
	require.NoError(t, err)
	require.Equal(t, msgs, loaded.Messages)

	for _, seq := range []int{3*parallelDecodeMin - 1, 2*parallelDecodeMin + 5, parallelDecodeMin + 2} {
		_, err := s.db.ExecContext(ctx, `UPDATE messages SET parts = '{not json' WHERE session_id = ? AND seq = ?`, sess.ID, seq)
		require.NoError(t, err)
		_, err = s.Load(ctx, sess.ID)
		require.ErrorContains(t, err, fmt.Sprintf("load message %d of %s: stored parts are corrupt", seq, sess.ID))
	}
}
