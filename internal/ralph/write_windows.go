//go:build windows

package ralph

import (
	"os"
	"path/filepath"
)

// writeFileAtomic replaces path with data via a temporary file in the same
// folder, fsync and os.Rename (MoveFileEx with MOVEFILE_REPLACE_EXISTING);
// renameio does not support Windows.
func writeFileAtomic(path string, data []byte, perm os.FileMode) error {
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
	_ = os.Chmod(name, perm)
	return os.Rename(name, path)
}
