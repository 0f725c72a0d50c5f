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

	"github.com/zelvior/aidex/internal/atomicfile"
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
		return r.writeTip(commit, tree, blob)
	})
	return commit, err
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

// refresh brings the shadow index up to date with the work tree (new,
// changed and deleted files; over-cap files dropped), and the map of
// permissions with it, and writes the index's tree. changed says the map
// changed. Call it holding the lock.
func (r *Repo) refresh(ctx context.Context) (tree string, m modes, changed bool, err error) {
	out, err := r.run(ctx, nil, "ls-files", "-z", "--others", "--modified", "--deleted", "--exclude-standard")
	if err != nil {
		return "", nil, false, err
	}
	m = r.loadModes()
	var update, drop []byte
	seen := map[string]bool{}
	for _, p := range strings.Split(string(out), "\x00") {
		if p == "" || seen[p] || strings.HasSuffix(p, "/") { // "sub/": a nested repository
			continue
		}
		seen[p] = true
		fi, err := os.Lstat(filepath.Join(r.workTree, filepath.FromSlash(p)))
		if err != nil || r.checkParents(p) != nil { // gone, or beyond a symbolic link now
			fi = nil
		}
		if fi == nil || (fi.Mode().IsRegular() && fi.Size() > r.maxSize) {
			drop = append(append(drop, p...), 0)
			changed = m.note(p, nil) || changed
			continue
		}
		update = append(append(update, p...), 0)
		changed = m.note(p, fi) || changed
	}
	if len(update) > 0 {
		if _, err := r.run(ctx, update, "update-index", "-z", "--add", "--remove", "--replace", "--stdin"); err != nil {
			return "", nil, false, err
		}
	}
	if len(drop) > 0 {
		if _, err := r.run(ctx, drop, "update-index", "-z", "--force-remove", "--stdin"); err != nil {
			return "", nil, false, err
		}
	}
	if changed {
		if err := r.saveModes(m); err != nil {
			return "", nil, false, err
		}
	}
	out, err = r.run(ctx, nil, "write-tree")
	if err != nil {
		return "", nil, false, err
	}
	return strings.TrimSpace(string(out)), m, changed, nil
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
	if err := atomicfile.WriteFile(ref, []byte(commit+"\n"), 0o600); err != nil {
		return fmt.Errorf("checkpoints: %w", err)
	}
	tip := strings.TrimSpace(commit + " " + tree + " " + modesBlob)
	if err := atomicfile.WriteFile(filepath.Join(r.gitDir, tipFile), []byte(tip+"\n"), 0o600); err != nil {
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
