package tui

import (
	"os"
	"path/filepath"
	"strings"
)

// updateChips finds the files the input's @mentions name (workspace-
// relative or absolute paths of existing regular files), shown as chips
// above the input; sending attaches them (Controller.BuildPrompt).
func (in *inputModel) updateChips() {
	in.chips = nil
	if in.workspace == "" {
		return
	}
	seen := map[string]bool{}
	for _, w := range strings.Fields(in.ta.Value()) {
		if !strings.HasPrefix(w, "@") || len(w) < 2 {
			continue
		}
		rel := strings.TrimRight(w[1:], ".,;:!?)\"'")
		path := rel
		if !filepath.IsAbs(path) {
			path = filepath.Join(in.workspace, rel)
		}
		if seen[rel] {
			continue
		}
		if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() {
			seen[rel] = true
			in.chips = append(in.chips, rel)
		}
	}
}

// chipLine draws the attachment chips ("" when there are none): each file
// as "[kind name]", cut to the width.
func (in inputModel) chipLine() string {
	if len(in.chips) == 0 {
		return ""
	}
	parts := make([]string, len(in.chips))
	for i, c := range in.chips {
		parts[i] = in.st.paint(in.st.cyan, "["+chipKind(c)+" "+filepath.Base(c)+"]")
	}
	return truncateLine("  attach: "+strings.Join(parts, " "), in.width)
}

// chipKind names a file's kind by its extension for the chip (the loader
// sniffs the content when it is sent).
func chipKind(name string) string {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".png", ".jpg", ".jpeg", ".gif", ".webp":
		return "image"
	case ".pdf":
		return "pdf"
	case ".docx", ".xlsx", ".pptx", ".csv", ".ipynb":
		return strings.TrimPrefix(strings.ToLower(filepath.Ext(name)), ".")
	}
	return "file"
}
