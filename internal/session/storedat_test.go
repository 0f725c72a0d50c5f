package session

import (
	"context"
	"errors"
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

	_, err = s.SetModelSince(ctx, "s_missing", "openai", "gpt-5", clock)
	require.True(t, errors.Is(err, ErrNotFound), "unknown id: %v", err)
}
