package file

import (
	"context"

	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/tools"
)

// tailFileDef is tail_file: the last lines of a text file.
func tailFileDef() tools.Def {
	return tools.Define(tools.Spec{Name: "tail_file", Kind: kind.Read, Description: "Show the last lines of a text file."}, tailFile)
}

func tailFile(ctx context.Context, env *tools.Env, a headTailArgs) tools.Result {
	n := headTailCount(a.Lines)
	return showLines(ctx, env, a.Path, func(total int) (int, int, string) {
		return max(1, total-n+1), total, ""
	})
}
