package tools

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// The file operations of the tools on paths returned by Env.Resolve.
//
// Resolve checks where a path leads, then the tool opens it; a symlink
// swapped into the path in between would make the open escape the
// workspace. So every operation here resolves and acts in one step
// through os.Root, opened at the workspace root or the granted directory
// (ExtraDirs) that holds the path: the kernel-level walk refuses a
// symlink or ".." that leads out of that directory at the moment of the
// open (openat2 RESOLVE_BENEATH on Linux, an equivalent walk elsewhere).
// With an unconfined workspace the root is the file system root.

// testHookBeforeOpen, when set (tests), runs between the resolution of a
// path and each operation on it: the window a swapped symlink would use.
var testHookBeforeOpen func(abs string)

// ExtraDirser is the optional part of a Resolver that lists the
// directories the user granted besides the root.
type ExtraDirser interface{ ExtraDirs() []string }

// Unconfineder is the optional part of a Resolver that reports that
// confinement is off.
type Unconfineder interface{ Unconfined() bool }

// errNotConfined is returned for a path outside every confinement root (a
// path not returned by Resolve).
var errNotConfined = errors.New("the path is outside the workspace")

// openRoot opens the os.Root of the confinement root holding abs and
// returns abs relative to it.
func (env *Env) openRoot(abs string) (*os.Root, string, error) {
	if env == nil || env.Workspace == nil {
		return nil, "", errors.New("internal error: no workspace configured for file tools")
	}
	if testHookBeforeOpen != nil {
		testHookBeforeOpen(abs)
	}
	abs = filepath.Clean(abs)
	roots := []string{env.Workspace.Root()}
	if x, ok := env.Workspace.(ExtraDirser); ok {
		roots = append(roots, x.ExtraDirs()...)
	}
	best, rel := "", ""
	for _, r := range roots {
		if rr, err := filepath.Rel(r, abs); err == nil && filepath.IsLocal(rr) {
			if len(r) > len(best) {
				best, rel = r, rr
			}
		}
	}
	if best == "" {
		u, ok := env.Workspace.(Unconfineder)
		if !ok || !u.Unconfined() || !filepath.IsAbs(abs) {
			return nil, "", fmt.Errorf("%s: %w", abs, errNotConfined)
		}
		best = filepath.VolumeName(abs) + string(filepath.Separator)
		rel = abs[len(best):]
		if rel == "" {
			rel = "."
		}
	}
	root, err := os.OpenRoot(best)
	if err != nil {
		return nil, "", err
	}
	return root, rel, nil
}

// inRoot runs fn on the os.Root holding abs.
func (env *Env) inRoot(abs string, fn func(r *os.Root, rel string) error) error {
	r, rel, err := env.openRoot(abs)
	if err != nil {
		return err
	}
	defer r.Close()
	return fn(r, rel)
}

// Stat is os.Stat of abs, confined (it follows a final symlink that
// stays inside).
func (env *Env) Stat(abs string) (fi fs.FileInfo, err error) {
	err = env.inRoot(abs, func(r *os.Root, rel string) error { fi, err = r.Stat(rel); return err })
	return fi, err
}

// Lstat is os.Lstat of abs, confined.
func (env *Env) Lstat(abs string) (fi fs.FileInfo, err error) {
	err = env.inRoot(abs, func(r *os.Root, rel string) error { fi, err = r.Lstat(rel); return err })
	return fi, err
}

// ReadDir is os.ReadDir of abs, confined.
func (env *Env) ReadDir(abs string) (entries []fs.DirEntry, err error) {
	err = env.inRoot(abs, func(r *os.Root, rel string) error {
		f, err := r.Open(rel)
		if err != nil {
			return err
		}
		defer f.Close()
		entries, err = f.ReadDir(-1)
		return err
	})
	return entries, err
}

// ReadDirN reads at most n entries (n > 0) of the directory abs,
// confined, in directory order (unsorted), so that a directory of millions
// of entries costs no more than n. Errors are those of os.Root.Open and
// File.ReadDir; reaching the end is not one.
func (env *Env) ReadDirN(abs string, n int) (entries []fs.DirEntry, err error) {
	err = env.inRoot(abs, func(r *os.Root, rel string) error {
		f, err := r.Open(rel)
		if err != nil {
			return err
		}
		defer f.Close()
		for len(entries) < n {
			batch, err := f.ReadDir(min(n-len(entries), 1024))
			entries = append(entries, batch...)
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return err
			}
			if len(batch) == 0 {
				return nil
			}
		}
		return nil
	})
	return entries, err
}

// Readlink is os.Readlink of abs, confined.
func (env *Env) Readlink(abs string) (target string, err error) {
	err = env.inRoot(abs, func(r *os.Root, rel string) error { target, err = r.Readlink(rel); return err })
	return target, err
}

// MkdirAll is os.MkdirAll of abs, confined.
func (env *Env) MkdirAll(abs string, perm fs.FileMode) error {
	return env.inRoot(abs, func(r *os.Root, rel string) error { return r.MkdirAll(rel, perm) })
}

// Remove is os.Remove of abs (a file, a symlink itself or an empty
// directory), confined.
func (env *Env) Remove(abs string) error {
	return env.inRoot(abs, func(r *os.Root, rel string) error { return r.Remove(rel) })
}

// Rename is os.Rename of src to dst, confined. Paths under different
// confinement roots give an error wrapping syscall.EXDEV (copy and
// remove instead).
func (env *Env) Rename(src, dst string) error {
	return env.inRoot(src, func(r *os.Root, srel string) error {
		r2, drel, err := env.openRoot(dst)
		if err != nil {
			return err
		}
		defer r2.Close()
		if r2.Name() != r.Name() {
			return &os.LinkError{Op: "rename", Old: src, New: dst, Err: syscall.EXDEV}
		}
		return r.Rename(srel, drel)
	})
}

// ReadRegular opens abs (confined), checks that it is a regular file (it
// could have been swapped for a FIFO since a Stat) and reads at most
// MaxReadBytes.
func (env *Env) ReadRegular(abs string) (b []byte, fi fs.FileInfo, err error) {
	err = env.inRoot(abs, func(r *os.Root, rel string) error {
		f, err := r.Open(rel)
		if err != nil {
			return err
		}
		defer f.Close()
		if fi, err = f.Stat(); err != nil {
			return err
		}
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("not a regular file (%s)", fi.Mode().Type())
		}
		if b, err = io.ReadAll(io.LimitReader(f, MaxReadBytes+1)); err != nil {
			return err
		}
		if len(b) > MaxReadBytes {
			return fmt.Errorf("file grew past %d MiB while reading", MaxReadBytes>>20)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return b, fi, nil
}

// ReadHead opens abs (confined), checks that it is a regular file and
// reads at most n bytes of its start (to sniff its type without reading
// all of it). Errors: as ReadRegular's.
func (env *Env) ReadHead(abs string, n int64) ([]byte, error) {
	var b []byte
	err := env.inRoot(abs, func(r *os.Root, rel string) error {
		f, err := r.Open(rel)
		if err != nil {
			return err
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			return err
		}
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("not a regular file (%s)", fi.Mode().Type())
		}
		b, err = io.ReadAll(io.LimitReader(f, n))
		return err
	})
	return b, err
}

// CreateNew creates abs, which must not exist, with content (parent
// directories created), confined; on a write error the new file is
// removed.
func (env *Env) CreateNew(abs string, content []byte, perm fs.FileMode) error {
	return env.inRoot(abs, func(r *os.Root, rel string) error {
		if err := r.MkdirAll(filepath.Dir(rel), 0o755); err != nil {
			return err
		}
		f, err := r.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if err != nil {
			return err
		}
		_, err = f.Write(content)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			_ = r.Remove(rel) // best effort: do not leave a partial file
		}
		return err
	})
}

// WriteAtomic replaces abs with data, confined: a temporary file in the
// same directory, written and synced, then renamed over abs, so a reader
// sees the old content or the new and a crash leaves the old file. An
// existing file keeps its permission bits; a new one gets perm (less the
// umask).
func (env *Env) WriteAtomic(abs string, data []byte, perm fs.FileMode) error {
	return env.inRoot(abs, func(r *os.Root, rel string) error {
		mode, keep := perm, false
		if fi, err := r.Stat(rel); err == nil && fi.Mode().IsRegular() {
			mode, keep = fi.Mode().Perm(), true
		}
		var rnd [6]byte
		_, _ = rand.Read(rnd[:])
		tmp := filepath.Join(filepath.Dir(rel), "."+filepath.Base(rel)+".aidex-"+hex.EncodeToString(rnd[:]))
		f, err := r.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if err != nil {
			return err
		}
		err = writeSync(f, data, mode, keep)
		if err == nil {
			err = r.Rename(tmp, rel)
		}
		if err != nil {
			_ = r.Remove(tmp) // best effort: the old content is intact
		}
		return err
	})
}

// writeSync writes data to f, sets mode when keep, syncs and closes f.
func writeSync(f *os.File, data []byte, mode fs.FileMode, keep bool) error {
	_, err := f.Write(data)
	if err == nil && keep {
		err = f.Chmod(mode)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
