package file

import (
	"context"
	"fmt"

	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/tools"
)

type insertLineArgs struct {
	Path    string `json:"path" jsonschema:"File to edit" tool:"path"`
	Line    int    `json:"line" jsonschema:"Insert after this line (0 = top)"`
	Content string `json:"content" jsonschema:"Lines to insert"`
}

// insertLineDef is insert_line: insert lines after a line.
func insertLineDef() tools.Def {
	return tools.Define(tools.Spec{Name: "insert_line", Kind: kind.Write,
		Description: "Insert content after line `line` of a file (0 inserts at the top).", DryRun: true}, insertLine)
}

func insertLine(ctx context.Context, env *tools.Env, a insertLineArgs) tools.Result {
	return editLines(ctx, env, a.Path, func(lines []string) ([]string, int, int, string) {
		if a.Line < 0 || a.Line > len(lines) {
			return nil, 0, 0, fmt.Sprintf("line %d is outside 0..%d (the file has %d lines; %d appends)",
				a.Line, len(lines), len(lines), len(lines))
		}
		if a.Content == "" {
			return nil, 0, 0, "content is empty; nothing to insert"
		}
		return []string{a.Content}, a.Line + 1, a.Line, ""
	})
}
