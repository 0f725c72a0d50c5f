package search

import "github.com/zelvior/aidex/internal/tools"

// SearchTools returns the search tools grep and grep_file. Register them
// with Registry.Register.
func Tools() []tools.Def {
	return []tools.Def{grepDef(), grepFileDef()}
}
