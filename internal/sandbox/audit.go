package sandbox

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/zelvior/aidex/internal/gitdir"
)

// maxRestoreSize is the largest guarded file whose content the audit
// keeps to restore it where no read-only bind holds it (Landlock only).
const maxRestoreSize = 256 << 10

// stamp is what the audit knows of a path before a command.
type stamp struct {
	exists  bool
	dir     bool
	size    int64
	mtime   time.Time
	entries []string // a folder's names (Landlock only: no bind holds it)
	content []byte   // a small file's bytes (Landlock only)
}

// auditor checks, after each sandboxed command, what no mount can hold
// by itself: a guard created where none existed (or, with Landlock only,
// any change to one), a new gitlink in a repository's index, a new
// nested git dir. It is safe for concurrent use.
type auditor struct {
	mu       sync.Mutex
	guards   []guard
	repos    []gitdir.Repo
	tree     *gitdir.Tree
	deep     bool               // no read-only binds: keep contents to restore them
	gitlinks map[string]linkSet // index path → its gitlinks at a stamp
	// pinDirs are the git dirs in writable folders that no bind pins
	// (deep): each command's snapshot pins them by descriptor.
	pinDirs []string
}

type linkSet struct {
	at    stamp
	links []string
	ok    bool // read: links are known
}

// readGitlinks records r's gitlinks as of st.
func (a *auditor) readGitlinks(r gitdir.Repo, st stamp) {
	links, err := r.Gitlinks()
	a.gitlinks[filepath.Join(r.GitDir, "index")] = linkSet{at: st, links: links, ok: err == nil}
}

func sameStamp(a, b stamp) bool {
	return a.exists == b.exists && a.size == b.size && a.mtime.Equal(b.mtime)
}

// Snapshot is the state a command started from (Sandbox.Begin).
type Snapshot struct {
	a      *auditor
	guards map[string]stamp
	index  map[string]stamp
	top    map[string][]string // git dir → its entries' names, sorted
	pins   []*pin              // the git dirs no bind pins (Landlock alone)
}

// Begin records the state a sandboxed command must leave as it is; call
// End on the result once the command and every process it started have
// ended. Without a writable workspace it records nothing.
func (s *Sandbox) Begin() *Snapshot {
	a := s.audit
	if a == nil {
		return nil
	}
	snap := &Snapshot{a: a, guards: map[string]stamp{}, index: map[string]stamp{}, top: map[string][]string{}}
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, d := range a.pinDirs {
		if p := newPin(d); p != nil {
			snap.pins = append(snap.pins, p)
		}
	}
	lists := a.gitDirLists()
	for _, g := range a.guards {
		snap.guards[g.path] = a.stampIn(g, lists)
	}
	for _, r := range a.repos {
		idx := filepath.Join(r.GitDir, "index")
		st := a.stampOf(idx, false)
		snap.index[idx] = st
		if c, ok := a.gitlinks[idx]; !ok || !sameStamp(c.at, st) {
			a.readGitlinks(r, st) // the user's own git changed it since
		}
		for _, g := range gitDirsOf(r) {
			snap.top[g] = lists[g]
		}
	}
	return snap
}

// gitDirLists returns the sorted names in each repository's git dirs
// that could be read.
func (a *auditor) gitDirLists() map[string][]string {
	lists := map[string][]string{}
	for _, r := range a.repos {
		for _, g := range gitDirsOf(r) {
			if l, ok := listing(g); ok {
				lists[g] = l
			}
		}
	}
	return lists
}

// stampIn is stampOf, but with read-only binds (not deep) only whether g
// exists matters, and for an entry at the top of a git dir that is known
// from the git dir's listing (one read of a small folder instead of an
// lstat per entry).
func (a *auditor) stampIn(g guard, lists map[string][]string) stamp {
	if !a.deep {
		if l, ok := lists[filepath.Dir(g.path)]; ok {
			_, found := slices.BinarySearch(l, filepath.Base(g.path))
			return stamp{exists: found}
		}
	}
	return a.stampOf(g.path, g.dir)
}

// End puts back a git dir the command moved and replaced (Landlock
// alone), reverts what the command changed of the guards, removes the
// gitlinks it added to an index and the git dirs it created, and returns
// one line per revert ("" none).
func (snap *Snapshot) End() []string {
	if snap == nil {
		return nil
	}
	a := snap.a
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []string
	for _, p := range snap.pins {
		if !p.holds() {
			if line := p.restore(); line != "" {
				out = append(out, line)
			}
		}
		p.close()
	}
	snap.pins = nil
	lists := a.gitDirLists()
	for _, g := range a.guards {
		if line := a.revertGuard(g, snap.guards[g.path], a.stampIn(g, lists)); line != "" {
			out = append(out, line)
		}
	}
	if len(out) > 0 {
		lists = a.gitDirLists() // what was reverted changed them
	}
	for _, r := range a.repos {
		out = append(out, a.revertGitlinks(r, snap.index[filepath.Join(r.GitDir, "index")])...)
		for _, g := range gitDirsOf(r) {
			out = append(out, revertNewConfig(g, snap.top[g], lists[g])...)
		}
	}
	if a.tree != nil {
		for _, d := range a.tree.Update() {
			p := filepath.Join(d, ".git")
			if a.isKnownRepo(d) {
				continue
			}
			if err := os.RemoveAll(p); err == nil {
				out = append(out, "removed "+p+", a git dir or pointer the command created (git would read its config and hooks); "+
					"create repositories with the git_init tool")
			}
		}
	}
	return out
}

// isKnownRepo reports whether d is the work tree of a repository the
// sandbox started with.
func (a *auditor) isKnownRepo(d string) bool {
	for _, r := range a.repos {
		if r.WorkTree == d {
			return true
		}
	}
	return false
}

func (a *auditor) stampOf(p string, dir bool) stamp {
	fi, err := os.Lstat(p)
	if err != nil {
		return stamp{}
	}
	st := stamp{exists: true, dir: fi.IsDir(), size: fi.Size(), mtime: fi.ModTime()}
	if !a.deep {
		return st
	}
	switch {
	case st.dir:
		if d, err := os.Open(p); err == nil {
			st.entries, _ = d.Readdirnames(-1)
			d.Close()
			slices.Sort(st.entries)
		}
	case fi.Mode().IsRegular() && fi.Size() <= maxRestoreSize:
		st.content, _ = os.ReadFile(p)
	}
	return st
}

// revertGuard puts g back as it was before the command (g is now as now
// says); it returns a line naming what it did, or "".
func (a *auditor) revertGuard(g guard, before, now stamp) string {
	switch {
	case !before.exists && !now.exists:
		return ""
	case !before.exists:
		if err := os.RemoveAll(g.path); err != nil {
			return "could not remove " + g.path + " (" + g.why + "), which the command created: " + err.Error()
		}
		return "removed " + g.path + ", which the command created: " + g.why
	case !a.deep:
		return "" // held read-only by a bind
	case before.dir:
		var added []string
		for _, n := range now.entries {
			if _, found := slices.BinarySearch(before.entries, n); !found {
				added = append(added, n)
				_ = os.RemoveAll(filepath.Join(g.path, n))
			}
		}
		if len(added) > 0 {
			return "removed " + strings.Join(added, ", ") + " from " + g.path + " (" + g.why + "), which the command created"
		}
	case before.content != nil && (!now.exists || !bytes.Equal(before.content, readOrNil(g.path))):
		if err := os.WriteFile(g.path, before.content, 0o644); err != nil {
			return "could not restore " + g.path + " (" + g.why + "): " + err.Error()
		}
		return "restored " + g.path + ", which the command changed: " + g.why
	}
	return ""
}

func readOrNil(p string) []byte {
	b, _ := os.ReadFile(p)
	return b
}

// revertGitlinks removes from r's index the gitlinks (submodule
// entries, which make the user's git enter a nested repository and run
// what its config says) that the command added.
func (a *auditor) revertGitlinks(r gitdir.Repo, before stamp) []string {
	idx := filepath.Join(r.GitDir, "index")
	now := a.stampOf(idx, false)
	old := a.gitlinks[idx]
	if !now.exists || sameStamp(now, before) {
		return nil
	}
	links, err := r.Gitlinks()
	if err != nil || !old.ok {
		a.readGitlinks(r, now)
		return nil
	}
	var out []string
	for _, l := range links {
		if slices.Contains(old.links, l) {
			continue
		}
		if err := aidexGit(r, "rm", "--cached", "-q", "--ignore-unmatch", "--", l); err != nil {
			out = append(out, "could not remove the gitlink "+l+" the command added to "+idx+": "+err.Error())
			continue
		}
		out = append(out, "removed the gitlink "+l+" the command added to the index (git would enter that repository and run what its config says)")
	}
	a.readGitlinks(r, a.stampOf(idx, false))
	return out
}

// aidexGit runs git on r as aidex's own git: the repository named, no
// config but its own with every program key of gitdir.AlwaysConfig
// neutralised, no hooks.
func aidexGit(r gitdir.Repo, args ...string) error {
	argv := []string{"--no-pager"}
	for _, kv := range gitdir.AlwaysConfig() {
		argv = append(argv, "-c", kv[0]+"="+kv[1])
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", append(argv, args...)...)
	cmd.Dir = r.WorkTree
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + os.DevNull,
		"GIT_TERMINAL_PROMPT=0", "LC_ALL=C"}, r.Environ()...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return &gitError{msg: strings.TrimSpace(string(out)), err: err}
	}
	return nil
}

type gitError struct {
	msg string
	err error
}

func (e *gitError) Error() string { return e.err.Error() + ": " + e.msg }
func (e *gitError) Unwrap() error { return e.err }

// newAuditor returns the auditor of plan f; deep keeps the guards'
// contents (no read-only binds hold them).
func newAuditor(f fixedPlan, deep bool) *auditor {
	a := &auditor{guards: f.guards, repos: f.repos, tree: f.tree, deep: deep, gitlinks: map[string]linkSet{}}
	for _, r := range f.repos {
		a.readGitlinks(r, a.stampOf(filepath.Join(r.GitDir, "index"), false))
		for _, g := range gitDirsOf(r) {
			if deep && f.isWritable(g) {
				a.pinDirs = append(a.pinDirs, g)
			}
		}
	}
	return a
}

// gitDirsOf returns r's git dir and, when another, its common dir.
func gitDirsOf(r gitdir.Repo) []string {
	if r.CommonDir != r.GitDir {
		return []string{r.GitDir, r.CommonDir}
	}
	return []string{r.GitDir}
}

// names returns the sorted names in folder d (nil when it cannot be
// read).
func names(d string) []string {
	n, _ := listing(d)
	return n
}

// revertNewConfig removes the entries of git dir g (now: its names) that
// were not in before and that git reads as configuration or pointers
// (gitdir.Classify: config.*, commondir, ...).
func revertNewConfig(g string, before, now []string) []string {
	if before == nil {
		return nil
	}
	var out []string
	for _, n := range now {
		if _, found := slices.BinarySearch(before, n); found {
			continue
		}
		if e, ok := gitdir.Classify(n); ok {
			p := filepath.Join(g, n)
			if err := os.RemoveAll(p); err == nil {
				out = append(out, "removed "+p+", which the command created: "+e.Why)
			}
		}
	}
	return out
}
