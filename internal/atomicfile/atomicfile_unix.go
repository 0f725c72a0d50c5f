//go:build !windows

package atomicfile

import (
	"io/fs"

	"github.com/google/renameio/v2"
)

// WriteFile replaces path with data, created with perm when new (an
// existing file's mode is kept by renameio only when perm says so: pass
// the mode to keep). Errors are the file system's, wrapped by renameio.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	return renameio.WriteFile(path, data, perm)
}

// WritePrivate replaces path with data readable and writable only by the
// user (0600), whatever the mode of the file it replaces (a secret must
// not inherit a wider mode). Errors are the file system's.
func WritePrivate(path string, data []byte) error {
	t, err := renameio.NewPendingFile(path, renameio.WithStaticPermissions(0o600))
	if err != nil {
		return err
	}
	defer t.Cleanup()
	if _, err := t.Write(data); err != nil {
		return err
	}
	return t.CloseAtomicallyReplace()
}
