// Package loader turns files into model input: text for documents (PDF,
// DOCX, XLSX, CSV, PPTX, Jupyter notebooks, HTML, plain text) and image
// parts for pictures (PNG, JPEG, GIF, WebP). One registry serves read_file,
// @path mentions, /load, /load-project, `aidex -p --attach` and the web
// upload. The format is sniffed from the content (magic numbers,
// net/http.DetectContentType, the member names of a zip), the file name
// only breaking ties between text formats (.csv, .ipynb, .html).
//
// Every entry point caps what it reads (Options.MaxBytes) and what it
// returns (Options.MaxChars) and says in Document.Notes what was cut.
// Loading draws on one budget a document (Options.Limits: time, bytes
// expanded, units of work, pixels, nesting) that every loader and the
// libraries under it are metered against; a hostile file (a zip or Flate
// bomb, a cycle in a PDF, an image of a billion pixels) is refused with a
// *LimitError naming the limit, in bounded time and memory.
// Malformed input is an error naming the format and the cause; no entry
// point panics.
package loader

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// Kind is the detected format of a file.
type Kind string

// The formats the registry knows. KindBinary is every other binary format:
// refused with its detected type and size.
const (
	KindText     Kind = "text"
	KindImage    Kind = "image"
	KindPDF      Kind = "pdf"
	KindDOCX     Kind = "docx"
	KindXLSX     Kind = "xlsx"
	KindPPTX     Kind = "pptx"
	KindCSV      Kind = "csv"
	KindNotebook Kind = "notebook"
	KindHTML     Kind = "html"
	KindBinary   Kind = "binary"
)

// Default caps (see Options).
const (
	// DefaultMaxBytes is the largest file read: 32 MiB.
	DefaultMaxBytes = 32 << 20
	// DefaultMaxChars caps the returned text: 100 000 bytes, about 25 000
	// tokens at 4 bytes a token.
	DefaultMaxChars = 100_000
	// DefaultMaxRows is the row cap of each sheet or CSV table.
	DefaultMaxRows = 200
	// DefaultMaxImages caps the images of one document (notebook outputs).
	DefaultMaxImages = 8
)

// Options select and cap what a load returns. Zero values take the defaults.
type Options struct {
	// Pages selects PDF pages or PPTX slides: "3", "1-5", "1-3,7" (1-based).
	Pages string
	// Sheet selects one XLSX sheet by name (default: every sheet).
	Sheet string
	// Range selects cells of a sheet or CSV table, "A1:D20" (default: all,
	// up to MaxRows rows).
	Range string
	// MaxBytes is the largest input in bytes [DefaultMaxBytes].
	MaxBytes int64
	// MaxChars caps Document.Text in bytes [DefaultMaxChars].
	MaxChars int
	// MaxRows caps the rows of each table [DefaultMaxRows].
	MaxRows int
	// MaxImageSide is the longest side of an image in pixels; larger images
	// are scaled down [DefaultImageSide]; app sets the side of the provider's wire format (wire.Format.ImageSide).
	MaxImageSide int
	// KeepHTML returns HTML as its source text instead of markdown.
	KeepHTML bool
	// Limits bound the time, memory and work of the load (zero fields
	// take the defaults).
	Limits Limits
}

func (o Options) withDefaults() Options {
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.MaxChars <= 0 {
		o.MaxChars = DefaultMaxChars
	}
	if o.MaxRows <= 0 {
		o.MaxRows = DefaultMaxRows
	}
	if o.MaxImageSide <= 0 {
		o.MaxImageSide = DefaultImageSide
	}
	return o
}

// Image is one picture for the model: MIME is image/png, image/jpeg,
// image/gif or image/webp; Data its encoded bytes; Width and Height its
// size in pixels after scaling.
type Image struct {
	MIME   string
	Data   []byte
	Width  int
	Height int
}

// Document is a loaded file. Text is what the model reads (for an image, a
// one-line description); Images the pictures it should see; Notes say what
// was cut or could not be read (scanned pages, caps). Size is the input's
// size in bytes. For a PDF, Pages is its page count and PDF its bytes
// (for providers that read PDFs natively).
type Document struct {
	Name   string
	Kind   Kind
	MIME   string
	Size   int64
	Text   string
	Images []Image
	Notes  []string
	Pages  int
	PDF    []byte
}

// ErrUnsupported is wrapped by the error for a binary format no loader
// reads.
var ErrUnsupported = errors.New("unsupported file type")

// ErrTooLarge is wrapped by the error for input over Options.MaxBytes.
var ErrTooLarge = errors.New("file too large")

// LoadFile reads the file at path (at most opts.MaxBytes) and loads it.
// Errors: the file cannot be read, is too large (ErrTooLarge), is of an
// unsupported binary type (ErrUnsupported), or is malformed.
func LoadFile(ctx context.Context, path string, opts Options) (*Document, error) {
	opts = opts.withDefaults()
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", path, err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("load %s: not a regular file", path)
	}
	if st.Size() > opts.MaxBytes {
		return nil, fmt.Errorf("load %s: %w: %s, the limit is %s", path, ErrTooLarge, HumanSize(st.Size()), HumanSize(opts.MaxBytes))
	}
	data, err := io.ReadAll(io.LimitReader(f, opts.MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", path, err)
	}
	return Load(ctx, filepath.Base(path), data, opts)
}

// Load loads data, the content of a file called name (the name breaks ties
// between text formats and names the file in errors and markers).
func Load(ctx context.Context, name string, data []byte, opts Options) (*Document, error) {
	opts = opts.withDefaults()
	if int64(len(data)) > opts.MaxBytes {
		return nil, fmt.Errorf("load %s: %w: %s, the limit is %s", name, ErrTooLarge, HumanSize(int64(len(data))), HumanSize(opts.MaxBytes))
	}
	kind, mime := Sniff(name, data)
	doc := &Document{Name: name, Kind: kind, MIME: mime, Size: int64(len(data))}
	if kind == KindBinary {
		return nil, fmt.Errorf("load %s: %w: binary file (%s, %s); aidex reads text, PDF, DOCX, XLSX, CSV, PPTX, Jupyter notebooks, HTML and PNG/JPEG/GIF/WebP images",
			name, ErrUnsupported, mime, HumanSize(int64(len(data))))
	}
	bud, cancel := newBudget(ctx, opts.Limits)
	defer cancel()
	err := bud.run(kind, func() error {
		switch kind {
		case KindImage:
			return loadImage(doc, data, opts, bud)
		case KindPDF:
			return loadPDF(doc, data, opts, bud)
		case KindDOCX:
			return loadDOCX(doc, data, bud)
		case KindPPTX:
			return loadPPTX(doc, data, opts, bud)
		case KindXLSX:
			return loadXLSX(doc, data, opts, bud)
		case KindCSV:
			return loadCSV(doc, data, opts, bud)
		case KindNotebook:
			return loadNotebook(doc, data, opts, bud)
		case KindHTML:
			return loadHTML(bud.ctx, doc, data, opts)
		}
		doc.Text = string(data)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("load %s (%s): %w", name, kind, err)
	}
	capText(doc, opts.MaxChars)
	return doc, nil
}

// capText cuts doc.Text at max bytes (on a rune boundary) and notes it.
func capText(doc *Document, max int) {
	if len(doc.Text) <= max {
		return
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(doc.Text[cut]) {
		cut--
	}
	total := len(doc.Text)
	doc.Text = doc.Text[:cut]
	doc.Notes = append(doc.Notes, fmt.Sprintf("text cut at %d of %d bytes (about %d of %d tokens); ask for fewer pages, a sheet or a range to read the rest",
		cut, total, cut/4, total/4))
}

// Sniff detects the format of data, the content of a file called name, and
// its MIME type: magic numbers first (PDF, images, zip members for DOCX,
// XLSX and PPTX), then net/http.DetectContentType, the extension only
// choosing among text formats.
func Sniff(name string, data []byte) (Kind, string) {
	ext := strings.ToLower(filepath.Ext(name))
	switch {
	case bytes.HasPrefix(data, []byte("%PDF-")):
		return KindPDF, "application/pdf"
	case bytes.HasPrefix(data, []byte("PK\x03\x04")):
		return sniffZip(data)
	}
	mime := http.DetectContentType(data)
	if i := strings.IndexByte(mime, ';'); i >= 0 {
		mime = mime[:i]
	}
	switch mime {
	case "image/png", "image/jpeg", "image/gif", "image/webp":
		return KindImage, mime
	case "text/html", "text/xml":
		if ext == ".html" || ext == ".htm" || ext == ".xhtml" || mime == "text/html" {
			return KindHTML, "text/html"
		}
	}
	if !isText(data) {
		return KindBinary, mime
	}
	switch ext {
	case ".csv", ".tsv":
		return KindCSV, "text/csv"
	case ".ipynb":
		return KindNotebook, "application/x-ipynb+json"
	case ".html", ".htm", ".xhtml":
		return KindHTML, "text/html"
	}
	return KindText, "text/plain"
}

// isText reports whether data looks like text: valid UTF-8 (a cut last rune
// allowed) without NUL bytes.
func isText(data []byte) bool {
	head := data
	if cut := 64 << 10; len(head) > cut {
		for cut > 0 && !utf8.RuneStart(data[cut]) {
			cut-- // do not judge a rune cut by the window
		}
		head = data[:cut]
	}
	return bytes.IndexByte(head, 0) < 0 && utf8.Valid(head)
}

// HumanSize formats n bytes as "512 B", "12.3 KiB", "4.0 MiB", "2.5 GiB".
func HumanSize(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	case n < 1<<30:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
}
