package file

import "github.com/zelvior/aidex/internal/tools"

// Tools returns the file tools, in this order: read_file,
// read_file_lines, head_file, tail_file, write_file, append_file,
// create_directory, delete_file, move_file, copy_file, edit_file,
// edit_lines, apply_patch, patch_lines, insert_line, delete_line, find_replace_in_files,
// list_directory and search_files. Register them with
// tools.Registry.Register.
func Tools() []tools.Def {
	return []tools.Def{
		readFileDef(), readFileLinesDef(), headFileDef(), tailFileDef(),
		writeFileDef(), appendFileDef(), createDirectoryDef(), deleteFileDef(), moveFileDef(), copyFileDef(),
		editFileDef(), editLinesDef(), applyPatchDef(), patchLinesDef(), insertLineDef(), deleteLineDef(),
		findReplaceDef(), listDirectoryDef(), searchFilesDef(),
	}
}
