package file

import (
	"context"

	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/tools"
)

type patchLinesArgs struct {
	Path       string `json:"path" jsonschema:"File to edit" tool:"path"`
	StartLine  int    `json:"start_line" jsonschema:"First line to replace (1-based)"`
	EndLine    int    `json:"end_line" jsonschema:"Last line to replace (inclusive)"`
	NewContent string `json:"new_content" jsonschema:"Replacement lines (empty deletes)"`
}

// patchLinesDef is patch_lines: replace a range of lines.
func patchLinesDef() tools.Def {
	return tools.Define(tools.Spec{Name: "patch_lines", Kind: kind.Write,
		Description: "Replace lines start_line..end_line (inclusive) of a file with new_content.", DryRun: true}, patchLines)
}

func patchLines(ctx context.Context, env *tools.Env, a patchLinesArgs) tools.Result {
	return editLines(ctx, env, a.Path, func(lines []string) ([]string, int, int, string) {
		if msg := lineRange(a.StartLine, a.EndLine, len(lines)); msg != "" {
			return nil, 0, 0, msg
		}
		return []string{a.NewContent}, a.StartLine, a.EndLine, ""
	})
}
