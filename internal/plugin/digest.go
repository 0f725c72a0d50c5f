package plugin

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// The bounds of a plugin's folder: files and bytes [TreeDigest] hashes.
// A bigger plugin is an error, not an unbounded read.
const (
	MaxFiles = 10000
	MaxBytes = 256 << 20
)

// TreeDigest is "sha256:" and 64 hex digits over every file of root
// below it (a .git folder left out): each one's path relative to root,
// its kind (file, executable file, symbolic link, folder) and its bytes
// (a link's target text; links are not followed). Any change to what the
// plugin holds changes it. Errors: a file cannot be read; more than
// MaxFiles entries or MaxBytes bytes.
func TreeDigest(root string) (string, error) {
	h := sha256.New()
	files, total := 0, int64(0)
	err := filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if e.IsDir() && e.Name() == ".git" && path != root {
			return filepath.SkipDir
		}
		if files++; files > MaxFiles {
			return fmt.Errorf("more than %d files", MaxFiles)
		}
		fmt.Fprintf(h, "%d:%s;", len(rel), filepath.ToSlash(rel))
		switch {
		case e.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(path)
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "link %d:%s;", len(target), target)
		case e.IsDir():
			fmt.Fprint(h, "dir;")
		case e.Type().IsRegular():
			n, err := hashFile(h, path, MaxBytes-total)
			if err != nil {
				return err
			}
			total += n
		default:
			fmt.Fprintf(h, "other %v;", e.Type())
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("plugin: hash %s: %w", root, err)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// hashFile writes a file's mode, size and at most budget bytes to h.
func hashFile(h io.Writer, path string, budget int64) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	if st.Size() > budget {
		return 0, fmt.Errorf("over %d bytes in all", MaxBytes)
	}
	exec := st.Mode().Perm()&0o111 != 0
	fmt.Fprintf(h, "file exec=%v %d;", exec, st.Size())
	return io.Copy(h, io.LimitReader(f, st.Size()))
}
