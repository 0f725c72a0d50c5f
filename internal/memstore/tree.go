package memstore

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Limits of the memory file tree.
const (
	// MaxFileBytes caps one memory file (256 KiB): larger files are
	// neither written nor shown.
	MaxFileBytes = 256 << 10
	// maxListed caps the entries a directory view lists.
	maxListed = 200
	// maxViewDepth is how deep a directory view goes.
	maxViewDepth = 3
)

// projectMemoryDir is the directory of the project's saved entries
// relative to the workspace (and, before issue 23, of the memory tool's
// tree: see Migrate).
const projectMemoryDir = ".aidex/memory"

// openRoot opens dir below base through os.Root, so a symlink anywhere on
// the way that leads outside base is refused. With create it makes the
// missing directories; without it a missing dir gives (nil, nil).
func openRoot(base, dir string, create bool) (*os.Root, error) {
	b, err := os.OpenRoot(base)
	if err != nil {
		if !create && errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		if create && errors.Is(err, fs.ErrNotExist) {
			if err := os.MkdirAll(base, 0o755); err != nil {
				return nil, fmt.Errorf("create %s: %w", base, err)
			}
			b, err = os.OpenRoot(base)
		}
		if err != nil {
			return nil, fmt.Errorf("open %s: %w", base, err)
		}
	}
	defer b.Close()
	if dir == "." || dir == "" {
		return b.OpenRoot(".")
	}
	if create {
		if err := b.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("create %s: %w", filepath.Join(base, dir), err)
		}
	}
	r, err := b.OpenRoot(dir)
	if err != nil {
		if !create && errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("open %s: %w", filepath.Join(base, dir), err)
	}
	return r, nil
}

// writeAtomic writes data to name inside r: a temp file in the same
// directory renamed over name, so readers never see a partial file. The
// parent directories are created.
func writeAtomic(r *os.Root, name string, data []byte, perm os.FileMode) error {
	dir := path.Dir(name)
	if dir != "." {
		if err := r.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	tmp := path.Join(dir, tmpNamePrefix+randomHex(6))
	f, err := r.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = r.Rename(tmp, name)
	}
	if werr != nil {
		_ = r.Remove(tmp)
	}
	return werr
}

// randomHex returns 2n random hex digits.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b)
}

// tree is the memory file tree of one model family, rooted at the
// workspace's memory directory (see Dir).
type tree struct {
	root   string
	family string
}

// open opens the memory root; create makes it (and the family and shared
// directories). Without create a missing root gives (nil, nil).
func (t tree) open(create bool) (*os.Root, error) {
	if t.root == "" {
		return nil, errors.New("the memory tool has no directory (no state directory configured)")
	}
	r, err := openRoot(t.root, ".", create)
	if err != nil || r == nil {
		return nil, err
	}
	if create {
		for _, d := range []string{t.family, SharedDir} {
			if err := r.MkdirAll(d, 0o755); err != nil {
				r.Close()
				return nil, fmt.Errorf("create memory directory %s: %w", d, err)
			}
		}
	}
	return r, nil
}

// view shows a file with line numbers, or lists a directory (two levels).
func (t tree) view(p memPath) (string, error) {
	r, err := t.open(false)
	if err != nil {
		return "", err
	}
	if r == nil {
		if p.isRoot(t.family) {
			return t.emptyView(), nil
		}
		return "", notFound(p.virtual(t.family))
	}
	defer r.Close()
	if p.isRoot(t.family) {
		var b strings.Builder
		t.listDir(r, memPath{dir: t.family}, &b)
		t.listDir(r, memPath{dir: SharedDir}, &b)
		return b.String(), nil
	}
	fi, err := r.Stat(p.physical())
	if err != nil {
		return "", fsErr(err, p.virtual(t.family))
	}
	if fi.IsDir() {
		var b strings.Builder
		t.listDir(r, p, &b)
		return b.String(), nil
	}
	if fi.Size() > MaxFileBytes {
		return "", fmt.Errorf("%s is %d bytes, over the %d-byte limit of memory files; delete or rewrite it smaller", p.virtual(t.family), fi.Size(), MaxFileBytes)
	}
	data, err := r.ReadFile(p.physical())
	if err != nil {
		return "", fsErr(err, p.virtual(t.family))
	}
	return numbered(string(data)), nil
}

func (t tree) emptyView() string {
	return fmt.Sprintf("%s (empty)\n%s/%s (empty)\n", VirtualRoot, VirtualRoot, SharedDir)
}

// listDir writes the entries of directory p (up to maxViewDepth levels).
func (t tree) listDir(r *os.Root, p memPath, b *strings.Builder) {
	top := p.virtual(t.family)
	fmt.Fprintf(b, "%s/\n", top)
	base := p.physical()
	n := 0
	err := fs.WalkDir(r.FS(), base, func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			if name == base {
				return err
			}
			return nil
		}
		if name == base {
			return nil
		}
		rel := strings.TrimPrefix(name, base+"/")
		if p.isRoot(t.family) && rel == SharedDir {
			return fs.SkipDir // listed on its own
		}
		if strings.HasPrefix(d.Name(), tmpNamePrefix) {
			return nil
		}
		if n++; n > maxListed {
			return fs.SkipAll
		}
		depth := strings.Count(rel, "/") + 1
		indent := strings.Repeat("  ", depth)
		switch {
		case d.IsDir():
			fmt.Fprintf(b, "%s%s/\n", indent, d.Name())
			if depth >= maxViewDepth {
				return fs.SkipDir
			}
		case d.Type()&fs.ModeSymlink != 0:
			fmt.Fprintf(b, "%s%s (symlink)\n", indent, d.Name())
		default:
			size := int64(-1)
			if fi, err := d.Info(); err == nil {
				size = fi.Size()
			}
			fmt.Fprintf(b, "%s%s (%d bytes)\n", indent, d.Name(), size)
		}
		return nil
	})
	switch {
	case errors.Is(err, fs.ErrNotExist):
		b.WriteString("  (empty)\n")
	case err != nil:
		fmt.Fprintf(b, "  (cannot list: %v)\n", err)
	case n == 0:
		b.WriteString("  (empty)\n")
	case n > maxListed:
		fmt.Fprintf(b, "  ... (more than %d entries; view a subdirectory)\n", maxListed)
	}
}

// numbered prefixes each line with its 1-based number.
func numbered(s string) string {
	if s == "" {
		return "(empty file)\n"
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	var b strings.Builder
	for i, l := range lines {
		fmt.Fprintf(&b, "%6d\t%s", i+1, l)
		if !strings.HasSuffix(l, "\n") {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// create writes text to the file p, replacing it if it exists.
func (t tree) create(p memPath, text string) (string, error) {
	if p.rel == "" {
		return "", fmt.Errorf("%s is a directory: give a file path such as %s/notes.md", p.virtual(t.family), p.virtual(t.family))
	}
	if len(text) > MaxFileBytes {
		return "", fmt.Errorf("file_text is %d bytes, over the %d-byte limit of memory files; keep memories short", len(text), MaxFileBytes)
	}
	r, err := t.open(true)
	if err != nil {
		return "", err
	}
	defer r.Close()
	if fi, err := r.Stat(p.physical()); err == nil && fi.IsDir() {
		return "", fmt.Errorf("%s is a directory; choose a file name inside it", p.virtual(t.family))
	}
	if err := writeAtomic(r, p.physical(), []byte(text), 0o644); err != nil {
		return "", fmt.Errorf("write %s: %w", p.virtual(t.family), err)
	}
	return fmt.Sprintf("wrote %s (%d bytes)", p.virtual(t.family), len(text)), nil
}

// edit reads the file p, applies change and writes the result back.
func (t tree) edit(p memPath, change func(old string) (string, error)) error {
	r, err := t.open(false)
	if err != nil {
		return err
	}
	if r == nil {
		return notFound(p.virtual(t.family))
	}
	defer r.Close()
	fi, err := r.Stat(p.physical())
	if err != nil {
		return fsErr(err, p.virtual(t.family))
	}
	if fi.IsDir() {
		return fmt.Errorf("%s is a directory, not a file", p.virtual(t.family))
	}
	if fi.Size() > MaxFileBytes {
		return fmt.Errorf("%s is over the %d-byte limit of memory files", p.virtual(t.family), MaxFileBytes)
	}
	old, err := r.ReadFile(p.physical())
	if err != nil {
		return fsErr(err, p.virtual(t.family))
	}
	next, err := change(string(old))
	if err != nil {
		return err
	}
	if len(next) > MaxFileBytes {
		return fmt.Errorf("the result would be %d bytes, over the %d-byte limit of memory files", len(next), MaxFileBytes)
	}
	return writeAtomic(r, p.physical(), []byte(next), 0o644)
}

// strReplace replaces the single occurrence of oldStr in p with newStr.
func (t tree) strReplace(p memPath, oldStr, newStr string) (string, error) {
	if oldStr == "" {
		return "", errors.New("old_str is empty: give the exact text to replace")
	}
	v := p.virtual(t.family)
	err := t.edit(p, func(old string) (string, error) {
		switch n := strings.Count(old, oldStr); n {
		case 0:
			return "", fmt.Errorf("old_str was not found in %s: view the file and copy the text exactly", v)
		case 1:
			return strings.Replace(old, oldStr, newStr, 1), nil
		default:
			return "", fmt.Errorf("old_str occurs %d times in %s: include more surrounding text so it matches once", n, v)
		}
	})
	if err != nil {
		return "", err
	}
	return "edited " + v, nil
}

// insert puts text after line `line` of p (0 = at the top).
func (t tree) insert(p memPath, line int, text string) (string, error) {
	v := p.virtual(t.family)
	err := t.edit(p, func(old string) (string, error) {
		lines := strings.SplitAfter(old, "\n")
		if lines[len(lines)-1] == "" {
			lines = lines[:len(lines)-1]
		}
		if line < 0 || line > len(lines) {
			return "", fmt.Errorf("insert_line %d is out of range: %s has %d lines (use 0 to insert at the top)", line, v, len(lines))
		}
		if text != "" && !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		if line > 0 && !strings.HasSuffix(lines[line-1], "\n") {
			lines[line-1] += "\n"
		}
		return strings.Join(lines[:line], "") + text + strings.Join(lines[line:], ""), nil
	})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("inserted text after line %d of %s", line, v), nil
}

// remove deletes the file or directory p.
func (t tree) remove(p memPath) (string, error) {
	v := p.virtual(t.family)
	if p.rel == "" {
		return "", fmt.Errorf("%s itself cannot be deleted; delete the files inside it", v)
	}
	r, err := t.open(false)
	if err != nil {
		return "", err
	}
	if r == nil {
		return "", notFound(v)
	}
	defer r.Close()
	if _, err := r.Lstat(p.physical()); err != nil {
		return "", fsErr(err, v)
	}
	if err := r.RemoveAll(p.physical()); err != nil {
		return "", fmt.Errorf("delete %s: %w", v, err)
	}
	return "deleted " + v, nil
}

// rename moves from to to; to must not exist.
func (t tree) rename(from, to memPath) (string, error) {
	vf, vt := from.virtual(t.family), to.virtual(t.family)
	if from.rel == "" || to.rel == "" {
		return "", fmt.Errorf("cannot rename %s to %s: the memory directories themselves cannot be moved", vf, vt)
	}
	if to.physical() == from.physical() || strings.HasPrefix(to.physical(), from.physical()+"/") {
		return "", fmt.Errorf("cannot rename %s into itself (%s)", vf, vt)
	}
	r, err := t.open(false)
	if err != nil {
		return "", err
	}
	if r == nil {
		return "", notFound(vf)
	}
	defer r.Close()
	if _, err := r.Lstat(from.physical()); err != nil {
		return "", fsErr(err, vf)
	}
	if _, err := r.Lstat(to.physical()); err == nil {
		return "", fmt.Errorf("%s already exists: delete it first or choose another new_path", vt)
	}
	if d := path.Dir(to.physical()); d != "." {
		if err := r.MkdirAll(d, 0o755); err != nil {
			return "", fmt.Errorf("create %s: %w", d, err)
		}
	}
	if err := r.Rename(from.physical(), to.physical()); err != nil {
		return "", fmt.Errorf("rename %s to %s: %w", vf, vt, err)
	}
	return fmt.Sprintf("renamed %s to %s", vf, vt), nil
}

// errNotFound marks a missing memory file or directory.
var errNotFound = errors.New("not found")

func notFound(v string) error {
	return fmt.Errorf("%s does not exist: view %s to see what is there: %w", v, VirtualRoot, errNotFound)
}

// errEscape marks a path that leads out of the memory root through a
// symlink (refused by os.Root).
var errEscape = errors.New("leads outside the memory directory")

// fsErr turns an os.Root error into a model-facing error.
func fsErr(err error, v string) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return notFound(v)
	case strings.Contains(err.Error(), "escapes from parent"), strings.Contains(err.Error(), "path escapes"):
		return fmt.Errorf("%s %w (a symlink points outside it); refused", v, errEscape)
	}
	return fmt.Errorf("%s: %w", v, err)
}
