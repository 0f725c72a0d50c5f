package info

import "github.com/zelvior/aidex/internal/tools"

// Tools returns the information tools (all kind.Read), in this order:
// get_file_info, count_lines, disk_usage, env_info, which and
// analyze_project. Register them with tools.Registry.Register.
func Tools() []tools.Def {
	return []tools.Def{getFileInfoDef(), countLinesDef(), diskUsageDef(), envInfoDef(), whichDef(), analyzeProjectDef()}
}
