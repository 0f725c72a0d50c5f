package sandbox

import (
	"os"
	"path/filepath"

	"github.com/zelvior/aidex/internal/gitdir"
)

// A guard is a path a sandboxed command must never create, change,
// rename or remove: a git dir's configuration or pointer entry, a hooks
// folder, a project config file. Existing guards are bound read-only
// (with namespaces); every guard is checked after each command (audit.go)
// and a change is reverted.
type guard struct {
	path string
	why  string
	dir  bool
}

// maxTreeDirs bounds the folders of a workspace watched for new nested
// repositories (the first found).
const maxTreeDirs = 20_000

// addRepo protects the repository r (a writable folder's, or a nested
// one's) as one unit: its git dir is pinned (bound over itself, so that
// it cannot be renamed, replaced or removed) when it lies in a writable
// folder; the harmless missing entries of gitdir.Entries are created
// inside it (where `git status` never shows them) so that every entry can
// be held read-only; and the entries, the pointer file, the hooks folder
// of core.hooksPath and the files the config includes become guards.
func (f *fixedPlan) addRepo(r gitdir.Repo) {
	if r.Refused != "" {
		f.addGuard(guard{path: r.Refused, why: "a .git pointer names it without it pointing back, so it is not this folder's repository"})
	}
	if !r.Exists() {
		return
	}
	dirs := []string{r.GitDir}
	if r.CommonDir != r.GitDir {
		dirs = append(dirs, r.CommonDir)
	}
	for _, g := range dirs {
		if f.isWritable(g) {
			f.writable = appendUnique(f.writable, g) // pinned: a mount point cannot be renamed or removed
		}
		for _, e := range gitdir.Entries {
			p := filepath.Join(g, filepath.FromSlash(e.Name))
			if e.Placeholder && f.isWritable(g) {
				makePlaceholder(p, e.Dir)
			}
			f.addGuard(guard{path: p, why: "git's " + e.Name + ": " + e.Why, dir: e.Dir})
		}
	}
	if r.Pointer != "" {
		f.addGuard(guard{path: r.Pointer, why: "the .git pointer file: it tells git where the repository is"})
	}
	if r.HooksPath != "" {
		f.addGuard(guard{path: r.HooksPath, why: "the hooks folder the repository's core.hooksPath names: git runs its programs", dir: true})
	}
	for _, inc := range r.Includes {
		f.addGuard(guard{path: inc, why: "a file the repository's git config includes"})
	}
	f.repos = append(f.repos, r)
}

// makePlaceholder creates an empty folder or file at p when nothing is
// there; errors are ignored (the audit still guards p).
func makePlaceholder(p string, dir bool) {
	if _, err := os.Lstat(p); err == nil {
		return
	}
	if dir {
		_ = os.Mkdir(p, 0o755)
		return
	}
	if fh, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644); err == nil {
		fh.Close()
	}
}

// addGuard adds g; an existing guard is also bound read-only.
func (f *fixedPlan) addGuard(g guard) {
	g.path = filepath.Clean(g.path)
	for _, x := range f.guards {
		if x.path == g.path {
			return
		}
	}
	f.guards = append(f.guards, g)
	if _, err := os.Lstat(g.path); err == nil {
		f.protected = appendUnique(f.protected, g.path)
	}
}

// isWritable reports whether p lies in a writable folder.
func (f *fixedPlan) isWritable(p string) bool {
	for _, w := range f.writable {
		if within(p, w) {
			return true
		}
	}
	return false
}

// guardFor returns the guard p is or lies in.
func (f *fixedPlan) guardFor(p string) (guard, bool) {
	for _, g := range f.guards {
		if p == g.path || g.dir && within(p, g.path) {
			return g, true
		}
	}
	return guard{}, false
}
