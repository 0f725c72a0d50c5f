package proc

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/zelvior/aidex/internal/gitdir"
)

// quickGitBinaries are the git programs whose system config file aidex
// knows without asking them: the distributions' and a source build's
// default prefixes.
var quickGitBinaries = [...]string{"/usr/bin/git", "/bin/git", "/usr/local/bin/git"}

// quickSystemConfigs are the system config files of quickGitBinaries'
// prefixes (sysconfdir /etc for /usr, prefix/etc otherwise). When more
// than one exists, git is asked.
var quickSystemConfigs = [...]string{"/etc/gitconfig", "/usr/local/etc/gitconfig", "/usr/etc/gitconfig"}

// untrustedConfigFiles returns the config files that git (bin, run in
// dir with environ) reads in the scopes RepoGitEnviron does not trust —
// the system config first (at most one file: the existing one of
// quickSystemConfigs; none with GIT_CONFIG_NOSYSTEM, which every
// environment aidex makes sets), then the repository's own config and worktree
// config — when it knows them for certain without running git, and ok
// false otherwise: for a git outside
// quickGitBinaries, when environ names another config (GIT_CONFIG,
// GIT_CONFIG_SYSTEM, GIT_CONFIG_PARAMETERS), when the repository is a
// linked worktree, a submodule or a bare repository, reached through a
// ".git" file or link, or not owned by this user (git's own checks then
// decide). It may find a repository git would not (past a ceiling or a
// file-system boundary): reading more files only makes the answer
// stricter.
func untrustedConfigFiles(bin, dir string, environ []string) ([]string, bool) {
	if !knownGit(bin) {
		return nil, false
	}
	for _, v := range [...]string{"GIT_CONFIG", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_PARAMETERS"} {
		if EnvValue(environ, v) != "" {
			return nil, false
		}
	}
	noSystem, ok := gitBool(EnvValue(environ, "GIT_CONFIG_NOSYSTEM"))
	if !ok {
		return nil, false
	}
	var files []string
	for _, f := range quickSystemConfigs {
		if !noSystem && exists(f) {
			files = append(files, f)
		}
	}
	if len(files) > 1 {
		return nil, false // which one git reads, and in which order, is git's to say
	}
	if gd := EnvValue(environ, "GIT_DIR"); gd != "" {
		return explicitGitDir(files, dir, gd, EnvValue(environ, "GIT_COMMON_DIR"))
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, false
	}
	for d := abs; ; d = filepath.Dir(d) {
		if filepath.Base(d) == ".git" || exists(filepath.Join(d, "HEAD")) {
			return nil, false // maybe inside a git dir, or a bare repository
		}
		dotgit := filepath.Join(d, ".git")
		fi, err := os.Lstat(dotgit)
		switch {
		case err == nil && fi.IsDir() && ownedByMe(fi) && ownedByMe(lstat(d)):
			return repoConfigs(files, dotgit, dotgit)
		case err == nil || !os.IsNotExist(err):
			return nil, false // a pointer file, a link, another owner, unreadable
		}
		if filepath.Dir(d) == d {
			return files, true // no repository: only the system config
		}
	}
}

// explicitGitDir is untrustedConfigFiles for a GIT_DIR the environment
// sets (relative paths are from dir).
func explicitGitDir(files []string, dir, gitDir, common string) ([]string, bool) {
	abs := func(p string) string {
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		return filepath.Clean(p)
	}
	gitDir = abs(gitDir)
	if fi := lstat(gitDir); fi == nil || !fi.IsDir() || !ownedByMe(fi) || !exists(filepath.Join(gitDir, "HEAD")) {
		return nil, false
	}
	if common == "" {
		if exists(filepath.Join(gitDir, "commondir")) {
			return nil, false
		}
		common = gitDir
	}
	return repoConfigs(files, gitDir, abs(common))
}

// repoConfigs appends the repository's own config files to files: the
// common dir's config and config.worktree, and the git dir's
// config.worktree (read whether extensions.worktreeConfig is set or
// not). A commondir file in a .git folder means a linked worktree's
// git dir: git's own reading decides then.
func repoConfigs(files []string, gitDir, common string) ([]string, bool) {
	if common == gitDir && exists(filepath.Join(gitDir, "commondir")) {
		return nil, false
	}
	out := append(append([]string(nil), files...), filepath.Join(common, "config"), filepath.Join(common, "config.worktree"))
	if gitDir != common {
		out = append(out, filepath.Join(gitDir, "config.worktree"))
	}
	return out, true
}

// gitBool reads a boolean environment variable as git does ("" is
// false); ok false for a value git would refuse.
func gitBool(v string) (b, ok bool) {
	switch strings.ToLower(v) {
	case "", "0", "false", "no", "off":
		return false, true
	case "1", "true", "yes", "on":
		return true, true
	}
	return false, false
}

func knownGit(bin string) bool {
	for _, b := range quickGitBinaries {
		if bin == b {
			return true
		}
	}
	return false
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil || !os.IsNotExist(err)
}

func lstat(p string) os.FileInfo {
	fi, err := os.Lstat(p)
	if err != nil {
		return nil
	}
	return fi
}

// ownedByMe reports whether fi is owned by this process's effective user
// (git's safe.directory check otherwise decides).
func ownedByMe(fi os.FileInfo) bool {
	if fi == nil {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid()
}

// quickRepoGitEnviron is RepoGitEnviron without starting git, where the
// files git reads are known (untrustedConfigFiles) and strictly
// readable (gitdir.ConfigNames): the repository's own config sets no
// program setting, and the system config's program settings, if any,
// are neither unneutralisable nor set again by the user's global config
// or the command scope (whose values would come back after the neutral
// one). ok false: ask git.
func quickRepoGitEnviron(bin, dir string, environ []string) ([]string, bool) {
	files, ok := untrustedConfigFiles(bin, dir, environ)
	if !ok {
		return nil, false
	}
	system, repo := files[:0:0], files
	if len(files) > 0 && isSystemConfig(files[0]) {
		system, repo = files[:1], files[1:]
	}
	if !gitdir.ProgramFree(repo...) {
		return nil, false
	}
	names, ok := gitdir.ConfigNames(system...)
	if !ok {
		return nil, false
	}
	var out strings.Builder // as `git config --show-scope --null --get-regexp` prints them
	for _, n := range names {
		if _, isProgram := gitdir.LookupProgramKey(n); isProgram {
			out.WriteString("system\x00" + n + "\x00")
		}
	}
	if out.Len() == 0 {
		return environ, true
	}
	trusted, ok := trustedNames(environ)
	if !ok {
		return nil, false
	}
	for _, n := range names {
		if trusted[canonicalGitName(n)] {
			return nil, false
		}
	}
	kv, err := repoOverrides(out.String())
	if err != nil {
		return nil, false // unneutralisable: git's answer carries the error
	}
	return AppendGitConfig(environ, kv...), true
}

func isSystemConfig(p string) bool {
	for _, f := range quickSystemConfigs {
		if p == f {
			return true
		}
	}
	return false
}

// trustedNames are the names the user's global config files and the
// command scope (GIT_CONFIG_KEY_n) set, canonical; ok false when a
// global file is not strictly readable or HOME is unknown.
func trustedNames(environ []string) (map[string]bool, bool) {
	home := EnvValue(environ, "HOME")
	if home == "" {
		return nil, false
	}
	global := []string{EnvValue(environ, "GIT_CONFIG_GLOBAL")}
	if global[0] == "" {
		xdg := EnvValue(environ, "XDG_CONFIG_HOME")
		if xdg == "" {
			xdg = filepath.Join(home, ".config")
		}
		global = []string{filepath.Join(xdg, "git", "config"), filepath.Join(home, ".gitconfig")}
	}
	names, ok := gitdir.ConfigNames(global...)
	if !ok {
		return nil, false
	}
	set := map[string]bool{}
	for _, n := range names {
		set[canonicalGitName(n)] = true
	}
	count, _ := strconv.Atoi(EnvValue(environ, "GIT_CONFIG_COUNT"))
	for i := range count {
		set[canonicalGitName(EnvValue(environ, "GIT_CONFIG_KEY_"+strconv.Itoa(i)))] = true
	}
	return set, true
}

// canonicalGitName spells a setting's name as git compares names: the
// section and the key in lower case, the subsection as written.
func canonicalGitName(n string) string {
	first, last := strings.IndexByte(n, '.'), strings.LastIndexByte(n, '.')
	if first < 0 {
		return strings.ToLower(n)
	}
	return strings.ToLower(n[:first]) + n[first:last] + strings.ToLower(n[last:])
}
