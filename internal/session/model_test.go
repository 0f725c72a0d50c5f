package session

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/llm"
)

// TestMessageModelAndCost: the model that wrote a message and the price
// of its usage survive a load, an export and a replace of the messages.
func TestMessageModelAndCost(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	sess := newSession(t, s, "/w")
	priced := s.Priced(func(u llm.Usage) float64 { return float64(u.OutputTokens) / 100 })
	a := llm.AssistantText("from a")
	a.Model = "openai/gpt-a"
	b := llm.AssistantText("from b")
	b.Model = "anthropic/claude-b"
	require.NoError(t, priced.AppendMessage(ctx, sess.ID, llm.UserText("hi"), nil))
	require.NoError(t, priced.AppendMessage(ctx, sess.ID, a, &llm.Usage{OutputTokens: 50}))
	require.NoError(t, priced.AppendMessage(ctx, sess.ID, b, &llm.Usage{OutputTokens: 200}))

	got, err := s.Load(ctx, sess.ID)
	require.NoError(t, err)
	require.Equal(t, []string{"", "openai/gpt-a", "anthropic/claude-b"},
		[]string{got.Messages[0].Model, got.Messages[1].Model, got.Messages[2].Model})

	var ex Export
	var sb strings.Builder
	require.NoError(t, s.Export(ctx, sess.ID, "json", &sb))
	require.NoError(t, json.Unmarshal([]byte(sb.String()), &ex))
	require.Equal(t, "anthropic/claude-b", ex.Messages[2].Model)
	require.InDelta(t, 0.5, ex.Messages[1].CostUSD, 1e-9)
	require.InDelta(t, 2.0, ex.Messages[2].CostUSD, 1e-9)

	require.NoError(t, s.ReplaceMessages(ctx, sess.ID, got.Messages[1:]))
	got, err = s.Load(ctx, sess.ID)
	require.NoError(t, err)
	require.Equal(t, "openai/gpt-a", got.Messages[0].Model)
}
