package git

import (
	"context"
	"strconv"
	"strings"

	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/tools"
)

// gitLogDef is git_log.
func gitLogDef() tools.Def {
	return tools.Define(tools.Spec{Name: "git_log", Kind: kind.Read,
		Description: "Show recent commits (hash, date, author, subject), optionally touching one path."}, gitLog)
}

type gitLogArgs struct {
	MaxCount int    `json:"max_count,omitempty" jsonschema:"Commits to show (max 500)" default:"20"`
	Path     string `json:"path,omitempty" jsonschema:"Only commits touching this path" tool:"path"`
}

func gitLog(ctx context.Context, env *tools.Env, a gitLogArgs) tools.Result {
	n := a.MaxCount
	switch {
	case n < 0:
		return tools.Failf(tools.CategoryValidation, "git_log: max_count must be positive (max %d)", maxGitLogCount)
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
		return tools.Success("No commits yet on the current branch.", nil)
	}
	if g.failed() {
		return gitFail("git_log", g)
	}
	return gitOK(g, "No commits match.")
}
