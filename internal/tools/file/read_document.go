package file

import (
	"context"
	"errors"
	"path/filepath"
	"strings"

	"github.com/zelvior/aidex/internal/loader"
	"github.com/zelvior/aidex/internal/tools"
)

// readDocument is read_file for what is not a plain text file: documents
// and images through the loader. It returns nil for a text file (HTML and
// CSV included unless a sheet or range is asked), which read_file shows as
// numbered lines, and for a file showLines reports on (missing, a
// directory, too large).
func readDocument(ctx context.Context, env *tools.Env, a readFileArgs) *tools.Result {
	abs, res := env.Resolve("path", a.Path)
	if res != nil {
		return res
	}
	if fi, err := env.Stat(abs); err != nil || !fi.Mode().IsRegular() || fi.Size() > tools.MaxReadBytes {
		return nil
	}
	selects := a.Pages != "" || a.Sheet != "" || a.Range != ""
	// The start of the file tells a text file (read_file's common case,
	// read once by showLines) from a document without reading it twice.
	head, err := env.ReadHead(abs, sniffBytes)
	if err != nil || (!selects && textKind(filepath.Base(abs), head)) {
		return nil
	}
	content, fi, err := env.ReadRegular(abs)
	if err != nil {
		return nil
	}
	rel := env.Rel(abs)
	kind, _ := loader.Sniff(filepath.Base(abs), content)
	switch {
	case textKind(filepath.Base(abs), content):
		if selects {
			r := tools.Failf(tools.CategoryValidation, "%s is a text file: pages, sheet and range apply to PDF, PPTX, XLSX and CSV files; use offset and limit", rel)
			return &r
		}
		return nil
	case kind == loader.KindCSV && (a.Pages != "" || a.Sheet != ""):
		r := tools.Failf(tools.CategoryValidation, "%s is a CSV file: pass range (e.g. A1:D50), not pages or sheet; or offset and limit for its lines", rel)
		return &r
	case kind == loader.KindCSV && a.Range == "":
		return nil
	}
	doc, err := loader.Load(ctx, rel, content, loader.Options{Pages: a.Pages, Sheet: a.Sheet, Range: a.Range, MaxImageSide: env.ImageSide})
	if err != nil {
		cat := tools.CategoryValidation
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			cat = tools.CategoryExecution
		}
		r := tools.Failf(cat, "%v", err)
		return &r
	}
	if err := env.MarkRead(ctx, abs, content, fi.ModTime()); err != nil {
		r := tools.Failf(tools.CategoryExecution, "%v", err)
		return &r
	}
	r := tools.Success(documentText(doc), &tools.Meta{Path: rel, Lines: strings.Count(doc.Text, "\n"), Truncated: len(doc.Notes) > 0})
	for _, im := range doc.Images {
		r.Images = append(r.Images, tools.Image{MIME: im.MIME, Data: im.Data})
	}
	return &r
}

// documentText is a loaded document as the model reads it: its text, then
// a line for each note (what was cut, scanned pages).
func documentText(doc *loader.Document) string {
	var b strings.Builder
	b.WriteString(strings.TrimRight(doc.Text, "\n"))
	for _, n := range doc.Notes {
		b.WriteString("\n[note: " + n + "]")
	}
	return b.String()
}

// sniffBytes is how much of a file's start readDocument reads to tell a
// text file from a document (magic numbers, and text for the rest).
const sniffBytes = 8 << 10

// textKind reports whether data (a file's content, or its start) is text
// that read_file shows as numbered lines: text, HTML, or what the loader
// does not know and has no binary bytes.
func textKind(name string, data []byte) bool {
	kind, _ := loader.Sniff(name, data)
	return kind == loader.KindText || kind == loader.KindHTML || (kind == loader.KindBinary && !tools.IsBinary(data))
}
