//go:build !windows

package ralph

import (
	"os"

	"github.com/google/renameio/v2"
)

// writeFileAtomic replaces path with data via renameio: temp file in the
// same folder, fsync, rename.
func writeFileAtomic(path string, data []byte, perm os.FileMode) error {
	return renameio.WriteFile(path, data, perm)
}
