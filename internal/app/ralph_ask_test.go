package app

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/ralph"
)

// TestRalphDoesNotOfferAskUser: no one answers during a Ralph run, so
// ask_user is not offered and the system prompt tells the model to decide
// itself.
func TestRalphDoesNotOfferAskUser(t *testing.T) {
	f := newFixture(t, llmtest.Turn{Text: "Done.\n<promise>COMPLETE</promise>"})
	f.add(ralph.Task{Title: "Pick a database", Priority: ralph.P1})
	_, err := f.svc.Run(context.Background(), ralph.RunOptions{}, f.emit)
	require.NoError(t, err)
	first := f.request(0)
	require.NotContains(t, first, `"ask_user"`)
	require.Contains(t, first, agent.NoAskerNote)
}
