package checkpoint

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// open makes a workspace and its shadow repository in temp dirs.
func open(t testing.TB, maxSize int64) (*Repo, string) {
	t.Helper()
	ws := t.TempDir()
	r, err := Open(context.Background(), Options{StateDir: t.TempDir(), Workspace: ws, MaxFileSize: maxSize})
	require.NoError(t, err)
	return r, r.Workspace()
}

// write creates rel under ws with content and mode.
func write(t testing.TB, ws, rel, content string, mode fs.FileMode) {
	t.Helper()
	p := filepath.Join(ws, filepath.FromSlash(rel))
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(content), mode))
	require.NoError(t, os.Chmod(p, mode))
}

// state maps every path under dir (folders too, .git included) to its
// mode and content hash (a symbolic link: its target).
func state(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		rel, _ := filepath.Rel(dir, p)
		fi, err := os.Lstat(p)
		require.NoError(t, err)
		v := fi.Mode().String()
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			require.NoError(t, err)
			v += " -> " + target
		case fi.Mode().IsRegular():
			data, err := os.ReadFile(p)
			require.NoError(t, err)
			sum := sha256.Sum256(data)
			v += " " + hex.EncodeToString(sum[:])
		}
		out[rel] = v
		return nil
	}))
	return out
}

func read(t testing.TB, ws, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(ws, filepath.FromSlash(rel)))
	require.NoError(t, err)
	return string(data)
}

// gitIn runs the user's git in dir (no global or system config).
func gitIn(t testing.TB, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "core.hooksPath=/dev/null"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
}
