package search

import (
	"context"

	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/tools"
)

type grepFileArgs struct {
	Path    string `json:"path" jsonschema:"File to search" tool:"path"`
	Pattern string `json:"pattern" jsonschema:"Regular expression (RE2)"`
}

// grepFileDef is grep_file: search one file.
func grepFileDef() tools.Def {
	return tools.Define(tools.Spec{Name: "grep_file", Kind: kind.Read, Description: "Search one file by regex; shows matching lines."},
		grepFile)
}

func grepFile(ctx context.Context, env *tools.Env, a grepFileArgs) tools.Result {
	return grep(ctx, env, grepArgs{Pattern: a.Pattern, Path: a.Path, MaxResults: grepFileMatches, single: true})
}
