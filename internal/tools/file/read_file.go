package file

import (
	"context"
	"fmt"

	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/tools"
)

type readFileArgs struct {
	Path   string `json:"path" jsonschema:"File to read" tool:"path"`
	Offset int    `json:"offset,omitempty" jsonschema:"First line (1-based)" default:"1"`
	Limit  int    `json:"limit,omitempty" jsonschema:"Max lines" default:"2000"`
	Pages  string `json:"pages,omitempty" jsonschema:"PDF pages or PPTX slides to read, e.g. 1-5 or 2,4 (default all)"`
	Sheet  string `json:"sheet,omitempty" jsonschema:"XLSX sheet to read (default every sheet)"`
	Range  string `json:"range,omitempty" jsonschema:"Cells of a sheet or CSV file, e.g. A1:D50"`
}

// readFileDef is read_file: lines of a text file, numbered like cat -n;
// documents and images through the loader (read_document.go).
func readFileDef() tools.Def {
	return tools.Define(tools.Spec{Name: "read_file", Kind: kind.Read, Standard: true,
		Description: "Read a file: text as numbered lines (offset/limit); PDF (pages), DOCX, XLSX (sheet, range), CSV (range), PPTX, notebooks as text; images are shown to you."}, readFile)
}

func readFile(ctx context.Context, env *tools.Env, a readFileArgs) tools.Result {
	if a.Offset < 0 || a.Limit < 0 {
		return tools.Failf(tools.CategoryValidation, "read_file: offset and limit must be positive (offset is 1-based)")
	}
	if res := readDocument(ctx, env, a); res != nil {
		return *res
	}
	limit := a.Limit
	if limit == 0 {
		limit = defaultReadLimit
	}
	return showLines(ctx, env, a.Path, func(total int) (int, int, string) {
		start := max(a.Offset, 1)
		if start > total {
			return 0, 0, fmt.Sprintf("offset %d is past the end of the file (%d lines)", start, total)
		}
		return start, min(total, start+limit-1), ""
	})
}
