package git

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
	"unicode"

	"github.com/zelvior/aidex/internal/tools"
	"github.com/zelvior/aidex/internal/tools/proc"
)

// Limits of the git tools.
const (
	gitTimeout         = 60 * time.Second
	defaultGitLogCount = 20
	maxGitLogCount     = 500
	maxRefLen          = 256
)

// gitSafetyArgs come before every git subcommand the tools run: no
// signing (the tools never sign), no automatic maintenance, no colour or
// pager, and --literal-pathspecs makes paths plain file names (no
// ":(glob)" magic). The program-running settings (fsmonitor, hooks,
// pager, drivers, ...) are neutralised in git's environment, for the
// tools as for every command aidex starts: proc.ChildEnviron and
// proc.RepoGitEnviron.
var gitSafetyArgs = [...]string{
	"-c", "commit.gpgSign=false",
	"-c", "tag.gpgSign=false",
	"-c", "gc.auto=0",
	"-c", "maintenance.auto=false",
	"-c", "color.ui=false",
	"--no-pager",
	"--literal-pathspecs",
}

// gitRun is the outcome of one git invocation.
type gitRun struct {
	out      string // stdout and stderr combined, capped
	cut      bool
	exitCode int
	res      *tools.Result // set when git could not run or was refused
}

func (g gitRun) failed() bool { return g.res != nil || g.exitCode != 0 }

// git runs "git <safety args> args..." in the workspace root with stdin
// (if any) as input, in aidex's own git environment (proc.OwnGitEnviron:
// the repository from gitdir, its program settings neutralised).
func git(ctx context.Context, env *tools.Env, stdin string, args ...string) gitRun {
	if env == nil || env.Workspace == nil {
		r := tools.Failf(tools.CategoryInternal, "internal error: no workspace configured for git tools")
		return gitRun{res: &r}
	}
	bin, err := exec.LookPath("git")
	if err != nil {
		r := tools.Failf(tools.CategoryNotFound, "git is not installed (not found on PATH); install git to use the git tools")
		return gitRun{res: &r}
	}
	root := env.Workspace.Root()
	environ, err := proc.OwnGitEnviron(ctx, root, proc.GitEnviron(env.EnvPolicy))
	if err != nil {
		r := tools.Failf(tools.CategorySecurity, "git was not run: %v", err)
		return gitRun{res: &r}
	}
	argv := append([]string{bin}, gitSafetyArgs[:]...)
	argv = append(argv, args...)
	o := proc.Run(ctx, proc.Spec{Argv: argv, Dir: root, Env: environ, Stdin: stdin, Timeout: gitTimeout})
	if !o.Ran || o.TimedOut || o.Cancelled || o.Err != nil || o.ExitCode < 0 {
		r := o.Result("git", gitTimeout, "")
		return gitRun{res: &r}
	}
	return gitRun{out: o.Output, cut: o.Truncated, exitCode: o.ExitCode}
}

// gitFail turns a failed git run into a Result with git's message.
func gitFail(tool string, g gitRun) tools.Result {
	if g.res != nil {
		return *g.res
	}
	msg := strings.TrimSpace(g.out)
	code := g.exitCode
	meta := &tools.Meta{ExitCode: &code, Truncated: g.cut}
	switch {
	case strings.Contains(msg, "not a git repository"):
		r := tools.Failf(tools.CategoryNotFound, "%s: the workspace is not inside a Git repository; create one with git_init", tool)
		r.Meta = meta
		return r
	case strings.Contains(msg, "dubious ownership"):
		r := tools.Failf(tools.CategorySecurity, "%s: git refuses this repository because it is owned by another user "+
			"(safe.directory); the user must fix the ownership or add it to safe.directory", tool)
		r.Output, r.Meta = msg, meta
		return r
	}
	r := tools.Failf(tools.CategoryExecution, "%s failed (git exit code %d): %s", tool, code, tools.FirstLines(msg, 20))
	r.Output, r.Meta = g.out, meta
	return r
}

func gitOK(g gitRun, empty string) tools.Result {
	out := g.out
	if strings.TrimSpace(out) == "" {
		out = empty
	}
	code := g.exitCode
	return tools.Success(out, &tools.Meta{ExitCode: &code, Truncated: g.cut})
}

// gitPath confines a path parameter and returns it as git should see it:
// relative to the workspace root (git's working directory) when the path
// as written lies inside it, else the resolved absolute path.
func gitPath(env *tools.Env, param, p string) (string, *tools.Result) {
	abs, res := env.Resolve(param, p)
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
func checkRef(param, ref string) *tools.Result {
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
	r := tools.Failf(tools.CategoryValidation, "%s %q %s; give a branch, tag or commit name", param, ref, why)
	return &r
}

// checkBranchName validates a new branch name with git check-ref-format.
func checkBranchName(ctx context.Context, env *tools.Env, name string) *tools.Result {
	if r := checkRef("name", name); r != nil {
		return r
	}
	g := git(ctx, env, "", "check-ref-format", "--branch", name)
	if g.res != nil {
		return g.res
	}
	if g.exitCode != 0 {
		r := tools.Failf(tools.CategoryValidation, "%q is not a valid branch name (git check-ref-format): use letters, digits, '-', '_', '/' and '.'", name)
		return &r
	}
	return nil
}
