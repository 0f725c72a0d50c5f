package tools

// FileTools returns the file, edit and search tools: read_file,
// read_file_lines, head_file, tail_file, write_file, append_file,
// create_directory, delete_file, move_file, copy_file, edit_file,
// patch_lines, insert_line, delete_line, find_replace_in_files,
// list_directory, search_files, grep and grep_file. Register them with
// Registry.Register.
func FileTools() []Def {
	var defs []Def
	for _, group := range [][]Def{readTools(), writeTools(), editTools(), replaceTools(), listTools(), grepTools()} {
		defs = append(defs, group...)
	}
	return defs
}
