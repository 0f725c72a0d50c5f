package app

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/llm/wire"
	"github.com/zelvior/aidex/internal/loader"
)

// Attachment is a file loaded for a prompt (--attach, @path, /load, a web
// upload): Name as shown to the model and the user, its detected Kind,
// the Parts to send (a <file> text part, then the image parts the model
// can see), Images (how many pictures it holds) and Notes (what was cut,
// pictures the model cannot see).
type Attachment struct {
	Name   string
	Kind   loader.Kind
	Parts  []llm.Part
	Images int
	Notes  []string
}

// LoadAttachment loads the file at path (absolute, or relative to the
// workspace) through the loader for a prompt; name is how it is shown
// ("" for path made workspace-relative). Images are scaled to the
// provider's limit; for a model that cannot see images they are left out
// with a note (modelRoom.imageInput). Errors: unreadable, too large, an
// unsupported binary type (loader.ErrUnsupported) or malformed.
func (rt *Runtime) LoadAttachment(ctx context.Context, path, name string) (Attachment, error) {
	if !filepath.IsAbs(path) {
		path = filepath.Join(rt.Workspace, path)
	}
	if name == "" {
		name = path
		if rel, err := filepath.Rel(rt.Workspace, path); err == nil && !strings.HasPrefix(rel, "..") {
			name = filepath.ToSlash(rel)
		}
	}
	doc, err := loader.LoadFile(ctx, path, loader.Options{MaxImageSide: rt.modelRoom().imageSide()})
	if err != nil {
		return Attachment{}, fmt.Errorf("attach %s: %w", name, err)
	}
	doc.Name = name
	return rt.modelRoom().attachment(doc), nil
}

// AttachData is LoadAttachment for content already in memory (a web
// upload called name).
func (rt *Runtime) AttachData(ctx context.Context, name string, data []byte) (Attachment, error) {
	doc, err := loader.Load(ctx, name, data, loader.Options{MaxImageSide: rt.modelRoom().imageSide()})
	if err != nil {
		return Attachment{}, fmt.Errorf("attach %s: %w", name, err)
	}
	return rt.modelRoom().attachment(doc), nil
}

// Native PDF limits: a PDF goes to the model as a document (not as its
// extracted text) when it has at most 100 pages (Anthropic's limit for
// PDF support) and at most 4 MiB (well under every provider's request
// size limit).
const (
	maxNativePDFPages = 100
	maxNativePDFBytes = 4 << 20
)

// nativePDF reports whether the runtime's model reads PDF documents
// itself: a model that sees images (ImageInput) whose wire format says so
// (wire.Format.PDF: the Anthropic and Gemini APIs, OpenAI itself but not
// the hosts that speak its wire format).
func (rt modelRoom) nativePDF() bool {
	if ok, _ := rt.modelRoom().imageInput(); !ok {
		return false
	}
	f, ok := wire.Lookup(string(rt.Provider.Type))
	return ok && f.PDF(rt.Provider.Name)
}

func (rt modelRoom) attachment(doc *loader.Document) Attachment {
	if doc.Kind == loader.KindPDF && doc.Pages <= maxNativePDFPages && len(doc.PDF) <= maxNativePDFBytes && rt.modelRoom().nativePDF() {
		text := fmt.Sprintf("<file path=%q type=\"pdf\">\n(the PDF document follows: %d pages)\n</file>", doc.Name, doc.Pages)
		return Attachment{Name: doc.Name, Kind: doc.Kind, Parts: []llm.Part{{Type: llm.PartText, Text: text},
			{Type: llm.PartDocument, MIMEType: "application/pdf", Data: doc.PDF, Text: filepath.Base(doc.Name)}}}
	}
	a := Attachment{Name: doc.Name, Kind: doc.Kind, Images: len(doc.Images), Notes: doc.Notes}
	vision, note := rt.modelRoom().imageInput()
	if len(doc.Images) > 0 && !vision {
		a.Notes = append(a.Notes, note)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<file path=%q type=%q>\n%s\n", doc.Name, doc.Kind, strings.TrimRight(doc.Text, "\n"))
	for _, n := range a.Notes {
		b.WriteString("[note: " + n + "]\n")
	}
	b.WriteString("</file>")
	a.Parts = []llm.Part{{Type: llm.PartText, Text: b.String()}}
	if vision {
		for _, im := range doc.Images {
			a.Parts = append(a.Parts, llm.Part{Type: llm.PartImage, MIMEType: im.MIME, Data: im.Data})
		}
	}
	return a
}

// AddParts queues parts (a loaded file's text and images) that go to the
// model with the next prompt, as AddContext does for text.
func (ls *Session) AddParts(parts ...llm.Part) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	ls.pending = append(ls.pending, parts...)
}
