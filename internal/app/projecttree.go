package app

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// projectTreeBytes caps the project structure a local model's system
// prompt gets: about 300 tokens at 4 bytes a token.
const projectTreeBytes = 1200

// projectTreeNote is the system prompt's section on the workspace's top
// two levels of files and folders (ayder-cli's project structure for
// smaller and local models), or "" for an empty or unreadable workspace.
// Hidden entries and dependency or build folders are left out; a folder's
// entries share one line; the whole is cut at maxBytes with a note, so the
// request stays small. It changes only when the tree's top levels do, so
// the prompt's prefix stays cacheable.
func projectTreeNote(workspace string, maxBytes int) string {
	top := visibleEntries(workspace)
	if len(top) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("# Project structure (top two levels; list_directory shows more)\n")
	head := b.Len()
	for i, e := range top {
		line := e.Name()
		if e.IsDir() {
			line += "/"
			if kids := visibleEntries(filepath.Join(workspace, e.Name())); len(kids) > 0 {
				names := make([]string, len(kids))
				for j, k := range kids {
					names[j] = k.Name()
					if k.IsDir() {
						names[j] += "/"
					}
				}
				line += "\n  " + cutJoin(names, 160)
			}
		}
		if b.Len()-head+len(line)+1 > maxBytes {
			b.WriteString("… (" + strconv.Itoa(len(top)-i) + " more entries)\n")
			break
		}
		b.WriteString(line + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// visibleEntries lists dir's entries without hidden ones and dependency or
// build folders, folders first.
func visibleEntries(dir string) []os.DirEntry {
	all, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	skip := []string{"node_modules", "vendor", "target", "dist", "build", "__pycache__", "venv", "env", "bin", "obj", "out"}
	var dirs, files []os.DirEntry
	for _, e := range all {
		switch {
		case strings.HasPrefix(e.Name(), "."):
		case e.IsDir() && slices.Contains(skip, e.Name()):
		case e.IsDir():
			dirs = append(dirs, e)
		default:
			files = append(files, e)
		}
	}
	return append(dirs, files...)
}

// cutJoin joins names with two spaces, up to about width bytes; the rest
// is counted ("… 12 more").
func cutJoin(names []string, width int) string {
	var b strings.Builder
	for i, n := range names {
		if i > 0 && b.Len()+len(n)+2 > width {
			b.WriteString("  … " + strconv.Itoa(len(names)-i) + " more")
			break
		}
		if i > 0 {
			b.WriteString("  ")
		}
		b.WriteString(n)
	}
	return b.String()
}
