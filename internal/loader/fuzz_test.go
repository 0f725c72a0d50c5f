package loader_test

import (
	"context"
	"testing"

	"github.com/zelvior/aidex/internal/loader"
	"github.com/zelvior/aidex/internal/loader/loadertest"
)

// fuzzLoad checks one entry point: no panic, and a failure is an error
// with a message.
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
		doc, err := loader.Load(context.Background(), name, data, loader.Options{MaxBytes: 1 << 20, Pages: "", MaxImageSide: 64})
		if err != nil && err.Error() == "" {
			t.Fatal("an error without a message")
		}
		if err == nil && doc == nil {
			t.Fatal("no document and no error")
		}
	})
}

func FuzzPDF(f *testing.F)  { fuzzLoad(f, "f.pdf", loadertest.PDF(f, 2), []byte("%PDF-1.4\n")) }
func FuzzDOCX(f *testing.F) { fuzzLoad(f, "f.docx", loadertest.DOCX(f, "H", "p")) }
func FuzzXLSX(f *testing.F) { fuzzLoad(f, "f.xlsx", loadertest.XLSX(f)) }
func FuzzPPTX(f *testing.F) { fuzzLoad(f, "f.pptx", loadertest.PPTX(f, "a", "b")) }
func FuzzCSV(f *testing.F)  { fuzzLoad(f, "f.csv", []byte("a,b\n\"1,2\n")) }
func FuzzNotebook(f *testing.F) {
	fuzzLoad(f, "f.ipynb", loadertest.Notebook(f), []byte(`{"cells":[{"outputs":[{"output_type":"display_data","data":{"image/png":"iVBOR"}}]}]}`))
}
func FuzzImage(f *testing.F) {
	fuzzLoad(f, "f.png", loadertest.PNG(f, 8, 8), []byte("GIF89a\x01\x00\x01\x00"), []byte("RIFF\x00\x00\x00\x00WEBPVP8 "))
}
func FuzzHTML(f *testing.F) { fuzzLoad(f, "f.html", []byte("<html><table><tr><td>x")) }
