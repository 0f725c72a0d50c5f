//go:build windows

package config

import (
	"os"
	"path/filepath"
)

// atomicWrite replaces file with data (mode 0600) via a temporary file in the same folder,
// fsync and os.Rename (MoveFileEx with MOVEFILE_REPLACE_EXISTING). renameio does not
// support Windows.
func atomicWrite(file string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(file), "."+filepath.Base(file)+".tmp*")
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
	return os.Rename(name, file)
}
