package info

import (
	"context"
	"io/fs"
	"time"

	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/tools"
	"github.com/zelvior/aidex/internal/tools/proc"
	"github.com/zelvior/aidex/internal/tools/walk"
)

// analyzeProjectDef is analyze_project.
func analyzeProjectDef() tools.Def {
	return tools.Define(tools.Spec{Name: "analyze_project", Kind: kind.Read, Aliases: []string{"project_overview", "analyze_codebase"},
		Description: "Summarise the project: languages (files, lines), build files, likely build/test commands and the top-level layout."},
		analyzeProject)
}

// Limits of analyze_project: it must stay fast on a large tree.
const (
	analyzeMaxLineFile   = 1 << 20 // larger files are counted but not read
	analyzeTopFiles      = 30      // root files listed
	analyzeSubdirs       = 8       // second-level directories listed per directory
	analyzeTopLanguages  = 15
	analyzeBuildFileSpan = 1 // build files are looked for at depth <= 1 below the root
)

// analyzeLimits bound one scan: its time, the files visited and the
// bytes read for line counts in total. Past one the report says so.
type analyzeLimits struct {
	timeout    time.Duration
	maxFiles   int64
	lineBudget int64
}

// defaultAnalyzeLimits are analyze_project's limits.
var defaultAnalyzeLimits = analyzeLimits{timeout: 10 * time.Second, maxFiles: 200000, lineBudget: 64 << 20}

type analyzeArgs = tools.NoArgs

func analyzeProject(ctx context.Context, env *tools.Env, _ analyzeArgs) tools.Result {
	return analyzeProjectWith(ctx, env, defaultAnalyzeLimits)
}

// analyzeProjectWith is analyze_project under the limits lim. The walk
// never enters an ignored directory.
func analyzeProjectWith(parent context.Context, env *tools.Env, lim analyzeLimits) tools.Result {
	if env == nil || env.Workspace == nil {
		return tools.Failf(tools.CategoryInternal, "internal error: no workspace configured")
	}
	root := env.Workspace.Root()
	ctx, cancel := context.WithTimeout(parent, lim.timeout)
	defer cancel()
	s := &projectScan{lim: lim, langs: map[string]*extGroup{}, dirFiles: map[string]int{}, subdirs: map[string][]string{}}
	s.budget.Store(lim.lineBudget)
	err := walk.Tree(ctx, root, 0, func(abs, rel string, d fs.DirEntry) error { return s.visit(ctx, abs, rel, d) })
	switch {
	case err == errWalkLimit || s.visited.Load() > lim.maxFiles:
		s.truncated = true
	case err != nil && parent.Err() != nil:
		return tools.Failf(tools.CategoryExecution, "analyze_project cancelled: %v", parent.Err())
	case err != nil && ctx.Err() != nil:
		s.timedOut = true
	}
	out := s.report(root)
	w := proc.NewHeadTail(proc.DefaultMaxOutputChars)
	_, _ = w.Write([]byte(out))
	text, cut := w.String()
	return tools.Success(text, &tools.Meta{Lines: s.lines, Truncated: cut || s.truncated || s.timedOut || s.overBudget > 0})
}
