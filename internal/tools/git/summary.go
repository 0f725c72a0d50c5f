package git

import (
	"context"
	"strconv"
	"strings"

	"github.com/zelvior/aidex/internal/tools"
)

// rootResolver is a Resolver that knows only a root; Summary uses it to
// run git in a directory the way the git tools do.
type rootResolver string

func (r rootResolver) Root() string { return string(r) }

func (r rootResolver) Resolve(p string) (string, error) { return string(r), nil }

func (r rootResolver) Rel(abs string) string { return abs }

// Summary returns a one-line summary of the git state of root ("branch
// main, 3 changed files", "branch main, clean"), or "" outside a
// repository or when git is missing. git runs as the git tools run it:
// with the repository's hooks, fsmonitor, pager, external diff and filter
// programs disabled, so a cloned repository cannot run anything when aidex
// starts, and without credentials in its environment (pol, see
// proc.ChildEnviron).
func Summary(ctx context.Context, root string, pol tools.EnvPolicy) string {
	g := git(ctx, &tools.Env{Workspace: rootResolver(root), EnvPolicy: pol}, "", "status", "--porcelain=v1", "--branch", "--untracked-files=normal")
	if g.failed() {
		return ""
	}
	lines := strings.Split(strings.TrimRight(g.out, "\n"), "\n")
	branch := strings.TrimPrefix(lines[0], "## ")
	if i := strings.Index(branch, "..."); i >= 0 {
		branch = branch[:i]
	}
	switch changed := len(lines) - 1; changed {
	case 0:
		return "branch " + branch + ", clean"
	case 1:
		return "branch " + branch + ", 1 changed file"
	default:
		return "branch " + branch + ", " + strconv.Itoa(changed) + " changed files"
	}
}
