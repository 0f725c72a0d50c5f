package checkpoint

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRestoreBringsBackChangedDeletedAndRemovesNew(t *testing.T) {
	ctx := context.Background()
	r, ws := open(t, 0)
	write(t, ws, "a.txt", "alpha\n", 0o644)
	write(t, ws, "bin/run.sh", "#!/bin/sh\necho hi\n", 0o755)
	write(t, ws, "sub/deep/b.txt", "beta\n", 0o644)
	require.NoError(t, os.Symlink("a.txt", filepath.Join(ws, "link")))
	before := state(t, ws)
	cp, err := r.Snapshot(ctx, "before")
	require.NoError(t, err)

	write(t, ws, "a.txt", "changed\n", 0o644)
	require.NoError(t, os.Remove(filepath.Join(ws, "bin/run.sh")))
	require.NoError(t, os.RemoveAll(filepath.Join(ws, "sub")))
	require.NoError(t, os.Remove(filepath.Join(ws, "link")))
	require.NoError(t, os.Symlink("elsewhere", filepath.Join(ws, "link")))
	write(t, ws, "new/dir/new.txt", "new\n", 0o644)
	write(t, ws, "new.txt", "", 0o644)

	res, err := r.Restore(ctx, cp)
	require.NoError(t, err)
	require.Equal(t, before, state(t, ws))
	require.Equal(t, []string{"a.txt", "bin/run.sh", "link", "sub/deep/b.txt"}, res.Written)
	require.Equal(t, []string{"new.txt", "new/dir/new.txt"}, res.Deleted)
}
