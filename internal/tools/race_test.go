//go:build unix

package tools_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/tools"
)

// TestSymlinkSwapBetweenCheckAndOpen is hole 10 of issue 22: a file tool
// resolves a path, then opens it; a folder of that path swapped for a
// symlink to outside the workspace in between (done here by the hook that
// runs in exactly that window) must not let the open escape: nothing is
// read from, written to, created in or removed from the outside folder.
func TestSymlinkSwapBetweenCheckAndOpen(t *testing.T) {
	for _, c := range []struct {
		tool string
		args m
	}{
		{"read_file", m{"path": "d/f.txt"}},
		{"read_file_lines", m{"path": "d/f.txt", "start": 1, "end": 1}},
		{"head_file", m{"path": "d/f.txt"}},
		{"write_file", m{"path": "d/new.txt", "content": "x"}},
		{"write_file", m{"path": "d/f.txt", "content": "x"}},
		{"append_file", m{"path": "d/f.txt", "content": "x"}},
		{"edit_file", m{"path": "d/f.txt", "old_string": "inside", "new_string": "x"}},
		{"delete_file", m{"path": "d/f.txt"}},
		{"move_file", m{"source": "d/f.txt", "destination": "moved.txt"}},
		{"move_file", m{"source": "top.txt", "destination": "d/top.txt"}},
		{"copy_file", m{"source": "d/f.txt", "destination": "copy.txt"}},
		{"copy_file", m{"source": "top.txt", "destination": "d/top.txt"}},
		{"create_directory", m{"path": "d/sub"}},
		{"list_directory", m{"path": "d"}},
	} {
		for _, relative := range []bool{false, true} {
			t.Run(c.tool, func(t *testing.T) { swapCase(t, c.tool, c.args, relative) })
		}
	}
}

// swapCase runs one tool call with d swapped for a link to the outside
// folder (an absolute or a relative link) right after the resolution.
func swapCase(t *testing.T, tool string, args m, relative bool) {
	f := newFixture(t)
	f.Write("d/f.txt", "inside\n")
	f.Write("top.txt", "top\n")
	secret := filepath.Join(f.Outside, "f.txt")
	require.NoError(t, os.WriteFile(secret, []byte("SECRET\n"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(f.Outside, "SECRET-name"), nil, 0o600))
	f.Env.SkipReadCheck = true
	var once sync.Once
	tools.SetTestHookBeforeOpen(func(string) {
		once.Do(func() {
			d := filepath.Join(f.Root, "d")
			require.NoError(t, os.Rename(d, d+".orig"))
			target := f.Outside
			if relative {
				target = filepath.Join("..", filepath.Base(f.Outside))
			}
			require.NoError(t, os.Symlink(target, d))
		})
	})
	t.Cleanup(func() { tools.SetTestHookBeforeOpen(nil) })
	r := f.Call(tool, args)
	require.NotContains(t, r.Output+r.Error, "SECRET", "%s read through the swapped link", tool)
	entries, err := os.ReadDir(f.Outside)
	require.NoError(t, err)
	require.Len(t, entries, 2, "%s created something outside: %v (%s)", tool, entries, r.Output)
	b, err := os.ReadFile(secret)
	require.NoError(t, err, "%s removed the outside file", tool)
	require.Equal(t, "SECRET\n", string(b), "%s changed the outside file", tool)
	require.False(t, r.OK && strings.Contains(tool, "read"), "%s succeeded through the swapped link: %s", tool, r.Output)
	require.NoError(t, filepath.WalkDir(f.Root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			b, _ := os.ReadFile(p)
			require.NotContains(t, string(b), "SECRET", "%s copied the outside file into %s", tool, p)
		}
		return err
	}))
}
