package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/zelvior/aidex/internal/kind"
)

// Limits of the git tools.
const (
	gitTimeout         = 60 * time.Second
	defaultGitLogCount = 20
	maxGitLogCount     = 500
	maxRefLen          = 256
)

// gitSafetyArgs come before every git subcommand the tools run. They switch
// off everything a repository's own config could make git execute:
// fsmonitor and hooks (core.hooksPath=/dev/null, which also covers
// commit's pre-commit/commit-msg/post-commit and checkout's post-checkout
// hooks), pagers, external diff programs, signing programs and automatic
// maintenance. Filter drivers (.gitattributes "filter=x" with
// filter.x.clean/smudge/process in the repo config) are neutralised per
// call by filterOverrides. --literal-pathspecs makes paths plain file names
// (no ":(glob)" magic).
var gitSafetyArgs = [...]string{
	"-c", "core.fsmonitor=",
	"-c", "core.hooksPath=" + os.DevNull,
	"-c", "core.pager=cat",
	"-c", "diff.external=",
	"-c", "core.sshCommand=",
	"-c", "commit.gpgSign=false",
	"-c", "tag.gpgSign=false",
	"-c", "log.showSignature=false",
	"-c", "gc.auto=0",
	"-c", "maintenance.auto=false",
	"-c", "color.ui=false",
	"--no-pager",
	"--literal-pathspecs",
}

// gitEnvDrop are variables removed from git's environment: they would
// point git at another repository, index or config, or run programs.
var gitEnvDrop = [...]string{
	"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES",
	"GIT_CONFIG", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM",
	"GIT_EXTERNAL_DIFF", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_SSH", "GIT_SSH_COMMAND", "GIT_ASKPASS",
	"GIT_EXEC_PATH", "GIT_NAMESPACE", "GIT_COMMON_DIR", "GIT_PROXY_COMMAND", "GIT_TRACE", "GIT_ATTR_SOURCE",
}

// GitTools returns the git tools, all run as argv (never through a shell)
// in the workspace root with the repository's hooks, fsmonitor, pager,
// external diff and filter programs disabled:
// git_status, git_diff, git_log (Kind read) and git_add, git_commit,
// git_init, git_branch, git_checkout (Kind write; git_branch is write
// because with a name it creates a branch). Output is capped at
// DefaultMaxOutputChars. Register them with Registry.Register.
func GitTools() []Def {
	return []Def{
		Define(Spec{Name: "git_status", Kind: kind.Read, Aliases: []string{"status"},
			Description: "Show the branch and changed, staged and untracked files (git status --short --branch)."},
			func(ctx context.Context, env *Env, _ noArgs) Result { return gitStatus(ctx, env) }),
		Define(Spec{Name: "git_diff", Kind: kind.Read,
			Description: "Show unstaged changes (or staged ones with staged=true), optionally for one path."},
			func(ctx context.Context, env *Env, a gitDiffArgs) Result { return gitDiff(ctx, env, a) }),
		Define(Spec{Name: "git_log", Kind: kind.Read,
			Description: "Show recent commits (hash, date, author, subject), optionally touching one path."},
			func(ctx context.Context, env *Env, a gitLogArgs) Result { return gitLog(ctx, env, a) }),
		Define(Spec{Name: "git_add", Kind: kind.Write,
			Description: "Stage files for the next commit."},
			func(ctx context.Context, env *Env, a gitAddArgs) Result { return gitAdd(ctx, env, a) }),
		Define(Spec{Name: "git_commit", Kind: kind.Write,
			Description: "Commit the staged changes with a message (hooks are not run)."},
			func(ctx context.Context, env *Env, a gitCommitArgs) Result { return gitCommit(ctx, env, a) }),
		Define(Spec{Name: "git_init", Kind: kind.Write,
			Description: "Create a Git repository in the workspace root."},
			func(ctx context.Context, env *Env, _ noArgs) Result { return gitInit(ctx, env) }),
		Define(Spec{Name: "git_branch", Kind: kind.Write,
			Description: "List branches, or create a branch (without switching to it) when name is given."},
			func(ctx context.Context, env *Env, a gitBranchArgs) Result { return gitBranch(ctx, env, a) }),
		Define(Spec{Name: "git_checkout", Kind: kind.Write,
			Description: "Switch to a branch or commit; create=true creates the branch first. Refuses to overwrite local changes."},
			func(ctx context.Context, env *Env, a gitCheckoutArgs) Result { return gitCheckout(ctx, env, a) }),
	}
}

type gitDiffArgs struct {
	Path   string `json:"path,omitempty" jsonschema:"Limit the diff to this file or directory" tool:"path"`
	Staged bool   `json:"staged,omitempty" jsonschema:"Show staged changes (git diff --cached)"`
}

type gitLogArgs struct {
	MaxCount int    `json:"max_count,omitempty" jsonschema:"Commits to show (max 500)" default:"20"`
	Path     string `json:"path,omitempty" jsonschema:"Only commits touching this path" tool:"path"`
}

type gitAddArgs struct {
	Paths []string `json:"paths" jsonschema:"Files or directories to stage" tool:"path"`
}

type gitCommitArgs struct {
	Message string `json:"message" jsonschema:"Commit message"`
}

type gitBranchArgs struct {
	Name string `json:"name,omitempty" jsonschema:"Branch to create; omit to list branches"`
}

type gitCheckoutArgs struct {
	Ref    string `json:"ref" jsonschema:"Branch, tag or commit to switch to (or the new branch name with create)"`
	Create bool   `json:"create,omitempty" jsonschema:"Create the branch (git checkout -b)"`
}

// gitRun is the outcome of one git invocation.
type gitRun struct {
	out      string // stdout and stderr combined, capped
	cut      bool
	exitCode int
	res      *Result // set when git could not run or was refused
}

func (g gitRun) failed() bool { return g.res != nil || g.exitCode != 0 }

// git runs "git <safety args> <filter overrides> args..." in the workspace
// root with stdin (if any) as input.
func git(ctx context.Context, env *Env, stdin string, args ...string) gitRun {
	if env == nil || env.Workspace == nil {
		r := Failf(CategoryExecution, "internal error: no workspace configured for git tools")
		return gitRun{res: &r}
	}
	bin, err := exec.LookPath("git")
	if err != nil {
		r := Failf(CategoryNotFound, "git is not installed (not found on PATH); install git to use the git tools")
		return gitRun{res: &r}
	}
	root := env.Workspace.Root()
	environ := gitEnviron()
	overrides, res := filterOverrides(ctx, bin, root, environ)
	if res != nil {
		return gitRun{res: res}
	}
	argv := append([]string{bin}, gitSafetyArgs[:]...)
	argv = append(argv, overrides...)
	argv = append(argv, args...)
	o := runProcess(ctx, runSpec{argv: argv, dir: root, env: environ, stdin: stdin, timeout: gitTimeout})
	if !o.ran || o.timedOut || o.cancelled || o.err != nil || o.exitCode < 0 {
		r := o.result("git", gitTimeout, "")
		return gitRun{res: &r}
	}
	return gitRun{out: o.output, cut: o.truncated, exitCode: o.exitCode}
}

func gitEnviron() []string {
	base := ChildEnviron(os.Environ(), nil)
	out := base[:0]
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		drop := strings.HasPrefix(name, "GIT_CONFIG_KEY_") || strings.HasPrefix(name, "GIT_CONFIG_VALUE_")
		for _, d := range gitEnvDrop {
			drop = drop || sameEnvName(name, d)
		}
		if !drop {
			out = append(out, kv)
		}
	}
	return append(out, "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C")
}

// filterOverrides returns "-c filter.<name>.clean=" (and smudge, process)
// for every filter driver the repository's own config (.git/config, its
// includes, worktree config) defines, so no repository-provided filter
// program runs. Drivers from the user's global and the system config
// (git-lfs) are trusted and kept. A driver name git's -c syntax cannot
// express is refused.
func filterOverrides(ctx context.Context, bin, root string, environ []string) ([]string, *Result) {
	argv := append([]string{bin}, gitSafetyArgs[:]...)
	argv = append(argv, "config", "--show-scope", "--null", "--name-only", "--get-regexp", `^filter\.`)
	o := runProcess(ctx, runSpec{argv: argv, dir: root, env: environ, timeout: 10 * time.Second, maxChars: 1 << 20})
	if !o.ran || o.timedOut || o.cancelled || o.err != nil || o.exitCode > 1 || o.truncated {
		r := Failf(CategoryExecution, "git config could not be read, so git was not run: %s", strings.TrimSpace(o.output))
		return nil, &r
	}
	fields := strings.Split(o.output, "\x00")
	seen := map[string]bool{}
	var out []string
	for i := 0; i+1 < len(fields); i += 2 {
		scope, name := fields[i], fields[i+1]
		if scope == "global" || scope == "system" {
			continue
		}
		rest, ok := strings.CutPrefix(name, "filter.")
		dot := strings.LastIndexByte(rest, '.')
		if !ok || dot <= 0 || seen[rest[:dot]] {
			continue
		}
		drv := rest[:dot]
		seen[drv] = true
		if strings.ContainsAny(drv, "=\n\r\x00") {
			r := Failf(CategorySecurity, "the repository config defines a filter driver named %q that aidex cannot "+
				"disable safely; git was not run. Remove it from .git/config", drv)
			return nil, &r
		}
		for _, k := range [...]string{"clean", "smudge", "process"} {
			out = append(out, "-c", "filter."+drv+"."+k+"=")
		}
		out = append(out, "-c", "filter."+drv+".required=false")
	}
	return out, nil
}

// gitFail turns a failed git run into a Result with git's message.
func gitFail(tool string, g gitRun) Result {
	if g.res != nil {
		return *g.res
	}
	msg := strings.TrimSpace(g.out)
	code := g.exitCode
	meta := &Meta{ExitCode: &code, Truncated: g.cut}
	switch {
	case strings.Contains(msg, "not a git repository"):
		r := Failf(CategoryNotFound, "%s: the workspace is not inside a Git repository; create one with git_init", tool)
		r.Meta = meta
		return r
	case strings.Contains(msg, "dubious ownership"):
		r := Failf(CategorySecurity, "%s: git refuses this repository because it is owned by another user "+
			"(safe.directory); the user must fix the ownership or add it to safe.directory", tool)
		r.Output, r.Meta = msg, meta
		return r
	}
	r := Failf(CategoryExecution, "%s failed (git exit code %d): %s", tool, code, firstLines(msg, 20))
	r.Output, r.Meta = g.out, meta
	return r
}

func gitOK(g gitRun, empty string) Result {
	out := g.out
	if strings.TrimSpace(out) == "" {
		out = empty
	}
	code := g.exitCode
	return Success(out, &Meta{ExitCode: &code, Truncated: g.cut})
}

// gitPath confines a path parameter and returns it as git should see it:
// relative to the workspace root (git's working directory) when the path
// as written lies inside it, else the resolved absolute path.
func gitPath(env *Env, param, p string) (string, *Result) {
	abs, res := env.resolve(param, p)
	if res != nil {
		return "", res
	}
	root := env.Workspace.Root()
	lexical := p
	if !filepath.IsAbs(lexical) {
		lexical = filepath.Join(root, lexical)
	}
	if rel, err := filepath.Rel(root, filepath.Clean(lexical)); err == nil && filepath.IsLocal(rel) {
		return filepath.ToSlash(rel), nil
	}
	return abs, nil
}

// checkRef refuses refs that git could read as an option or that cannot
// be a ref or revision at all.
func checkRef(param, ref string) *Result {
	var why string
	switch {
	case strings.TrimSpace(ref) == "":
		why = "is empty"
	case strings.HasPrefix(ref, "-"):
		why = "starts with '-' (it would be read as a command-line option)"
	case len(ref) > maxRefLen:
		why = fmt.Sprintf("is longer than %d characters", maxRefLen)
	case strings.ContainsFunc(ref, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }):
		why = "contains whitespace or control characters"
	case strings.ContainsAny(ref, `\?*[`):
		why = `contains one of \ ? * [`
	default:
		return nil
	}
	r := Failf(CategoryValidation, "%s %q %s; give a branch, tag or commit name", param, ref, why)
	return &r
}

// checkBranchName validates a new branch name with git check-ref-format.
func checkBranchName(ctx context.Context, env *Env, name string) *Result {
	if r := checkRef("name", name); r != nil {
		return r
	}
	g := git(ctx, env, "", "check-ref-format", "--branch", name)
	if g.res != nil {
		return g.res
	}
	if g.exitCode != 0 {
		r := Failf(CategoryValidation, "%q is not a valid branch name (git check-ref-format): use letters, digits, '-', '_', '/' and '.'", name)
		return &r
	}
	return nil
}

func gitStatus(ctx context.Context, env *Env) Result {
	g := git(ctx, env, "", "status", "--short", "--branch", "--untracked-files=normal")
	if g.failed() {
		return gitFail("git_status", g)
	}
	if lines := strings.Count(strings.TrimSpace(g.out), "\n"); lines == 0 {
		g.out = strings.TrimRight(g.out, "\n") + "\nnothing to commit, working tree clean\n"
	}
	return gitOK(g, "")
}

func gitDiff(ctx context.Context, env *Env, a gitDiffArgs) Result {
	args := []string{"diff", "--no-ext-diff", "--no-textconv", "--no-color", "--stat", "--patch"}
	if a.Staged {
		args = append(args, "--cached")
	}
	args = append(args, "--")
	if a.Path != "" {
		p, res := gitPath(env, "path", a.Path)
		if res != nil {
			return *res
		}
		args = append(args, p)
	}
	g := git(ctx, env, "", args...)
	if g.failed() {
		return gitFail("git_diff", g)
	}
	empty := "No unstaged changes."
	if a.Staged {
		empty = "No staged changes."
	}
	r := gitOK(g, empty)
	if !g.cut && strings.TrimSpace(g.out) != "" {
		r.Meta.Diff = g.out
	}
	return r
}

func gitLog(ctx context.Context, env *Env, a gitLogArgs) Result {
	n := a.MaxCount
	switch {
	case n < 0:
		return Failf(CategoryValidation, "git_log: max_count must be positive (max %d)", maxGitLogCount)
	case n == 0:
		n = defaultGitLogCount
	}
	n = min(n, maxGitLogCount)
	args := []string{"log", "--no-color", "--no-ext-diff", "--no-textconv", "--max-count=" + strconv.Itoa(n),
		"--date=short", "--format=%h %ad %an%x09%s", "--"}
	if a.Path != "" {
		p, res := gitPath(env, "path", a.Path)
		if res != nil {
			return *res
		}
		args = append(args, p)
	}
	g := git(ctx, env, "", args...)
	if g.res == nil && g.exitCode != 0 && strings.Contains(g.out, "does not have any commits yet") {
		return Success("No commits yet on the current branch.", nil)
	}
	if g.failed() {
		return gitFail("git_log", g)
	}
	return gitOK(g, "No commits match.")
}

func gitAdd(ctx context.Context, env *Env, a gitAddArgs) Result {
	if len(a.Paths) == 0 {
		return Failf(CategoryValidation, `git_add: paths is empty; list the files to stage, e.g. ["main.go"] or ["."]`)
	}
	args := []string{"add", "--verbose", "--"}
	for _, p := range a.Paths {
		gp, res := gitPath(env, "paths", p)
		if res != nil {
			return *res
		}
		args = append(args, gp)
	}
	g := git(ctx, env, "", args...)
	if g.failed() {
		return gitFail("git_add", g)
	}
	return gitOK(g, "Nothing new to stage: the paths are unchanged or already staged.")
}

func gitCommit(ctx context.Context, env *Env, a gitCommitArgs) Result {
	if strings.TrimSpace(a.Message) == "" {
		return Failf(CategoryValidation, "git_commit: message is empty; describe the change")
	}
	// The message goes through stdin (-F -): never an option, never a shell word.
	g := git(ctx, env, a.Message, "commit", "--no-verify", "--no-edit", "--file=-")
	if g.res == nil && g.exitCode != 0 && (strings.Contains(g.out, "nothing to commit") ||
		strings.Contains(g.out, "no changes added to commit") || strings.Contains(g.out, "nothing added to commit")) {
		r := Failf(CategoryValidation, "git_commit: nothing is staged; stage changes with git_add first")
		r.Output = g.out
		return r
	}
	if g.failed() {
		return gitFail("git_commit", g)
	}
	return gitOK(g, "Committed.")
}

func gitInit(ctx context.Context, env *Env) Result {
	if env == nil || env.Workspace == nil {
		return Failf(CategoryExecution, "internal error: no workspace configured for git tools")
	}
	if _, err := os.Lstat(filepath.Join(env.Workspace.Root(), ".git")); err == nil {
		return Success("The workspace is already a Git repository; nothing was changed.", nil)
	} else if !errors.Is(err, os.ErrNotExist) {
		return Failf(CategoryExecution, "git_init: cannot check for .git: %v", err)
	}
	g := git(ctx, env, "", "init")
	if g.failed() {
		return gitFail("git_init", g)
	}
	return gitOK(g, "Initialized an empty Git repository.")
}

func gitBranch(ctx context.Context, env *Env, a gitBranchArgs) Result {
	if a.Name == "" {
		g := git(ctx, env, "", "branch", "--list", "--no-color", "--verbose")
		if g.failed() {
			return gitFail("git_branch", g)
		}
		return gitOK(g, "No branches yet (no commits).")
	}
	if r := checkBranchName(ctx, env, a.Name); r != nil {
		return *r
	}
	g := git(ctx, env, "", "branch", "--", a.Name)
	if g.failed() {
		return gitFail("git_branch", g)
	}
	return gitOK(g, fmt.Sprintf("Created branch %s (not checked out; use git_checkout to switch).", a.Name))
}

func gitCheckout(ctx context.Context, env *Env, a gitCheckoutArgs) Result {
	var args []string
	if a.Create {
		if r := checkBranchName(ctx, env, a.Ref); r != nil {
			return *r
		}
		args = []string{"checkout", "-b", a.Ref}
	} else {
		if r := checkRef("ref", a.Ref); r != nil {
			return *r
		}
		// The trailing "--" makes git read ref as a revision, never as a
		// file to restore (which would discard local changes).
		args = []string{"checkout", a.Ref, "--"}
	}
	g := git(ctx, env, "", args...)
	if g.failed() {
		return gitFail("git_checkout", g)
	}
	return gitOK(g, "Switched to "+a.Ref+".")
}
