package checkpoint

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// tipFile (in the shadow repository) holds the last snapshot's commit
// and tree ids; tipRef keeps every snapshot reachable (each commit's
// parent is the one before).
const (
	tipFile = "aidex-tip"
	tipRef  = "refs/heads/checkpoints"
)

// Snapshot records the workspace as it is now and returns the commit id
// (40 hex digits) that names the snapshot. When nothing changed since the
// last snapshot, that snapshot's commit is returned. message describes
// the snapshot in the shadow history. Errors: git's, the lock's.
func (r *Repo) Snapshot(ctx context.Context, message string) (string, error) {
	var commit string
	err := r.locked(ctx, func() error {
		tip, tipTree, tipModes := r.readTip()
		tree, m, changed, err := r.refresh(ctx)
		if err != nil {
			return err
		}
		blob := tipModes
		if changed || tip == "" {
			if blob, err = r.modesBlob(ctx, m); err != nil {
				return err
			}
		}
		if tip != "" && tree == tipTree && blob == tipModes {
			commit = tip
			return nil
		}
		if blob != "" {
			message += "\n\n" + modesTrailer + blob
		}
		args := []string{"commit-tree", tree, "-m", message}
		if tip != "" {
			args = append(args, "-p", tip)
		}
		out, err := r.run(ctx, nil, args...)
		if err != nil {
			return err
		}
		commit = strings.TrimSpace(string(out))
		if err := r.writeTip(commit, tree, blob); err != nil {
			return err
		}
		r.maybePack(ctx, commit)
		return nil
	})
	return commit, err
}

// maybePack lets git pack the loose objects of the snapshots once there
// are many (git gc --auto: a cheap count, a repack in the background past
// 6,700 loose objects); it runs after one commit in 16 (by commit id).
// Best effort: a failure only leaves the objects loose.
func (r *Repo) maybePack(ctx context.Context, commit string) {
	if !strings.HasPrefix(commit, "0") {
		return
	}
	_, _ = r.run(ctx, nil, "-c", "gc.auto=6700", "-c", "gc.autoDetach=true", "gc", "--auto", "--quiet")
}

// Tree returns the id of the tree the workspace has now (the shadow index
// brought up to date), without recording a snapshot.
func (r *Repo) Tree(ctx context.Context) (string, error) {
	var tree string
	err := r.locked(ctx, func() error {
		var err error
		tree, _, _, err = r.refresh(ctx)
		return err
	})
	return tree, err
}

// indexTreeFile (in the shadow repository) holds the tree id of the
// shadow index as last written, so a refresh that finds nothing changed
// needs no write-tree.
const indexTreeFile = "aidex-index-tree"

// refresh brings the shadow index up to date with the work tree (new,
// changed and deleted files; over-cap files dropped), and the map of
// permissions with it, and returns the index's tree. changed says the
// map changed. Call it holding the lock.
func (r *Repo) refresh(ctx context.Context) (tree string, m modes, changed bool, err error) {
	paths, err := r.candidates(ctx)
	if err != nil {
		return "", nil, false, err
	}
	if len(paths) > r.maxFiles {
		return "", nil, false, fmt.Errorf("%w: %d files are new or changed since the last checkpoint of %s (the limit is %d); "+
			"list dependency and build folders in .gitignore", ErrTooLarge, len(paths), r.workTree, r.maxFiles)
	}
	m = r.loadModes()
	indexTree := filepath.Join(r.gitDir, indexTreeFile)
	if len(paths) == 0 {
		if data, err := os.ReadFile(indexTree); err == nil && len(bytes.TrimSpace(data)) > 0 {
			return string(bytes.TrimSpace(data)), m, false, nil
		}
	}
	_ = os.Remove(indexTree) // stale from here until the new tree is written
	if changed, err = r.update(ctx, paths, m); err != nil {
		return "", nil, false, err
	}
	if changed {
		if err := r.saveModes(m); err != nil {
			return "", nil, false, err
		}
	}
	out, err := r.run(ctx, nil, "write-tree", "--missing-ok")
	if err != nil {
		return "", nil, false, err
	}
	tree = strings.TrimSpace(string(out))
	if err := writeState(indexTree, []byte(tree+"\n"), 0o600); err != nil {
		return "", nil, false, fmt.Errorf("checkpoints: %w", err)
	}
	return tree, m, changed, nil
}

// candidates lists the paths that may differ from the shadow index:
// changed or deleted since (git diff-files, by their stat data) and not
// yet in it (git ls-files --others, ignore rules applied), the two run
// at once. Nested repositories ("sub/") are left out.
func (r *Repo) candidates(ctx context.Context) ([]string, error) {
	var others []byte
	var othersErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		others, othersErr = r.run(ctx, nil, "ls-files", "-z", "--others", "--exclude-standard")
	}()
	changed, err := r.run(ctx, nil, "diff-files", "--name-only", "--no-renames", "-z")
	<-done
	if err != nil {
		return nil, err
	}
	if othersErr != nil {
		return nil, othersErr
	}
	var out []string
	seen := map[string]bool{}
	for _, p := range strings.Split(string(changed)+"\x00"+string(others), "\x00") {
		if p == "" || seen[p] || strings.HasSuffix(p, "/") {
			continue
		}
		seen[p] = true
		out = append(out, p)
	}
	return out, nil
}

// update adds, re-adds or drops paths in the shadow index (over-cap
// files and files gone or beyond a symbolic link are dropped), noting
// their permissions in m; changed says m changed.
func (r *Repo) update(ctx context.Context, paths []string, m modes) (changed bool, err error) {
	var add, drop []byte
	for _, p := range paths {
		fi, err := os.Lstat(filepath.Join(r.workTree, filepath.FromSlash(p)))
		if err != nil || r.checkParents(p) != nil {
			fi = nil
		}
		if fi == nil || (fi.Mode().IsRegular() && fi.Size() > r.maxSize) {
			drop = append(append(drop, p...), 0)
			changed = m.note(p, nil) || changed
			continue
		}
		add = append(append(add, p...), 0)
		changed = m.note(p, fi) || changed
	}
	if len(add) > 0 {
		if _, err := r.run(ctx, add, "update-index", "-z", "--add", "--remove", "--replace", "--stdin"); err != nil {
			return false, err
		}
	}
	if len(drop) > 0 {
		if _, err := r.run(ctx, drop, "update-index", "-z", "--force-remove", "--stdin"); err != nil {
			return false, err
		}
	}
	return changed, nil
}

// readTip returns the last snapshot's commit, tree and permissions
// blob ("" before the first; the blob "" when the map was empty).
func (r *Repo) readTip() (commit, tree, modesBlob string) {
	data, err := os.ReadFile(filepath.Join(r.gitDir, tipFile))
	if err != nil {
		return "", "", ""
	}
	f := strings.Fields(string(data))
	switch len(f) {
	case 2:
		return f[0], f[1], ""
	case 3:
		return f[0], f[1], f[2]
	}
	return "", "", ""
}

// writeTip records commit (of tree, with permissions blob) as the last
// snapshot, in the tip file and the branch that keeps the snapshots
// reachable.
func (r *Repo) writeTip(commit, tree, modesBlob string) error {
	ref := filepath.Join(r.gitDir, filepath.FromSlash(tipRef))
	if err := os.MkdirAll(filepath.Dir(ref), 0o700); err != nil {
		return fmt.Errorf("checkpoints: %w", err)
	}
	if err := writeState(ref, []byte(commit+"\n"), 0o600); err != nil {
		return fmt.Errorf("checkpoints: %w", err)
	}
	tip := strings.TrimSpace(commit + " " + tree + " " + modesBlob)
	if err := writeState(filepath.Join(r.gitDir, tipFile), []byte(tip+"\n"), 0o600); err != nil {
		return fmt.Errorf("checkpoints: %w", err)
	}
	return nil
}

// Changed returns the workspace-relative paths (slash-separated, sorted)
// that differ between snapshots from and to (commit ids); to "" compares
// with the workspace now. Errors: an unknown id, git's.
func (r *Repo) Changed(ctx context.Context, from, to string) ([]string, error) {
	if to == "" {
		tree, err := r.Tree(ctx)
		if err != nil {
			return nil, err
		}
		to = tree
	}
	if from == to {
		return nil, nil
	}
	out, err := r.run(ctx, nil, "diff-tree", "-r", "-z", "--no-renames", "--name-only", from, to)
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, p := range bytes.Split(out, []byte{0}) {
		if len(p) > 0 {
			paths = append(paths, string(p))
		}
	}
	return paths, nil
}

// Has reports whether commit is a snapshot of this repository.
func (r *Repo) Has(ctx context.Context, commit string) bool {
	_, err := r.run(ctx, nil, "cat-file", "-e", commit+"^{commit}")
	return err == nil
}

// errNotDir is reported for a restore blocked by a non-directory parent.
var errNotDir = errors.New("a parent is not a directory")

// checkParents returns an error when a parent of rel inside the work tree
// is a symbolic link or not a directory (a write would then land
// elsewhere); missing parents are fine.
func (r *Repo) checkParents(rel string) error {
	dir := r.workTree
	parts := strings.Split(rel, "/")
	for _, p := range parts[:len(parts)-1] {
		dir = filepath.Join(dir, p)
		fi, err := os.Lstat(dir)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s: parent %s is a symbolic link", rel, dir)
		}
		if !fi.IsDir() {
			return fmt.Errorf("%s: %w (%s)", rel, errNotDir, dir)
		}
	}
	return nil
}
