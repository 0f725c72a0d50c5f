package gitdir

import (
	"os"
	"path/filepath"
	"slices"
	"time"
)

// Tree is a record of the folders of a work tree and which of them hold
// a ".git" entry (a nested repository, a submodule's or a worktree's
// pointer). Update finds the ".git" entries created since: on Linux from
// inotify events (its cost is what changed), elsewhere or past the
// watch limit by a stat of every folder, reading only those whose
// modification time changed. It is not safe for concurrent use.
type Tree struct {
	root  string
	limit int
	dirs  map[string]dirStamp
	w     *watcher // inotify (Linux): Update then reads what changed
	// Complete reports that the walk saw every folder (false: more than
	// the limit; what lies beyond is not watched).
	Complete bool
}

type dirStamp struct {
	mtime time.Time
	git   bool
}

// ScanTree walks the folders beneath root (not into ".git" folders nor
// through symbolic links), at most limit of them (0: 200000).
func ScanTree(root string, limit int) *Tree {
	if limit <= 0 {
		limit = 200_000
	}
	t := &Tree{root: filepath.Clean(root), limit: limit, dirs: map[string]dirStamp{}, Complete: true}
	startWatcher(t)
	t.walk(t.root, nil)
	return t
}

// Nested returns the folders beneath the root (not the root itself) that
// hold a ".git" entry, sorted.
func (t *Tree) Nested() []string {
	var out []string
	for d, s := range t.dirs {
		if s.git && d != t.root {
			out = append(out, d)
		}
	}
	slices.Sort(out)
	return out
}

// Update stats every recorded folder again, reads those that changed and
// walks new ones; it returns the folders (the root included) that hold a
// ".git" entry they did not hold before, sorted.
func (t *Tree) Update() []string {
	if added, ok := t.updateWatched(); ok {
		slices.Sort(added)
		return added
	}
	var added []string
	for d, s := range t.dirs {
		fi, err := os.Lstat(d)
		if err != nil || !fi.IsDir() {
			delete(t.dirs, d)
			continue
		}
		if fi.ModTime().Equal(s.mtime) {
			continue
		}
		t.walk(d, &added)
	}
	slices.Sort(added)
	return added
}

// walk records d and the folders beneath it; a folder that now holds a
// ".git" entry it did not hold is appended to added (when not nil).
func (t *Tree) walk(d string, added *[]string) {
	fi, err := os.Lstat(d)
	if err != nil || !fi.IsDir() {
		return
	}
	if _, known := t.dirs[d]; !known {
		t.watch(d) // before reading it: nothing created meanwhile is missed
	}
	f, err := os.Open(d)
	if err != nil {
		return
	}
	entries, _ := f.ReadDir(-1)
	f.Close()
	old := t.dirs[d]
	s := dirStamp{mtime: fi.ModTime()}
	var subs []string
	for _, e := range entries {
		if e.Name() == ".git" {
			s.git = true
			continue
		}
		if e.IsDir() {
			subs = append(subs, filepath.Join(d, e.Name()))
		}
	}
	if s.git && !old.git && added != nil {
		*added = append(*added, d)
	}
	t.dirs[d] = s
	for _, sub := range subs {
		if _, ok := t.dirs[sub]; ok {
			continue // unchanged folders are checked by Update itself
		}
		if len(t.dirs) >= t.limit {
			t.Complete = false
			return
		}
		t.walk(sub, added)
	}
}
