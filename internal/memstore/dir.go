package memstore

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/zelvior/aidex/internal/filelock"
)

// migratedMarker is the file Migrate leaves in a memory directory once
// the workspace's old tree was moved (or there was none).
const migratedMarker = ".migrated"

// Dir returns the memory tool's directory of a workspace: stateDir/memory/
// and the first 16 hex digits of the SHA-256 of the workspace's absolute
// path, holding one directory per model family and "shared". It is
// outside the workspace, so a repository can neither ship memories nor
// have them committed, and one workspace's memories are never another's.
// "" when stateDir is "".
func Dir(stateDir, workspace string) string {
	if stateDir == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(filepath.Clean(workspace)))
	return filepath.Join(stateDir, "memory", hex.EncodeToString(sum[:8]))
}

// LegacyDir is where the memory tool kept its tree before issue 23:
// <workspace>/.aidex/memory (family directories and shared/ beside the
// project's entries.jsonl).
func LegacyDir(workspace string) string {
	return filepath.Join(workspace, filepath.FromSlash(projectMemoryDir))
}

// Migrate moves the memory tool's tree of workspace from LegacyDir into
// root (Dir of the workspace), once: the directories below the legacy
// directory (family directories, shared/) move; entries.jsonl stays. A
// directory is renamed into place when root has none of that name (or
// copied and then renamed across file systems), else its files are moved
// in one by one, an existing file never overwritten. The legacy
// directories are removed, then a marker records the migration, so a
// crash at any point loses nothing and the next call finishes the work;
// once marked, Migrate does nothing. While another process holds the
// migration's file lock, Migrate returns at once without moving anything. It returns the number of directories moved.
//
// Call it only for a workspace the user trusts: a cloned repository could
// ship a .aidex/memory tree to plant memories.
func Migrate(workspace, root string) (int, error) {
	if root == "" {
		return 0, errors.New("memory: no memory directory to migrate to")
	}
	if _, err := os.Stat(filepath.Join(root, migratedMarker)); err == nil {
		return 0, nil
	}
	if err := os.MkdirAll(root, 0o700); err != nil {
		return 0, fmt.Errorf("memory: create %s: %w", root, err)
	}
	unlock, err := filelock.TryLock(filepath.Join(root, ".migrate.lock"), 0o600)
	if errors.Is(err, filelock.ErrLocked) {
		return 0, nil // another process is migrating it right now
	}
	if err != nil {
		return 0, fmt.Errorf("memory: lock %s: %w", root, err)
	}
	defer unlock()
	if _, err := os.Stat(filepath.Join(root, migratedMarker)); err == nil {
		return 0, nil // another process finished it
	}
	n, err := moveLegacy(LegacyDir(workspace), root)
	if err != nil {
		return n, err
	}
	if err := os.WriteFile(filepath.Join(root, migratedMarker), []byte(filepath.Clean(workspace)+"\n"), 0o600); err != nil {
		return n, fmt.Errorf("memory: mark %s migrated: %w", root, err)
	}
	return n, nil
}

// moveLegacy moves the directories of legacy into root.
func moveLegacy(legacy, root string) (int, error) {
	entries, err := os.ReadDir(legacy)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("memory: read %s: %w", legacy, err)
	}
	n := 0
	for _, e := range entries {
		if !e.IsDir() || e.Type()&fs.ModeSymlink != 0 {
			continue // entries.jsonl stays; a symlink is not followed
		}
		src, dst := filepath.Join(legacy, e.Name()), filepath.Join(root, e.Name())
		if err := moveTree(src, dst); err != nil {
			return n, fmt.Errorf("memory: move %s to %s: %w", src, dst, err)
		}
		n++
	}
	return n, nil
}

// moveTree moves directory src to dst: a rename when dst is missing,
// else file by file without overwriting; src is removed at the end.
func moveTree(src, dst string) error {
	if _, err := os.Lstat(dst); errors.Is(err, fs.ErrNotExist) {
		if os.Rename(src, dst) == nil {
			return nil
		}
		tmp := filepath.Join(filepath.Dir(dst), tmpNamePrefix+randomHex(6))
		if err := os.CopyFS(tmp, os.DirFS(src)); err != nil {
			_ = os.RemoveAll(tmp)
			return err
		}
		if err := os.Rename(tmp, dst); err != nil {
			_ = os.RemoveAll(tmp)
			return err
		}
		return os.RemoveAll(src)
	}
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !d.Type().IsRegular() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if _, err := os.Lstat(target); err == nil {
			return nil // never overwrite: the newer tree wins
		}
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		r, err := os.OpenRoot(filepath.Dir(target))
		if err != nil {
			return err
		}
		defer r.Close()
		return writeAtomic(r, filepath.Base(target), data, 0o644)
	})
	if err != nil {
		return err
	}
	return os.RemoveAll(src)
}
