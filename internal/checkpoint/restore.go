package checkpoint

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/zelvior/aidex/internal/atomicfile"
)

// Restored is what [Repo.Restore] did, as workspace-relative paths
// (slash-separated, sorted).
type Restored struct {
	// Written are the files put back (changed or deleted since the
	// snapshot); Deleted the files removed (new since it).
	Written, Deleted []string
	// Kept are files that differ from the snapshot but were left alone:
	// over the size cap, ignored now, or ignored by the snapshot's rules.
	Kept []string
}

// entry is one path of a tree difference: the snapshot's mode and blob
// (mode "000000" when the snapshot lacks the path).
type entry struct {
	path string
	mode string
	blob string
	// inCur says the workspace's state now has the path (it was
	// snapshotted as it is).
	inCur bool
}

// Restore puts the workspace back to snapshot commit: files changed or
// deleted since are written back (modes and symbolic links kept), and a
// file is removed only when the snapshot lacks it and the workspace's
// state now has it (new since) and the snapshot's ignore rules did not
// ignore it. Files over the size cap and ignored files are never touched;
// nested repositories neither. When some paths cannot be restored the
// others still are and the error names each failure. Errors: an unknown
// commit, git's, the file system's.
func (r *Repo) Restore(ctx context.Context, commit string) (Restored, error) {
	var res Restored
	err := r.locked(ctx, func() error {
		cur, _, _, err := r.refresh(ctx)
		if err != nil {
			return err
		}
		writes, deletes, err := r.treeDiff(ctx, cur, commit)
		if err != nil {
			return err
		}
		perms, err := r.commitModes(ctx, commit)
		if err != nil {
			return err
		}
		res, err = r.apply(ctx, writes, deletes, perms)
		return err
	})
	return res, err
}

// treeDiff lists what turns tree from into commit to: paths to write
// (with the snapshot's mode and blob) and paths to delete.
func (r *Repo) treeDiff(ctx context.Context, from, to string) (writes []entry, deletes []string, err error) {
	if !r.Has(ctx, to) {
		return nil, nil, fmt.Errorf("checkpoints: %s is not a snapshot of %s", to, r.workTree)
	}
	out, err := r.run(ctx, nil, "diff-tree", "-r", "-z", "--no-renames", "--raw", from, to)
	if err != nil {
		return nil, nil, err
	}
	fields := bytes.Split(out, []byte{0})
	for i := 0; i+1 < len(fields); i += 2 {
		meta := strings.Fields(strings.TrimPrefix(string(fields[i]), ":"))
		p := string(fields[i+1])
		if len(meta) != 5 {
			return nil, nil, fmt.Errorf("checkpoints: unexpected git diff-tree line %q", fields[i])
		}
		switch {
		case meta[1] == "160000" || (meta[0] == "160000" && meta[4] == "D"):
			continue // a nested repository: never touched
		case meta[4] == "D":
			deletes = append(deletes, p)
		default:
			writes = append(writes, entry{path: p, mode: meta[1], blob: meta[3], inCur: meta[0] != "000000"})
		}
	}
	return writes, deletes, nil
}

// apply writes and deletes, .gitignore files first (so the snapshot's
// ignore rules decide which new files are removed), then deletions, then
// the other writes.
func (r *Repo) apply(ctx context.Context, writes []entry, deletes []string, perms modes) (Restored, error) {
	var res Restored
	var errs []error
	isIgnoreFile := func(p string) bool { return path.Base(p) == ".gitignore" }
	first, rest := splitBy(writes, func(e entry) bool { return isIgnoreFile(e.path) })
	blobs, err := r.readBlobs(ctx, writes)
	if err != nil {
		return res, err
	}
	r.writeAll(first, blobs, perms, &res, &errs)
	ignored, err := r.ignored(ctx, deletes)
	if err != nil {
		return res, err
	}
	for _, p := range deletes {
		if ignored[p] {
			res.Kept = append(res.Kept, p)
			continue
		}
		if err := r.remove(p); err != nil {
			errs = append(errs, err)
			continue
		}
		res.Deleted = append(res.Deleted, p)
	}
	r.writeAll(rest, blobs, perms, &res, &errs)
	slices.Sort(res.Written)
	slices.Sort(res.Deleted)
	slices.Sort(res.Kept)
	if len(errs) > 0 {
		return res, fmt.Errorf("checkpoints: restore %s: %w", r.workTree, errors.Join(errs...))
	}
	return res, nil
}

func splitBy(es []entry, pred func(entry) bool) (yes, no []entry) {
	for _, e := range es {
		if pred(e) {
			yes = append(yes, e)
		} else {
			no = append(no, e)
		}
	}
	return yes, no
}

// writeAll writes each entry, recording what was written, kept or failed.
func (r *Repo) writeAll(es []entry, blobs map[string][]byte, perms modes, res *Restored, errs *[]error) {
	for _, e := range es {
		perm, ok := perms[e.path]
		if !ok {
			perm = 0o644
			if e.mode == "100755" {
				perm = 0o755
			}
		}
		wrote, err := r.write(e, blobs[e.blob], perm)
		switch {
		case err != nil:
			*errs = append(*errs, err)
		case wrote:
			res.Written = append(res.Written, e.path)
		default:
			res.Kept = append(res.Kept, e.path)
		}
	}
}

// ignored returns which of paths the work tree's ignore rules (the
// snapshot's .gitignore files, restored first) ignore.
func (r *Repo) ignored(ctx context.Context, paths []string) (map[string]bool, error) {
	out := map[string]bool{}
	if len(paths) == 0 {
		return out, nil
	}
	var in []byte
	for _, p := range paths {
		in = append(append(in, p...), 0)
	}
	got, err := r.run(ctx, in, "check-ignore", "--no-index", "-z", "--stdin")
	var ee interface{ ExitCode() int }
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) { // 1: none ignored
		return nil, err
	}
	for _, p := range bytes.Split(got, []byte{0}) {
		if len(p) > 0 {
			out[string(p)] = true
		}
	}
	return out, nil
}

// remove deletes the workspace file rel and then its parent folders that
// are left empty.
func (r *Repo) remove(rel string) error {
	if err := r.checkParents(rel); err != nil {
		return fmt.Errorf("remove %s: %w", rel, err)
	}
	abs := filepath.Join(r.workTree, filepath.FromSlash(rel))
	if fi, err := os.Lstat(abs); err == nil && fi.IsDir() {
		return nil // now a folder: what it holds is listed on its own
	}
	if err := os.Remove(abs); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove %s: %w", rel, err)
	}
	for dir := filepath.Dir(abs); dir != r.workTree && strings.HasPrefix(dir, r.workTree); dir = filepath.Dir(dir) {
		if os.Remove(dir) != nil {
			break // not empty (or gone): stop
		}
	}
	return nil
}

// write puts entry e back with content data and permissions perm. wrote is false when the
// workspace file was left alone: it exists but was not snapshotted now
// (over the size cap, or ignored).
func (r *Repo) write(e entry, data []byte, perm fs.FileMode) (wrote bool, err error) {
	if err := r.checkParents(e.path); err != nil {
		return false, fmt.Errorf("restore %s: %w", e.path, err)
	}
	abs := filepath.Join(r.workTree, filepath.FromSlash(e.path))
	fi, statErr := os.Lstat(abs)
	if statErr == nil && !fi.IsDir() && !e.inCur {
		return false, nil
	}
	if statErr == nil && fi.IsDir() {
		if err := os.Remove(abs); err != nil {
			return false, fmt.Errorf("restore %s: a folder is in its place and it is not empty: %w", e.path, err)
		}
		statErr = fs.ErrNotExist
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return false, fmt.Errorf("restore %s: %w", e.path, err)
	}
	if e.mode == "120000" {
		if statErr == nil {
			if err := os.Remove(abs); err != nil {
				return false, fmt.Errorf("restore %s: %w", e.path, err)
			}
		}
		if err := os.Symlink(string(data), abs); err != nil {
			return false, fmt.Errorf("restore %s: %w", e.path, err)
		}
		return true, nil
	}
	if err := atomicfile.WriteFile(abs, data, perm); err != nil {
		return false, fmt.Errorf("restore %s: %w", e.path, err)
	}
	if err := os.Chmod(abs, perm); err != nil {
		return false, fmt.Errorf("restore %s: %w", e.path, err)
	}
	return true, nil
}

// readBlobs reads the blobs of es with one git cat-file.
func (r *Repo) readBlobs(ctx context.Context, es []entry) (map[string][]byte, error) {
	out := map[string][]byte{}
	if len(es) == 0 {
		return out, nil
	}
	var in bytes.Buffer
	for _, e := range es {
		in.WriteString(e.blob + "\n")
	}
	raw, err := r.run(ctx, in.Bytes(), "cat-file", "--batch")
	if err != nil {
		return nil, err
	}
	br := bufio.NewReader(bytes.NewReader(raw))
	for {
		head, err := br.ReadString('\n')
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("checkpoints: read blobs: %w", err)
		}
		f := strings.Fields(head)
		if len(f) != 3 {
			return nil, fmt.Errorf("checkpoints: read blobs: unexpected header %q", head)
		}
		n, err := strconv.Atoi(f[2])
		if err != nil {
			return nil, fmt.Errorf("checkpoints: read blobs: unexpected header %q", head)
		}
		data := make([]byte, n+1) // the content and its newline
		if _, err := io.ReadFull(br, data); err != nil {
			return nil, fmt.Errorf("checkpoints: read blob %s: %w", f[0], err)
		}
		out[f[0]] = data[:n]
	}
}
