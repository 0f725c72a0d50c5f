package file

import (
	"context"

	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/tools"
)

type deleteLineArgs struct {
	Path    string `json:"path" jsonschema:"File to edit" tool:"path"`
	Line    int    `json:"line" jsonschema:"First line to delete (1-based)"`
	EndLine int    `json:"end_line,omitempty" jsonschema:"Last line to delete (default: line)"`
}

// deleteLineDef is delete_line: delete a line or a range of lines.
func deleteLineDef() tools.Def {
	return tools.Define(tools.Spec{Name: "delete_line", Kind: kind.Write,
		Description: "Delete line `line` (through end_line if given) of a file.", DryRun: true}, deleteLine)
}

func deleteLine(ctx context.Context, env *tools.Env, a deleteLineArgs) tools.Result {
	end := a.EndLine
	if end == 0 {
		end = a.Line
	}
	return editLines(ctx, env, a.Path, func(lines []string) ([]string, int, int, string) {
		if msg := lineRange(a.Line, end, len(lines)); msg != "" {
			return nil, 0, 0, msg
		}
		return nil, a.Line, end, ""
	})
}
