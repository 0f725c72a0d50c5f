package session

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/llm"
)

// TestUpdatedAtMatchesInfo: UpdatedAt answers Info's UpdatedAt after each
// kind of change, and ErrNotFound for an unknown id.
func TestUpdatedAtMatchesInfo(t *testing.T) {
	ctx := context.Background()
	s, dir := openTest(t)
	sess := newSession(t, s, dir)
	check := func(what string) {
		t.Helper()
		sum, err := s.Info(ctx, sess.ID)
		require.NoError(t, err)
		at, err := s.UpdatedAt(ctx, sess.ID)
		require.NoError(t, err)
		require.True(t, at.Equal(sum.UpdatedAt), "%s: UpdatedAt %v, Info %v", what, at, sum.UpdatedAt)
	}
	check("created")
	require.NoError(t, s.AppendMessage(ctx, sess.ID, llm.UserText("hello"), nil))
	check("after a message")
	require.NoError(t, s.SetModel(ctx, sess.ID, "openai", "gpt-5"))
	check("after a model change")
	_, err := s.UpdatedAt(ctx, "s_doesnotexist")
	require.True(t, errors.Is(err, ErrNotFound), "unknown id: %v", err)
}
