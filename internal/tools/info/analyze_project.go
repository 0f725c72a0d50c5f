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
	analyzeTimeout       = 20 * time.Second
	analyzeMaxFiles      = 200000   // files visited
	analyzeMaxLineFile   = 1 << 20  // larger files are counted but not read
	analyzeLineBudget    = 64 << 20 // bytes read for line counts in total
	analyzeTopFiles      = 30       // root files listed
	analyzeSubdirs       = 8        // second-level directories listed per directory
	analyzeTopLanguages  = 15
	analyzeBuildFileSpan = 1 // build files are looked for at depth <= 1 below the root
)

type analyzeArgs = tools.NoArgs

func analyzeProject(ctx context.Context, env *tools.Env, _ analyzeArgs) tools.Result {
	if env == nil || env.Workspace == nil {
		return tools.Failf(tools.CategoryInternal, "internal error: no workspace configured")
	}
	root := env.Workspace.Root()
	ctx, cancel := context.WithTimeout(ctx, analyzeTimeout)
	defer cancel()
	s := &projectScan{langs: map[string]*extGroup{}, dirFiles: map[string]int{}, subdirs: map[string][]string{}}
	s.budget.Store(analyzeLineBudget)
	err := walk.Tree(ctx, root, 0, func(abs, rel string, d fs.DirEntry) error { return s.visit(ctx, abs, rel, d) })
	switch {
	case err == errWalkLimit:
		s.truncated = true
	case err != nil && ctx.Err() == context.DeadlineExceeded:
		s.timedOut = true
	case err != nil && ctx.Err() != nil:
		return tools.Failf(tools.CategoryExecution, "analyze_project cancelled: %v", ctx.Err())
	}
	out := s.report(root)
	w := proc.NewHeadTail(proc.DefaultMaxOutputChars)
	_, _ = w.Write([]byte(out))
	text, cut := w.String()
	return tools.Success(text, &tools.Meta{Lines: s.lines, Truncated: cut || s.truncated || s.timedOut})
}
