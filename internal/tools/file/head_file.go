package file

import (
	"context"

	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/tools"
)

type headTailArgs struct {
	Path  string `json:"path" jsonschema:"File to read" tool:"path"`
	Lines int    `json:"lines,omitempty" jsonschema:"Number of lines" default:"10"`
}

// headFileDef is head_file: the first lines of a text file.
func headFileDef() tools.Def {
	return tools.Define(tools.Spec{Name: "head_file", Kind: kind.Read, Description: "Show the first lines of a text file."}, headFile)
}

func headFile(ctx context.Context, env *tools.Env, a headTailArgs) tools.Result {
	n := headTailCount(a.Lines)
	return showLines(ctx, env, a.Path, func(total int) (int, int, string) {
		return 1, min(n, total), ""
	})
}

func headTailCount(n int) int {
	if n <= 0 {
		return defaultHeadLines
	}
	return n
}
