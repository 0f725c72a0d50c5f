package session

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/llm"
)

// The WAL and shared-memory files stay after Close, emptied by the closing
// checkpoint: the next Open reuses them instead of creating both and
// fsyncing the data directory again. What was committed is in the
// database file itself and read back by the next Open.
func TestWALFileKeptEmptyAfterClose(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(ctx, dir)
	require.NoError(t, err)
	sess, err := s.Create(ctx, "/ws", "anthropic", "claude-sonnet-4-5")
	require.NoError(t, err)
	require.NoError(t, s.AppendMessage(ctx, sess.ID, llm.Message{Role: llm.RoleUser,
		Parts: []llm.Part{{Type: llm.PartText, Text: "kept"}}}, nil))
	require.NoError(t, s.Close())

	wal, err := os.Stat(filepath.Join(dir, FileName+"-wal"))
	require.NoError(t, err, "the WAL file is kept")
	require.Zero(t, wal.Size(), "the closing checkpoint empties the WAL")
	require.Equal(t, os.FileMode(0o600), wal.Mode().Perm())
	_, err = os.Stat(filepath.Join(dir, FileName+"-shm"))
	require.NoError(t, err, "the shared-memory file is kept")

	// Without the WAL the database file alone holds the message.
	require.NoError(t, os.Remove(filepath.Join(dir, FileName+"-wal")))
	require.NoError(t, os.Remove(filepath.Join(dir, FileName+"-shm")))
	s2, err := Open(ctx, dir)
	require.NoError(t, err)
	defer s2.Close()
	got, err := s2.Load(ctx, sess.ID)
	require.NoError(t, err)
	require.Len(t, got.Messages, 1)
	require.Equal(t, "kept", got.Messages[0].Parts[0].Text)
}

// A long session's WAL is not cut back after each automatic checkpoint
// (journal_size_limit is above its size then): its commits rewrite the
// blocks it has instead of growing the file again (issue 40). The WAL
// file's size never falls while the store is open, over several
// checkpoints of tool calls and 6.6 KB results.
func TestWALNotCutBetweenCheckpoints(t *testing.T) {
	ctx := context.Background()
	s, dir := openTest(t)
	sess := newSession(t, s, "/ws")
	var b strings.Builder
	for i := 0; b.Len() < 6600; i++ {
		fmt.Fprintf(&b, "g%d.txt:%d:func handler_%d(w http.ResponseWriter) {}\n", i, i, i)
	}
	walPath := filepath.Join(dir, FileName+"-wal")
	var peak int64
	for turn := range 120 {
		id := fmt.Sprintf("call_%d", turn)
		call := llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{{Type: llm.PartToolCall,
			ToolCall: &llm.ToolCall{ID: id, Name: "grep", Arguments: []byte(`{"pattern":"x"}`)}}}}
		require.NoError(t, s.AppendMessage(ctx, sess.ID, call, &llm.Usage{InputTokens: 1000, OutputTokens: 20}))
		res := llm.ToolResults(llm.ToolResult{CallID: id, Name: "grep", Content: b.String() + id})
		require.NoError(t, s.AppendMessage(ctx, sess.ID, res, nil))
		wal, err := os.Stat(walPath)
		require.NoError(t, err)
		require.GreaterOrEqual(t, wal.Size(), peak, "turn %d: the WAL was cut from %d to %d bytes", turn, peak, wal.Size())
		peak = wal.Size()
	}
	// 1,000 pages of 4 KiB: the automatic checkpoint's size, reached by
	// about turn 45; the WAL restarted after it at least once.
	require.Greater(t, peak, int64(1000*4096), "the session went past an automatic checkpoint")
}
