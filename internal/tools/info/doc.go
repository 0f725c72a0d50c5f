// Package info is the information tool family, all kind.Read:
// get_file_info (type, size, mode, time, lines of a path), count_lines
// (lines of a file, or of a directory's text files by extension),
// disk_usage (size of a directory and its largest entries), env_info (OS,
// shell, installed tool versions), which (a program on PATH) and
// analyze_project (languages, build files, likely commands and layout of
// the workspace).
package info
