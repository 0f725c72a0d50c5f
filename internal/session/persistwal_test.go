package session

import (
	"context"
	"os"
	"path/filepath"
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
