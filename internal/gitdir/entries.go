package gitdir

import (
	"path/filepath"
	"strings"
)

// Entry is a path inside a git dir that configures git or points it
// elsewhere: a sandboxed command never creates, changes, renames or
// removes it, whether it exists or not.
type Entry struct {
	// Name is the path relative to the git dir, slash-separated.
	Name string
	// Dir reports a folder (everything beneath it is protected too).
	Dir bool
	// Why says in a few words what git does with it.
	Why string
	// Placeholder reports an entry `git init` creates, so that the
	// sandbox may create a missing one, empty (inside the git dir, where
	// `git status` never shows it), to hold it read-only while commands
	// run; other missing entries are checked after each command instead.
	Placeholder bool
}

// Entries is the table of a git dir's configuration and pointer entries
// (in the git dir of a repository, a linked worktree or a submodule).
// Everything else in a git dir is the repository's data (objects, refs,
// packed-refs, logs, HEAD, index) or git's scratch files (COMMIT_EDITMSG,
// ORIG_HEAD, FETCH_HEAD, *.lock), which `git add` and `git commit` write.
var Entries = [...]Entry{
	{Name: "config", Why: "git's configuration, whose keys run programs (core.fsmonitor, aliases, drivers)"},
	{Name: "config.worktree", Why: "a worktree's git configuration"},
	{Name: "commondir", Why: "points git at another repository"},
	{Name: "gitdir", Why: "points a linked worktree's git dir back at its work tree"},
	{Name: "objects/info/alternates", Why: "makes git read objects from another repository"},
	{Name: "objects/info/http-alternates", Why: "makes git fetch objects from another place"},
	{Name: "hooks", Dir: true, Why: "git hooks, programs git runs", Placeholder: true},
	{Name: "info", Dir: true, Why: "attributes that pick filters and drivers", Placeholder: true},
	{Name: "modules", Dir: true, Why: "submodules' git dirs, with their own config and hooks"},
	{Name: "worktrees", Dir: true, Why: "linked worktrees' git dirs and pointers"},
	{Name: "branches", Dir: true, Why: "legacy remote definitions"},
	{Name: "remotes", Dir: true, Why: "legacy remote definitions"},
}

// ConfigPrefix names the git dir entries git reads as configuration
// besides Entries ("config.*"); a new one is reverted after a command.
const ConfigPrefix = "config"

// Classify returns the entry of Entries that rel (a path relative to a
// git dir, either separator) is or lies in, and ok false for the
// repository's data and scratch files. Names compare without case (git
// dirs on case-insensitive file systems).
func Classify(rel string) (Entry, bool) {
	rel = strings.Trim(filepath.ToSlash(filepath.Clean(rel)), "/")
	for _, e := range Entries {
		if strings.EqualFold(rel, e.Name) || e.Dir && len(rel) > len(e.Name) &&
			strings.EqualFold(rel[:len(e.Name)+1], e.Name+"/") {
			return e, true
		}
	}
	if !strings.Contains(rel, "/") && strings.HasPrefix(strings.ToLower(rel), ConfigPrefix) && !strings.HasSuffix(strings.ToLower(rel), ".lock") {
		return Entry{Name: rel, Why: "read by git as configuration"}, true
	}
	return Entry{}, false
}
