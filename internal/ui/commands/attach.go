package commands

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/loader"
)

// BuildPrompt is [BuildPrompt] with documents and images: an @path the
// text rules skip (binary, too large) that names a PDF, DOCX, XLSX, CSV,
// PPTX, notebook or image is loaded through the loader (Runtime.
// LoadAttachment: text, and image parts for a model that sees them). Such
// a file may also be outside the workspace when named by an absolute path
// (a pasted path); text files outside it stay skipped. Notes say what was
// cut or cannot be seen; a file that cannot be loaded stays in Skipped
// with the reason in Notes.
func (c *Controller) BuildPrompt(ctx context.Context, text string) Prompt {
	rt := c.Runtime()
	p := BuildPrompt(rt.Workspace, text)
	var skipped []string
	for _, rel := range p.Skipped {
		att, ok, note := loadMention(ctx, rt, rel)
		if note != "" {
			p.Notes = append(p.Notes, note)
		}
		if !ok {
			skipped = append(skipped, rel)
			continue
		}
		p.Parts = append(p.Parts, att.Parts...)
		p.Attached = append(p.Attached, att.Name)
		for _, n := range att.Notes {
			p.Notes = append(p.Notes, att.Name+": "+n)
		}
	}
	p.Skipped = skipped
	return p
}

// loadMention loads the file an @mention names, when it exists and is a
// document or image (or a text file in the workspace that was too large
// for BuildPrompt: loaded with the loader's cap).
func loadMention(ctx context.Context, rt *app.Runtime, rel string) (app.Attachment, bool, string) {
	path := rel
	if !filepath.IsAbs(path) {
		path = filepath.Join(rt.Workspace, rel)
	}
	path = filepath.Clean(path)
	if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
		return app.Attachment{}, false, ""
	}
	r, err := filepath.Rel(rt.Workspace, path)
	inside := err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator))
	name := rel
	if inside {
		name = filepath.ToSlash(r)
	}
	att, err := rt.LoadAttachment(ctx, path, name)
	if err != nil {
		return app.Attachment{}, false, err.Error()
	}
	if !inside && (att.Kind == loader.KindText || att.Kind == loader.KindHTML || att.Kind == loader.KindCSV) {
		return app.Attachment{}, false, ""
	}
	return att, true, ""
}

// PastedPath returns the file a pasted text names, when the paste is one
// path to an existing regular file (as a terminal pastes a file dropped
// on it: possibly quoted, spaces escaped with \, or a file:// URL).
func PastedPath(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && (s[0] == '\'' || s[0] == '"') && s[len(s)-1] == s[0] {
		s = s[1 : len(s)-1]
	}
	s = strings.TrimPrefix(s, "file://")
	s = strings.ReplaceAll(s, `\ `, " ")
	if s == "" || strings.ContainsAny(s, "\n\r") || !filepath.IsAbs(s) {
		return "", false
	}
	st, err := os.Stat(s)
	if err != nil || !st.Mode().IsRegular() {
		return "", false
	}
	return s, true
}
