package file

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zelvior/aidex/internal/loader/loadertest"
	"github.com/zelvior/aidex/internal/tools"
)

func TestReadFileDocuments(t *testing.T) {
	f := newFixture(t)
	f.Write("report.pdf", string(loadertest.PDF(t, 3)))
	f.Write("memo.docx", string(loadertest.DOCX(t, "Budget", "Spend less.")))
	f.Write("book.xlsx", string(loadertest.XLSX(t)))
	f.Write("a.ipynb", string(loadertest.Notebook(t)))
	f.Write("deck.pptx", string(loadertest.PPTX(t, "Welcome", "Roadmap")))
	f.Write("t.csv", "a,b\n1,2\n3,4\n")
	f.Write("shot.png", string(loadertest.PNG(t, 40, 30)))

	cases := []struct {
		name string
		args m
		want []string
		not  string
	}{
		{"pdf", m{"path": "report.pdf"}, []string{"--- page 1 of 3 ---", "page1marker", "page3marker"}, ""},
		{"pdf pages", m{"path": "report.pdf", "pages": "2"}, []string{"--- page 2 of 3 ---", "page2marker", "[note: pages 2 of 3 shown]"}, "page1marker"},
		{"docx", m{"path": "memo.docx"}, []string{"# Budget", "Spend less.", "| r1c1 | r1c2 |"}, ""},
		{"xlsx both sheets", m{"path": "book.xlsx"}, []string{"## Sheet: Sales", "| South | 250 |", "## Sheet: Costs", "| rent | 900 |"}, ""},
		{"xlsx sheet", m{"path": "book.xlsx", "sheet": "Costs"}, []string{"| rent | 900 |"}, "Sales"},
		{"notebook", m{"path": "a.ipynb"}, []string{"## Cell 2 (code, execution 1)", "print(\"hi\")", "Output (stdout):", "42"}, ""},
		{"pptx", m{"path": "deck.pptx", "pages": "2"}, []string{"--- slide 2 of 2 ---\nRoadmap"}, "Welcome"},
		{"csv range", m{"path": "t.csv", "range": "A2:B2"}, []string{"| 1 | 2 |"}, "3"},
		{"png", m{"path": "shot.png"}, []string{"Image shot.png: image/png, 40×30 pixels"}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := f.OK("read_file", tc.args)
			for _, w := range tc.want {
				require.Contains(t, res.Output, w)
			}
			if tc.not != "" {
				require.NotContains(t, res.Output, tc.not)
			}
		})
	}
	res := f.OK("read_file", m{"path": "shot.png"})
	require.Len(t, res.Images, 1)
	require.Equal(t, "image/png", res.Images[0].MIME)

	// Text files are unchanged: numbered lines, CSV included.
	require.Contains(t, f.OK("read_file", m{"path": "t.csv"}).Output, "     1\ta,b")
	res = f.Fail("read_file", m{"path": "t.csv", "pages": "1"}, tools.CategoryValidation)
	require.Contains(t, res.Error, "is a CSV file: pass range")
	f.Write("x.txt", "hello\n")
	res = f.Fail("read_file", m{"path": "x.txt", "sheet": "S"}, tools.CategoryValidation)
	require.Contains(t, res.Error, "x.txt is a text file")
	res = f.Fail("read_file", m{"path": "book.xlsx", "sheet": "Nope"}, tools.CategoryValidation)
	require.True(t, strings.Contains(res.Error, "no sheet \"Nope\": the sheets are Sales, Costs"), res.Error)
	f.Write("blob.bin", "\x00\x01\x02\x03")
	res = f.Fail("read_file", m{"path": "blob.bin"}, tools.CategoryValidation)
	require.Contains(t, res.Error, "binary file (application/octet-stream, 4 B)")
}

// TestReadFileHostileDocumentIsAToolError: a hostile document (one that
// is ambiguous, or passes one of the loader's limits) is a tool error
// that names the cause (issue 43; every class is in internal/loader's
// hostile_test.go).
func TestReadFileHostileDocumentIsAToolError(t *testing.T) {
	f := newFixture(t)
	// A Word file with two word/document.xml members: which one a reader
	// takes is its own choice.
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, text := range []string{"shown", "hidden"} {
		w, err := zw.Create("word/document.xml")
		require.NoError(t, err)
		_, err = fmt.Fprintf(w, `<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>%s</w:t></w:r></w:p></w:body></w:document>`, text)
		require.NoError(t, err)
	}
	require.NoError(t, zw.Close())
	f.Write("two.docx", b.String())
	res := f.Fail("read_file", m{"path": "two.docx"}, tools.CategoryValidation)
	require.Contains(t, res.Error, "two members named word/document.xml")

	// A PNG header claiming 100,000 × 100,000 pixels.
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR\x00\x01\x86\xa0\x00\x01\x86\xa0\x08\x06\x00\x00\x00")
	png = binary.BigEndian.AppendUint32(png, crc32.ChecksumIEEE(png[12:29]))
	f.Write("huge.png", string(png))
	res = f.Fail("read_file", m{"path": "huge.png"}, tools.CategoryValidation)
	require.Contains(t, res.Error, "100000×100000 pixels")
	require.Contains(t, res.Error, "past the image limit of 64 megapixels")
}
