package session

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/llm"
)

func TestRetitleReplacesOnlyThePromptTitle(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, t.TempDir())
	require.NoError(t, err)
	defer st.Close()
	s, err := st.Create(ctx, "/ws", "p", "m")
	require.NoError(t, err)
	prompt := "please   look at the failing test in foo_test.go and fix it"
	require.NoError(t, st.AppendMessage(ctx, s.ID, llm.UserText(prompt), nil))
	before, err := st.Info(ctx, s.ID)
	require.NoError(t, err)

	ok, err := st.Retitle(ctx, s.ID, prompt, "Fix failing foo test\n")
	require.NoError(t, err)
	require.True(t, ok)
	after, err := st.Info(ctx, s.ID)
	require.NoError(t, err)
	require.Equal(t, "Fix failing foo test", after.Title)
	require.Equal(t, before.UpdatedAt, after.UpdatedAt, "a title is no change of the conversation")

	ok, err = st.Retitle(ctx, s.ID, prompt, "Another title")
	require.NoError(t, err)
	require.False(t, ok, "only the prompt's own title is replaced")

	_, err = st.Retitle(ctx, s.ID, prompt, "  ")
	require.Error(t, err)
}
