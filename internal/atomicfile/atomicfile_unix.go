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
