package gitdir

import (
	"os"
	"path/filepath"
	"strings"
)

// Repo is what Find learnt of a work tree's repository. Paths are
// absolute and clean; "" when absent.
type Repo struct {
	// WorkTree is the folder Find was given.
	WorkTree string
	// GitDir is the repository's git dir: WorkTree/.git, or the folder a
	// ".git" pointer file names when that folder points back.
	GitDir string
	// CommonDir holds the objects, refs and config: GitDir, or for a
	// linked worktree the main repository's git dir.
	CommonDir string
	// Linked reports that GitDir is a linked worktree's
	// (<CommonDir>/worktrees/<name>).
	Linked bool
	// Pointer is WorkTree/.git when it is a pointer file whose target
	// points back (a linked worktree or a submodule).
	Pointer string
	// Refused is the target of a ".git" pointer file that does not point
	// back: it is not this work tree's repository, and counts as outside
	// the workspace (never writable in the sandbox, a protected write).
	Refused string
	// Note says in one line why Refused was not followed ("" otherwise).
	Note string
	// HooksPath is the folder the repository's own config names in
	// core.hooksPath (resolved against WorkTree), "" when unset.
	HooksPath string
	// Includes are the files the repository's own config includes
	// (include.path, includeIf.*.path), resolved: git reads them as the
	// repository's config.
	Includes []string
	// Bare reports a bare repository (no work tree): WorkTree is its git
	// dir (a Ralph worker's clone of the coordinator's repository).
	Bare bool
}

// Exists reports whether Find found a repository.
func (r Repo) Exists() bool { return r.GitDir != "" }

// ConfigFiles returns the repository's own config files, existing or
// not: the common dir's config, the worktree's config.worktree (when
// GitDir is another folder, its config.worktree too), and the included
// files.
func (r Repo) ConfigFiles() []string {
	if !r.Exists() {
		return nil
	}
	out := []string{filepath.Join(r.CommonDir, "config"), filepath.Join(r.CommonDir, "config.worktree")}
	if r.GitDir != r.CommonDir {
		out = append(out, filepath.Join(r.GitDir, "config.worktree"))
	}
	return append(out, r.Includes...)
}

// Find resolves the repository whose work tree is workTree (absolute):
// workTree/.git as a folder, or as a pointer file followed when its
// target points back. It reads a few small files and never fails: a
// missing or unreadable repository gives a Repo without GitDir, a
// pointer that does not point back one with Refused and Note set.
func Find(workTree string) Repo {
	r := Repo{WorkTree: filepath.Clean(workTree)}
	dotgit := filepath.Join(r.WorkTree, ".git")
	fi, err := os.Lstat(dotgit)
	switch {
	case err != nil:
		return r
	case fi.IsDir():
		r.GitDir, r.CommonDir = dotgit, dotgit
	case fi.Mode().IsRegular():
		r.followPointer(dotgit, fi.Size())
	default: // a symbolic link or something stranger: git would follow it; aidex does not
		r.Refused = dotgit
		r.Note = dotgit + " is not a folder nor a pointer file, so aidex does not treat it as this folder's repository"
		return r
	}
	if r.GitDir == "" {
		return r
	}
	r.readConfig()
	return r
}

// followPointer reads the pointer file p and sets GitDir and CommonDir
// when its target points back, else Refused and Note.
func (r *Repo) followPointer(p string, size int64) {
	refuse := func(target, why string) {
		r.Refused = target
		r.Note = p + " points to " + target + ", which " + why +
			": aidex does not treat it as this folder's repository (sandboxed commands cannot write it)"
	}
	if size > MaxPointerSize {
		refuse(p, "is not a pointer file")
		return
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return
	}
	target, err := ParsePointer(b)
	if err != nil {
		refuse(p, "is not a git pointer ("+err.Error()+")")
		return
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(r.WorkTree, target)
	}
	target = filepath.Clean(target)
	if real, err := filepath.EvalSymlinks(target); err == nil {
		target = real
	}
	switch {
	case pointsBackAsWorktree(target, p):
		common := commonDir(target)
		if common == "" {
			refuse(target, "names no common dir inside whose worktrees/ folder it lies")
			return
		}
		r.GitDir, r.CommonDir, r.Linked = target, common, true
	case pointsBackAsSubmodule(target, r.WorkTree):
		r.GitDir, r.CommonDir = target, target
	default:
		refuse(target, "does not point back to this folder (no gitdir file nor core.worktree naming it)")
		return
	}
	r.Pointer = p
}

// pointsBackAsWorktree reports whether the linked worktree git dir g
// names the pointer file p in its gitdir file.
func pointsBackAsWorktree(g, p string) bool {
	b, err := readSmall(filepath.Join(g, "gitdir"))
	if err != nil {
		return false
	}
	back := strings.TrimSpace(string(b))
	if back == "" {
		return false
	}
	if !filepath.IsAbs(back) {
		back = filepath.Join(g, back)
	}
	return sameFile(back, p)
}

// pointsBackAsSubmodule reports whether the git dir g's own config names
// workTree in core.worktree.
func pointsBackAsSubmodule(g, workTree string) bool {
	wt := configValues(filepath.Join(g, "config"), "core.worktree")["core.worktree"]
	if len(wt) == 0 {
		return false
	}
	back := wt[len(wt)-1]
	if !filepath.IsAbs(back) {
		back = filepath.Join(g, back)
	}
	return sameFile(back, workTree)
}

// commonDir returns the common dir of the linked worktree git dir g: the
// folder its commondir file names, which must be the parent of g's
// worktrees/ folder; "" otherwise.
func commonDir(g string) string {
	b, err := readSmall(filepath.Join(g, "commondir"))
	if err != nil {
		return ""
	}
	c := strings.TrimSpace(string(b))
	if c == "" {
		return ""
	}
	if !filepath.IsAbs(c) {
		c = filepath.Join(g, c)
	}
	c = filepath.Clean(c)
	if !sameFile(filepath.Join(c, "worktrees"), filepath.Dir(g)) {
		return ""
	}
	if real, err := filepath.EvalSymlinks(c); err == nil {
		c = real
	}
	return c
}

// readConfig reads core.hooksPath and the includes of the repository's
// own config files.
func (r *Repo) readConfig() {
	home, _ := os.UserHomeDir()
	seen := map[string]bool{}
	files := r.ConfigFiles()
	for i := 0; i < len(files) && i < 32; i++ {
		f := files[i]
		if seen[f] {
			continue
		}
		seen[f] = true
		v := configValues(f, "core.hookspath", "include.path", "includeif.*.path")
		if hp := v["core.hookspath"]; len(hp) > 0 {
			r.HooksPath = resolveFrom(r.WorkTree, home, hp[len(hp)-1])
		}
		for _, inc := range append(v["include.path"], v["includeif.*.path"]...) {
			p := resolveFrom(filepath.Dir(f), home, inc)
			if p != "" && !seen[p] {
				r.Includes = append(r.Includes, p)
				files = append(files, p)
			}
		}
	}
}

// resolveFrom resolves a path from git config: "~/" is the home, a
// relative path is relative to base.
func resolveFrom(base, home, p string) string {
	switch {
	case p == "":
		return ""
	case strings.HasPrefix(p, "~/") && home != "":
		p = filepath.Join(home, p[2:])
	case !filepath.IsAbs(p):
		p = filepath.Join(base, p)
	}
	return filepath.Clean(p)
}

func readSmall(p string) ([]byte, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > MaxPointerSize {
		return nil, os.ErrInvalid
	}
	return os.ReadFile(p)
}

func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// DisabledGitDir is the GIT_DIR aidex's own git gets where the folder's
// ".git" is a pointer that does not point back: every git command then
// fails naming it, instead of using the folder the pointer names.
const DisabledGitDir = "/dev/null/aidex-refused-git-pointer-that-does-not-point-back"

// Discover finds the repository dir belongs to as git would: dir or its
// nearest parent holding a ".git" entry, resolved by Find (so a pointer
// that does not point back gives Refused). A Repo without GitDir nor
// Refused means no repository.
func Discover(dir string) Repo {
	if isBare(dir) {
		r := Repo{WorkTree: filepath.Clean(dir), GitDir: filepath.Clean(dir), CommonDir: filepath.Clean(dir), Bare: true}
		r.readConfig()
		return r
	}
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return Find(d)
		}
		if filepath.Dir(d) == d {
			return Repo{}
		}
	}
}

// Environ returns the variables that point aidex's own git at r and
// nothing else: GIT_DIR, GIT_COMMON_DIR and GIT_WORK_TREE for a
// repository; GIT_DIR=DisabledGitDir for a refused pointer; nil without
// a repository (git then finds none either).
func (r Repo) Environ() []string {
	switch {
	case r.Bare:
		return []string{"GIT_DIR=" + r.GitDir, "GIT_COMMON_DIR=" + r.CommonDir}
	case r.Exists():
		return []string{"GIT_DIR=" + r.GitDir, "GIT_COMMON_DIR=" + r.CommonDir, "GIT_WORK_TREE=" + r.WorkTree}
	case r.Refused != "":
		return []string{"GIT_DIR=" + DisabledGitDir}
	}
	return nil
}

// isBare reports whether dir itself is a bare repository, as git tells a
// git dir: a HEAD file and objects and refs folders, and no ".git" entry
// (a work tree's root is never taken for its own git dir).
func isBare(dir string) bool {
	if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
		return false
	}
	if fi, err := os.Lstat(filepath.Join(dir, "HEAD")); err != nil || !fi.Mode().IsRegular() {
		return false
	}
	for _, sub := range []string{"objects", "refs"} {
		if fi, err := os.Lstat(filepath.Join(dir, sub)); err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}
