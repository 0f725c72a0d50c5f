package loader_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/zelvior/aidex/internal/loader"
	"github.com/zelvior/aidex/internal/loader/loadertest"
)

// fuzzLimits are small limits, so that each input ends fast and a
// mutated bomb trips them rather than the fuzzer's patience.
var fuzzLimits = loader.Limits{Time: 5 * time.Second, Bytes: 4 << 20, Work: 200_000, Pixels: 1 << 20}

// fuzzLoad checks one entry point: no panic, and a failure is an error
// with a message (a limit passed is a *LimitError naming its limit).
func fuzzLoad(f *testing.F, name string, seeds ...[]byte) {
	for _, s := range seeds {
		f.Add(s)
		if len(s) > 20 {
			f.Add(s[:len(s)/2]) // truncated
			c := append([]byte(nil), s...)
			c[len(c)/3] ^= 0xff // one corrupted byte
			f.Add(c)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := loader.Load(context.Background(), name, data, loader.Options{MaxBytes: 1 << 20, Pages: "", MaxImageSide: 64, Limits: fuzzLimits})
		if err != nil && err.Error() == "" {
			t.Fatal("an error without a message")
		}
		var le *loader.LimitError
		if errors.As(err, &le) && (le.Limit == "" || !errors.Is(err, loader.ErrLimit)) {
			t.Fatalf("a limit error that names no limit: %v", err)
		}
		if err == nil && doc == nil {
			t.Fatal("no document and no error")
		}
	})
}

// The hostile seeds are the generators of hostile_test.go at sizes that
// pass fuzzLimits quickly.

func FuzzPDF(f *testing.F) {
	fuzzLoad(f, "f.pdf", loadertest.PDF(f, 2), []byte("%PDF-1.4\n"),
		pdfPageTree("<< /Type /Pages /Kids [3 0 R] /Count 1 >>", "<< /Type /Pages /Parent 2 0 R /Kids [2 0 R] /Count 1 >>"),
		pdfPageTree("<< /Type /Pages /Kids [3 0 R] /Count 1 >>", "<< /Type /Page /Parent 4 0 R /Contents 5 0 R >>", "<< /Type /Pages /Parent 3 0 R >>", textPage),
		pdfPageTree("<< /Type /Pages /Kids [3 0 R] /Count 2000000000 >>", "<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>", textPage),
		pdfFile(onePage("BT ET"), func(xref int) string { return fmt.Sprintf("/Root 1 0 R /Prev %d", xref) }),
		pdfXrefStream(onePage("BT ET"), direct, func(self int) string { return fmt.Sprintf("/Root 1 0 R /Prev %d", self) }),
		pdfXrefStream(onePage("BT ET"), func(offs []int) []xrefEntry {
			e := direct(offs)
			e[1] = xrefEntry{typ: 2, strm: 1}
			return e
		}, func(int) string { return "/Root 1 0 R" }),
		pdfXrefStream(onePage("BT ET"), direct, func(int) string { return "/Root 1 0 R /Size 4000000000" }),
		pdfFlate(zlibBomb(" ", 64<<20)),
		pdfFlate(zlibBomb("(a)Tj\n", 16<<20)),
	)
}

func FuzzDOCX(f *testing.F) {
	fuzzLoad(f, "f.docx", loadertest.DOCX(f, "H", "p"),
		zipFile([]zent{member("word/document.xml", docxDoc, false), member("word/document.xml", docxDoc, false)}),
		zipFile([]zent{bombMember("word/document.xml", "<w:p/>", 64<<20)}),
		zipFile([]zent{bombMember("word/document.xml", docxDoc, 8<<20), {name: "word/other.xml", share: 0}}),
	)
}

func FuzzXLSX(f *testing.F) {
	var sparse strings.Builder
	sparse.WriteString(sheetHead)
	for r := 1; r <= 50; r++ {
		fmt.Fprintf(&sparse, `<row r="%d"><c r="XFD%d" t="inlineStr"><is><t>x</t></is></c></row>`, r, r)
	}
	sparse.WriteString(sheetTail)
	fuzzLoad(f, "f.xlsx", loadertest.XLSX(f),
		zipFile(xlsxParts(bombMember("xl/worksheets/sheet1.xml", `<row><c t="inlineStr"><is><t>x</t></is></c></row>`, 16<<20), zent{})),
		zipFile(xlsxParts(member("xl/worksheets/sheet1.xml", sheetHead+`<row r="1"><c r="A1" t="s"><v>0</v></c></row>`+sheetTail, true), bombMember("xl/sharedStrings.xml", "<si><t>x</t></si>", 16<<20))),
		zipFile(xlsxParts(member("xl/worksheets/sheet1.xml", sparse.String(), true), zent{})),
	)
}

func FuzzPPTX(f *testing.F) {
	ents := []zent{member("ppt/presentation.xml", pptxPres, false), bombMember("ppt/slides/slide1.xml", pptxSlide, 2<<20)}
	for i := 2; i <= 5; i++ {
		ents = append(ents, zent{name: fmt.Sprintf("ppt/slides/slide%d.xml", i), share: 1})
	}
	fuzzLoad(f, "f.pptx", loadertest.PPTX(f, "a", "b"), zipFile(ents))
}

func FuzzCSV(f *testing.F) {
	fuzzLoad(f, "f.csv", []byte("a,b\n\"1,2\n"), []byte(strings.Repeat("a\n", 300_000)))
}

func FuzzNotebook(f *testing.F) {
	fuzzLoad(f, "f.ipynb", loadertest.Notebook(f), []byte(`{"cells":[{"outputs":[{"output_type":"display_data","data":{"image/png":"iVBOR"}}]}]}`),
		[]byte(`{"cells":[`+strings.Repeat(`{},`, 250_000)+`{}]}`),
		[]byte(`{"cells":[{"cell_type":"code","source":"x","outputs":[{"output_type":"stream","name":"stdout","text":[`+strings.Repeat(`"a\n",`, 150_000)+`"end"]}]}]}`),
	)
}

func FuzzImage(f *testing.F) {
	fuzzLoad(f, "f.png", loadertest.PNG(f, 8, 8), []byte("GIF89a\x01\x00\x01\x00"), []byte("RIFF\x00\x00\x00\x00WEBPVP8 "),
		pngHeader(100000, 100000, 8, 6, zlibBomb("\x00", 1<<20)),
		pngHeader(1024, 1024, 16, 6, zlibBomb(strings.Repeat("\x00", 1+1024*8), 1024*(1+1024*8))),
	)
}

func FuzzHTML(f *testing.F) { fuzzLoad(f, "f.html", []byte("<html><table><tr><td>x")) }
