package tools

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// An output store keeps what it is told to keep, reads it back by id only,
// and its first save removes other sessions' outputs older than
// SavedOutputAge (nothing else).
func TestOutputStore(t *testing.T) {
	root := filepath.Join(t.TempDir(), "outputs")
	old := time.Now().Add(-SavedOutputAge - time.Hour)
	write := func(rel string, mtime time.Time) string {
		p := filepath.Join(root, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o700))
		require.NoError(t, os.WriteFile(p, []byte("x"), 0o600))
		require.NoError(t, os.Chtimes(p, mtime, mtime))
		return p
	}
	stale := write("s1/o00000001.txt", old)
	fresh := write("s2/o00000002.txt", time.Now())
	other := write("s3/notes.md", old)
	staleToo := write("s3/partial-1.tmp", old)

	s := &OutputStore{Dir: filepath.Join(root, "s4")}
	o := s.Start()
	_, _ = o.Write([]byte("line 1\nline 2\n"))
	id, size, dropped, err := o.Keep()
	require.NoError(t, err)
	require.Equal(t, int64(14), size)
	require.Zero(t, dropped)
	b, err := s.Read(id)
	require.NoError(t, err)
	require.Equal(t, "line 1\nline 2\n", string(b))
	_, err = s.Read("../s2/o00000002")
	require.ErrorContains(t, err, "is not an output id")

	for p, kept := range map[string]bool{stale: false, staleToo: false, fresh: true, other: true, filepath.Join(root, "s1"): false} {
		_, err := os.Stat(p)
		require.Equal(t, kept, err == nil, p)
	}

	o = s.Start()
	_, _ = o.Write([]byte("gone"))
	o.Discard()
	entries, _ := os.ReadDir(s.Dir)
	require.Len(t, entries, 1, "a discarded output leaves nothing")
	var none *OutputStore
	require.Nil(t, none.Start())
	_, err = none.Read(id)
	require.Error(t, err)
}
