package permission

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/zelvior/aidex/internal/gitdir"
	"github.com/zelvior/aidex/internal/protect"
)

// homeProtected lists credential locations relative to the home directory
// (slash-separated). They are refused by Resolve unless the user granted
// the location itself (an allowed root at or below it).
var homeProtected = [...]string{
	".ssh", ".aws", ".gnupg", ".netrc", ".config/gcloud", ".azure", ".kube",
	".docker/config.json", ".git-credentials", ".config/gh", ".npmrc", ".pypirc",
	".password-store", ".local/share/keyrings", ".vault-token", ".pgpass",
	".terraform.d/credentials.tfrc.json", ".cargo/credentials", ".cargo/credentials.toml",
	".config/op", ".authinfo", ".authinfo.gpg",
}

// systemProtected lists absolute credential files refused everywhere.
var systemProtected = [...]string{
	"/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/etc/sudoers.d", "/etc/master.passwd",
}

// checkProtected refuses process-information and credential locations.
// p is the caller's path (for the message), abs an absolute clean path.
func (w *Workspace) checkProtected(p, abs string) *PathError {
	loc, what := w.protectedLocation(abs)
	if loc == "" || w.grantedAtOrBelow(loc) {
		return nil
	}
	return &PathError{
		Path: p,
		Reason: fmt.Sprintf("is a protected path (%s %s): aidex never reads or writes it unless the user "+
			"grants that location itself with --add-dir", loc, what),
		Rule: RuleProtected,
		Err:  ErrProtected,
	}
}

// grantedAtOrBelow reports whether the root or a granted dir is loc itself
// or lies inside it, i.e. the user explicitly chose that location.
func (w *Workspace) grantedAtOrBelow(loc string) bool {
	if within(loc, w.root) {
		return true
	}
	for _, d := range w.extra {
		if within(loc, d) {
			return true
		}
	}
	return false
}

// protectedLocation returns the protected location containing abs and a
// description, or "" when abs is not protected.
func (w *Workspace) protectedLocation(abs string) (string, string) {
	comps := splitComponents(abs[len(filepath.VolumeName(abs)):])
	if len(comps) >= 2 && comps[0] == "proc" && isProcPID(comps[1]) {
		return "/proc/" + comps[1], "exposes process memory, environment and file descriptors"
	}
	if len(comps) >= 2 && comps[0] == "dev" && (comps[1] == "fd" || comps[1] == "stdin") {
		return "/dev/" + comps[1], "exposes process file descriptors"
	}
	for _, s := range systemProtected {
		if withinFoldAlways(filepath.FromSlash(s), abs) {
			return filepath.FromSlash(s), "holds system credentials"
		}
	}
	if w.home != "" {
		for _, h := range homeProtected {
			loc := filepath.Join(w.home, filepath.FromSlash(h))
			if withinFoldAlways(loc, abs) {
				return loc, "holds credentials"
			}
		}
	}
	if !w.inAllowed(abs) && len(comps) > 0 && isCredentialFileName(comps[len(comps)-1]) {
		return abs, "looks like a credential file outside the workspace"
	}
	return "", ""
}

func isProcPID(c string) bool {
	if c == "self" || c == "thread-self" {
		return true
	}
	for _, r := range c {
		if r < '0' || r > '9' {
			return false
		}
	}
	return c != ""
}

// withinFoldAlways is within with case-insensitive component comparison on
// every OS (protected names must not be bypassed by case on macOS/Windows).
func withinFoldAlways(dir, p string) bool {
	return within(dir, p) || withinFold(dir, p)
}

// isCredentialFileName reports names that usually hold secrets.
func isCredentialFileName(name string) bool {
	n := strings.ToLower(name)
	switch {
	case n == ".env" || strings.HasPrefix(n, ".env."),
		strings.HasPrefix(n, "id_rsa"), strings.HasPrefix(n, "id_ed25519"),
		strings.HasPrefix(n, "id_ecdsa"), strings.HasPrefix(n, "id_dsa"),
		n == ".netrc", n == ".pgpass", n == "credentials", n == "credentials.json",
		n == ".htpasswd", n == ".git-credentials":
		return true
	}
	for _, ext := range [...]string{".pem", ".key", ".p12", ".pfx", ".keystore", ".jks"} {
		if strings.HasSuffix(n, ext) {
			return true
		}
	}
	return false
}

// IsProtectedWrite reports whether writing the absolute path abs must
// always ask the user, even in yolo mode: anything that is or lies in an
// entry of protect.Project at any depth (.git, .aidex, .mcp.json,
// .claude, .vscode, .envrc, ...; compared case-insensitively, with
// trailing dots and spaces ignored), the git dirs a ".git" file in the
// root points to ("gitdir: ..."), the hooks folder and included files of
// the root repository's own config, and aidex's own config files
// (WorkspaceOptions.ConfigFiles).
func (w *Workspace) IsProtectedWrite(abs string) bool { return w.ProtectedWriteReason(abs) != "" }

// ProtectedWriteReason is IsProtectedWrite with the reason: a few words
// naming what loads or runs the path ("" when it is not protected).
func (w *Workspace) ProtectedWriteReason(abs string) string {
	abs = filepath.Clean(abs)
	comps := splitComponents(abs[len(filepath.VolumeName(abs)):])
	for i, c := range comps {
		if c == "." || c == ".." {
			continue
		}
		if p, ok := protect.Lookup(c); ok && (p.Dir || i == len(comps)-1) {
			return p.Name + ": " + p.Why
		}
	}
	for _, f := range w.configFiles {
		if withinFoldAlways(f, abs) {
			return "aidex's own config"
		}
	}
	for _, gd := range w.gitdirTargets() {
		if withinFoldAlways(gd, abs) {
			return "the repository's git dir, hooks folder or included config: git runs what they name"
		}
	}
	return ""
}

// gitdirTargets returns the root repository's paths outside .git that
// configure it (gitdir.Find): the hooks folder its core.hooksPath names,
// the files its config includes, and, for a ".git" pointer file
// (worktrees, submodules), the git dir and common dir it resolves to
// when its target points back, or the target it names when it does not.
func (w *Workspace) gitdirTargets() []string {
	r := gitdir.Find(w.root)
	var out []string
	if r.HooksPath != "" {
		out = append(out, canonicalMaybe(r.HooksPath))
	}
	for _, inc := range r.Includes {
		out = append(out, canonicalMaybe(inc))
	}
	if r.Pointer != "" {
		out = append(out, canonicalMaybe(r.GitDir), canonicalMaybe(r.CommonDir))
	}
	if r.Refused != "" {
		out = append(out, canonicalMaybe(r.Refused))
	}
	return out
}

// gitDirNames are the entries git needs besides HEAD to take a directory
// for a git directory (objects/, refs/) and what it reads there (config,
// packed-refs).
var gitDirNames = [...]string{"config", "objects", "refs", "packed-refs"}

// GitDirLookalike returns why writing abs would make the workspace root
// look like a git directory, or "": git takes a directory holding a HEAD
// file, objects/ and refs/ for a (bare) repository and then reads its
// config, whose core.fsmonitor, pager and diff drivers run programs on
// the next `git status` or `git diff --no-index`, the user's own too. So
// <root>/HEAD is never written, and while the root holds a HEAD (a bare
// repository, or one written by other means) neither are <root>/config,
// <root>/packed-refs or anything in <root>/objects or <root>/refs. Names
// compare without case. A config/ directory is not affected unless HEAD
// is there; subdirectories are not affected (aidex runs git with
// safe.bareRepository=explicit, so it never takes one for a repository).
func (w *Workspace) GitDirLookalike(abs string) string {
	rel, err := filepath.Rel(w.root, filepath.Clean(abs))
	if err != nil || !filepath.IsLocal(rel) {
		return ""
	}
	comps := splitComponents(rel)
	if len(comps) == 0 {
		return ""
	}
	first := comps[0]
	if len(comps) == 1 && strings.EqualFold(first, "HEAD") {
		return "a HEAD file in the workspace root would make it look like a git directory, whose config git would then run programs from"
	}
	for _, n := range gitDirNames {
		if strings.EqualFold(first, n) && (len(comps) == 1 || n == "objects" || n == "refs") && w.rootHasHEAD() {
			return "the workspace root holds a HEAD file, and " + n + " beside it makes the root a git directory whose config git would run programs from"
		}
	}
	return ""
}

// rootHasHEAD reports whether the workspace root holds an entry named HEAD
// (in any case).
func (w *Workspace) rootHasHEAD() bool {
	entries, err := os.ReadDir(w.root)
	if err != nil {
		return true // fail closed
	}
	for _, e := range entries {
		if strings.EqualFold(e.Name(), "HEAD") {
			return true
		}
	}
	return false
}
