//go:build windows

package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
)

// WriteFile replaces path with data via a temporary file in the same
// directory, fsync and os.Rename (MoveFileEx with
// MOVEFILE_REPLACE_EXISTING). perm applies to the new file.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	defer os.Remove(name) // no-op after a successful rename
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(name, perm); err != nil {
		return err
	}
	return os.Rename(name, path)
}

// WritePrivate replaces path with data, the new file created with mode
// 0600 (on Windows the file inherits its folder's access list). Errors
// are the file system's.
func WritePrivate(path string, data []byte) error {
	return WriteFile(path, data, 0o600)
}
