package file

import (
	"context"
	"fmt"

	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/tools"
)

type readLinesArgs struct {
	Path      string `json:"path" jsonschema:"File to read" tool:"path"`
	StartLine int    `json:"start_line" jsonschema:"First line (1-based)"`
	EndLine   int    `json:"end_line" jsonschema:"Last line (inclusive)"`
}

// readFileLinesDef is read_file_lines: an inclusive range of lines.
func readFileLinesDef() tools.Def {
	return tools.Define(tools.Spec{Name: "read_file_lines", Kind: kind.Read,
		Description: "Read lines start_line..end_line (inclusive, 1-based) of a text file."}, readFileLines)
}

func readFileLines(ctx context.Context, env *tools.Env, a readLinesArgs) tools.Result {
	return showLines(ctx, env, a.Path, func(total int) (int, int, string) {
		switch {
		case a.StartLine < 1 || a.EndLine < a.StartLine:
			return 0, 0, fmt.Sprintf("need 1 <= start_line <= end_line, got %d..%d", a.StartLine, a.EndLine)
		case a.StartLine > total:
			return 0, 0, fmt.Sprintf("start_line %d is past the end of the file (%d lines)", a.StartLine, total)
		}
		return a.StartLine, min(a.EndLine, total), ""
	})
}
