package ralph

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// controlIgnore lists Ralph's run-control files, which must not show up in
// the user's git status.
const controlIgnore = "# aidex: Ralph's run-control files\nralph.lock\nralph.run\nralph.stop\nralph.pause\nralph.workers\n"

// ensureControlDir creates dir (<workspace>/.aidex) and, when it has no
// .gitignore yet, one that ignores Ralph's run-control files. An existing
// .gitignore is never changed; a failure to write one is not an error (the
// files are harmless, only noisy).
func ensureControlDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	p := filepath.Join(dir, ".gitignore")
	if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			_, _ = f.WriteString(controlIgnore)
			_ = f.Close()
		}
	}
	return nil
}
