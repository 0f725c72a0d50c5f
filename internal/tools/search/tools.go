package search

import "github.com/zelvior/aidex/internal/tools"

// Tools returns the search tools, in this order: grep and grep_file.
// Register them with tools.Registry.Register.
func Tools() []tools.Def {
	return []tools.Def{grepDef(), grepFileDef()}
}
