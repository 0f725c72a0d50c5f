package loader_test

import (
	"bytes"
	"context"
	"errors"
	"image/png"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/loader"
	"github.com/zelvior/aidex/internal/loader/loadertest"
)

func load(t *testing.T, name string, data []byte, opts loader.Options) *loader.Document {
	t.Helper()
	doc, err := loader.Load(context.Background(), name, data, opts)
	if err != nil {
		t.Fatalf("Load(%s): %v", name, err)
	}
	return doc
}

func contains(t *testing.T, text string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("text lacks %q:\n%s", w, text)
		}
	}
}

func TestPDFPagesWithMarkers(t *testing.T) {
	data := loadertest.PDF(t, 3)
	doc := load(t, "report.pdf", data, loader.Options{})
	if doc.Kind != loader.KindPDF {
		t.Fatalf("kind %s, want pdf", doc.Kind)
	}
	contains(t, doc.Text, "--- page 1 of 3 ---", "page1marker", "--- page 3 of 3 ---", "page3marker")
	doc = load(t, "report.pdf", data, loader.Options{Pages: "2-3"})
	contains(t, doc.Text, "page2marker", "page3marker")
	if strings.Contains(doc.Text, "page1marker") {
		t.Errorf("pages 2-3 include page 1:\n%s", doc.Text)
	}
	if _, err := loader.Load(context.Background(), "report.pdf", data, loader.Options{Pages: "7"}); err == nil || !strings.Contains(err.Error(), "between 1 and 3") {
		t.Errorf("page 7 of 3: err %v, want one naming the valid range", err)
	}
}

func TestPDFScannedPageReported(t *testing.T) {
	doc := load(t, "scan.pdf", loadertest.ScannedPDF(t), loader.Options{})
	contains(t, doc.Text, "--- page 1 of 2 ---\ntyped page one", "--- page 2 of 2 ---\n[scanned page: an image without a text layer]")
	contains(t, strings.Join(doc.Notes, "\n"), "scanned pages without text (an OCR tool is needed): 2")
}

func TestDOCXParagraphsHeadingsTables(t *testing.T) {
	doc := load(t, "memo.docx", loadertest.DOCX(t, "Budget", "First paragraph.", "Second paragraph."), loader.Options{})
	contains(t, doc.Text, "# Budget", "First paragraph.", "Second paragraph.", "| r1c1 | r1c2 |", "| r2c1 | r2c2 |")
}

func TestXLSXSheetsRangesAndRowCap(t *testing.T) {
	data := loadertest.XLSX(t)
	doc := load(t, "book.xlsx", data, loader.Options{})
	contains(t, doc.Text, "## Sheet: Sales", "| region | amount |", "| South | 250 |", "## Sheet: Costs", "| rent | 900 |")
	doc = load(t, "book.xlsx", data, loader.Options{Sheet: "Costs"})
	if strings.Contains(doc.Text, "Sales") {
		t.Errorf("sheet Costs shows Sales:\n%s", doc.Text)
	}
	doc = load(t, "book.xlsx", data, loader.Options{Sheet: "Sales", Range: "A2:B2"})
	contains(t, doc.Text, "| North | 100 |")
	if strings.Contains(doc.Text, "South") {
		t.Errorf("range A2:B2 shows row 3:\n%s", doc.Text)
	}
	doc = load(t, "book.xlsx", data, loader.Options{Sheet: "Sales", MaxRows: 2})
	if len(doc.Notes) == 0 || !strings.Contains(doc.Notes[0], "2 of 3 rows") {
		t.Errorf("row cap notes %q, want \"2 of 3 rows\"", doc.Notes)
	}
	_, err := loader.Load(context.Background(), "book.xlsx", data, loader.Options{Sheet: "Nope"})
	if err == nil || !strings.Contains(err.Error(), "Sales, Costs") {
		t.Errorf("unknown sheet: err %v, want one listing the sheets", err)
	}
}

func TestCSVAsTable(t *testing.T) {
	doc := load(t, "t.csv", []byte("a,b\n1,\"x|y\"\n"), loader.Options{})
	contains(t, doc.Text, "| a | b |", `| 1 | x\|y |`)
}

func TestPPTXSlides(t *testing.T) {
	doc := load(t, "deck.pptx", loadertest.PPTX(t, "Welcome", "Roadmap"), loader.Options{})
	contains(t, doc.Text, "--- slide 1 of 2 ---\nWelcome", "--- slide 2 of 2 ---\nRoadmap")
}

func TestNotebookCellsWithOutputs(t *testing.T) {
	doc := load(t, "a.ipynb", loadertest.Notebook(t), loader.Options{})
	contains(t, doc.Text, "## Cell 1 (markdown)", "# Analysis", "```python\nprint(\"hi\")\n```", "Output (stdout):\n```\nhi\n```", "Result:\n```\n42\n```")
}

func TestHTMLToMarkdown(t *testing.T) {
	doc := load(t, "p.html", []byte("<html><body><h1>Title</h1><p>Some <b>bold</b> text.</p></body></html>"), loader.Options{})
	contains(t, doc.Text, "# Title", "**bold**")
}

func TestImageScaledToTheLimit(t *testing.T) {
	doc := load(t, "shot.png", loadertest.PNG(t, 400, 100), loader.Options{MaxImageSide: 200})
	if doc.Kind != loader.KindImage || len(doc.Images) != 1 {
		t.Fatalf("kind %s, %d images", doc.Kind, len(doc.Images))
	}
	img := doc.Images[0]
	cfg, err := png.DecodeConfig(bytes.NewReader(img.Data))
	if err != nil || cfg.Width != 200 || cfg.Height != 50 || img.MIME != "image/png" {
		t.Errorf("scaled image %dx%d %s (%v), want 200x50 image/png", cfg.Width, cfg.Height, img.MIME, err)
	}
	contains(t, strings.Join(doc.Notes, "\n"), "scaled from 400×100 to 200×50")
}

func TestSniffByContentNotExtension(t *testing.T) {
	if k, _ := loader.Sniff("notes.txt", loadertest.PNG(t, 2, 2)); k != loader.KindImage {
		t.Errorf("a PNG named .txt sniffed as %s", k)
	}
	if k, _ := loader.Sniff("x.bin", loadertest.XLSX(t)); k != loader.KindXLSX {
		t.Errorf("an XLSX named .bin sniffed as %s", k)
	}
}

func TestBinaryRefusedWithTypeAndSize(t *testing.T) {
	_, err := loader.Load(context.Background(), "a.out", []byte("\x7fELF\x02\x01\x01\x00\x00\x00"), loader.Options{})
	if !errors.Is(err, loader.ErrUnsupported) || !strings.Contains(err.Error(), "application/octet-stream, 10 B") {
		t.Errorf("err %v, want ErrUnsupported naming the type and size", err)
	}
	_, err = loader.Load(context.Background(), "a.zip", loadertest.Zip(t, map[string]string{"x": "y"}), loader.Options{})
	if !errors.Is(err, loader.ErrUnsupported) || !strings.Contains(err.Error(), "application/zip") {
		t.Errorf("plain zip: err %v, want ErrUnsupported naming application/zip", err)
	}
}

func TestCapsNoteWhatWasCut(t *testing.T) {
	doc := load(t, "big.txt", []byte(strings.Repeat("é", 100)), loader.Options{MaxChars: 51})
	if len(doc.Text) != 50 || len(doc.Notes) != 1 || !strings.Contains(doc.Notes[0], "cut at 50 of 200 bytes") {
		t.Errorf("text %d bytes, notes %q", len(doc.Text), doc.Notes)
	}
	_, err := loader.Load(context.Background(), "big.txt", make([]byte, 20), loader.Options{MaxBytes: 10})
	if !errors.Is(err, loader.ErrTooLarge) {
		t.Errorf("over MaxBytes: err %v, want ErrTooLarge", err)
	}
}
