// Package file is the file tool family: reading, writing, editing and
// listing files in the workspace.
//
//   - read_file, read_file_lines, head_file, tail_file (kind.Read): lines
//     of a text file, numbered like cat -n;
//   - write_file, append_file (kind.Write, dry-run capable): create,
//     overwrite or extend a file;
//   - create_directory, delete_file, move_file, copy_file (kind.Write):
//     directory and file operations outside tools.Env.Commit, so they are
//     never run in a dry run;
//   - edit_file, patch_lines, insert_line, delete_line (kind.Write,
//     dry-run capable): replace exact text (with a whitespace-tolerant
//     fallback) or ranges of lines;
//   - find_replace_in_files (kind.Write, dry-run capable): replace text
//     across the files under a directory;
//   - list_directory, search_files (kind.Read): a directory tree and
//     files by glob, honouring .gitignore.
//
// Every change goes through tools.Env: the path is confined
// (Env.Resolve), an existing file must have been read and be unchanged
// since (Env.CheckFresh), the old content is checkpointed and the new one
// written atomically (Env.Commit). CRLF line endings, a UTF-8 BOM and a
// missing final newline are kept.
package file
