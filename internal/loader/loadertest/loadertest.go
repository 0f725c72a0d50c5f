// Package loadertest builds real documents for tests of the file loaders
// and their users (read_file, @mentions, --attach, the web upload): a PDF
// typeset by groff, a DOCX, a two-sheet XLSX (written part by part), a notebook, a
// PPTX and PNG images. Only tests import it.
package loadertest

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// PDF typesets pages pages of text with `groff -ms -Tpdf` and returns the
// PDF. Page i (1-based) holds the word "pageNmarker" (N = i) in its text.
// Without groff's PDF device the test fails under CI and is skipped
// otherwise (.ci/run installs groff).
func PDF(t testing.TB, pages int) []byte {
	t.Helper()
	if _, err := exec.LookPath("groff"); err != nil {
		need(t, "groff (apt-get install groff) for a real PDF")
	}
	var src strings.Builder
	src.WriteString(".TL\nLoader test document\n")
	for i := 1; i <= pages; i++ {
		if i > 1 {
			src.WriteString(".bp\n")
		}
		fmt.Fprintf(&src, ".NH\nChapter %d\n.PP\nThis is page%dmarker with some ordinary words about quarterly revenue.\n", i, i)
	}
	cmd := exec.Command("groff", "-ms", "-Tpdf")
	cmd.Stdin = strings.NewReader(src.String())
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil || out.Len() == 0 {
		need(t, fmt.Sprintf("groff -Tpdf failed (%v: %s): install the groff package for its PDF device", err, errb.String()))
	}
	return out.Bytes()
}

// ScannedPDF returns a two-page PDF made by ghostscript (ps2pdf): page 1
// holds the text "typed page one", page 2 only a 200×200 gray image, as a
// scanned page does. Without ps2pdf the test fails under CI and is skipped
// otherwise (.ci/run installs ghostscript).
func ScannedPDF(t testing.TB) []byte {
	t.Helper()
	if _, err := exec.LookPath("ps2pdf"); err != nil {
		need(t, "ps2pdf (apt-get install ghostscript) for a PDF with a scanned page")
	}
	const ps = `%!PS
/Helvetica findfont 14 scalefont setfont 72 700 moveto (typed page one) show showpage
/row 200 string def 0 1 199 { row exch dup 256 mod put } for
gsave 72 300 translate 300 300 scale
200 200 8 [200 0 0 200 0 0] { row } image
grestore showpage
`
	cmd := exec.Command("ps2pdf", "-", "-")
	cmd.Stdin = strings.NewReader(ps)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil || out.Len() == 0 {
		need(t, fmt.Sprintf("ps2pdf failed (%v: %s)", err, errb.String()))
	}
	return out.Bytes()
}

func need(t testing.TB, msg string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg + " (CI unset: skipping)")
}

// Zip returns a zip archive of the given members (name → content).
func Zip(t testing.TB, members map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, body := range members {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// DOCX returns a Word document: a "Heading1" paragraph heading, the
// paragraphs, and a 2×2 table with cells "r1c1" … "r2c2".
func DOCX(t testing.TB, heading string, paragraphs ...string) []byte {
	t.Helper()
	var body strings.Builder
	fmt.Fprintf(&body, `<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>%s</w:t></w:r></w:p>`, heading)
	for _, p := range paragraphs {
		fmt.Fprintf(&body, `<w:p><w:r><w:t xml:space="preserve">%s</w:t></w:r></w:p>`, p)
	}
	body.WriteString(`<w:tbl>`)
	for r := 1; r <= 2; r++ {
		body.WriteString(`<w:tr>`)
		for c := 1; c <= 2; c++ {
			fmt.Fprintf(&body, `<w:tc><w:p><w:r><w:t>r%dc%d</w:t></w:r></w:p></w:tc>`, r, c)
		}
		body.WriteString(`</w:tr>`)
	}
	body.WriteString(`</w:tbl>`)
	doc := `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` +
		`<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>` + body.String() + `</w:body></w:document>`
	return Zip(t, map[string]string{
		"[Content_Types].xml": `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`,
		"word/document.xml":   doc,
	})
}

// PPTX returns a presentation whose slide i holds the line slides[i-1].
func PPTX(t testing.TB, slides ...string) []byte {
	t.Helper()
	m := map[string]string{"ppt/presentation.xml": `<p:presentation xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"/>`}
	for i, s := range slides {
		m[fmt.Sprintf("ppt/slides/slide%d.xml", i+1)] = `<p:sld xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><p:cSld><p:spTree><p:sp><p:txBody><a:p><a:r><a:t>` + s + `</a:t></a:r></a:p></p:txBody></p:sp></p:spTree></p:cSld></p:sld>`
	}
	return Zip(t, m)
}

// XLSX returns a workbook with two sheets: "Sales" (region, amount: North
// 100, South 250) and "Costs" (item, cost: rent 900). Its strings are in
// the shared string table, its numbers plain cells.
func XLSX(t testing.TB) []byte {
	t.Helper()
	return Workbook(t, map[string]string{
		"Sales": `<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c></row>` +
			`<row r="2"><c r="A2" t="s"><v>2</v></c><c r="B2"><v>100</v></c></row>` +
			`<row r="3"><c r="A3" t="s"><v>3</v></c><c r="B3"><v>250</v></c></row>`,
		"Costs": `<row r="1"><c r="A1" t="s"><v>4</v></c><c r="B1" t="s"><v>5</v></c></row>` +
			`<row r="2"><c r="A2" t="s"><v>6</v></c><c r="B2"><v>900</v></c></row>`,
	}, []string{"Sales", "Costs"}, []string{"region", "amount", "North", "South", "item", "cost", "rent"}, "")
}

// Workbook returns an XLSX package written part by part (ECMA-376): the
// sheets in order, each sheet's <sheetData> rows from rows, the shared
// strings sst, and styles (the <styleSheet> content, "" for none).
func Workbook(t testing.TB, rows map[string]string, order, sst []string, styles string) []byte {
	t.Helper()
	const (
		ns   = `xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"`
		rns  = `xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"`
		pkg  = `xmlns="http://schemas.openxmlformats.org/package/2006/relationships"`
		rel  = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/"
		head = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n"
	)
	m := map[string]string{
		"[Content_Types].xml": head + `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/></Types>`,
		"_rels/.rels":         head + `<Relationships ` + pkg + `><Relationship Id="rId1" Type="` + rel + `officeDocument" Target="xl/workbook.xml"/></Relationships>`,
	}
	var sheets, rels strings.Builder
	for i, name := range order {
		fmt.Fprintf(&sheets, `<sheet name="%s" sheetId="%d" r:id="rId%d"/>`, html.EscapeString(name), i+1, i+1)
		fmt.Fprintf(&rels, `<Relationship Id="rId%d" Type="%sworksheet" Target="worksheets/sheet%d.xml"/>`, i+1, rel, i+1)
		m[fmt.Sprintf("xl/worksheets/sheet%d.xml", i+1)] = head + `<worksheet ` + ns + `><sheetData>` + rows[name] + `</sheetData></worksheet>`
	}
	n := len(order)
	fmt.Fprintf(&rels, `<Relationship Id="rId%d" Type="%ssharedStrings" Target="sharedStrings.xml"/>`, n+1, rel)
	var si strings.Builder
	for _, s := range sst {
		fmt.Fprintf(&si, `<si><t xml:space="preserve">%s</t></si>`, html.EscapeString(s))
	}
	m["xl/sharedStrings.xml"] = head + fmt.Sprintf(`<sst %s count="%d" uniqueCount="%d">%s</sst>`, ns, len(sst), len(sst), si.String())
	if styles != "" {
		fmt.Fprintf(&rels, `<Relationship Id="rId%d" Type="%sstyles" Target="styles.xml"/>`, n+2, rel)
		m["xl/styles.xml"] = head + `<styleSheet ` + ns + `>` + styles + `</styleSheet>`
	}
	m["xl/workbook.xml"] = head + `<workbook ` + ns + ` ` + rns + `><sheets>` + sheets.String() + `</sheets></workbook>`
	m["xl/_rels/workbook.xml.rels"] = head + `<Relationships ` + pkg + `>` + rels.String() + `</Relationships>`
	return Zip(t, m)
}

// Notebook returns an nbformat 4 notebook: a markdown cell "# Analysis",
// a code cell `print("hi")` whose stream output is "hi", and a code cell
// with an execute_result "42".
func Notebook(t testing.TB) []byte {
	t.Helper()
	nb := map[string]any{
		"nbformat": 4, "nbformat_minor": 5,
		"metadata": map[string]any{"language_info": map[string]any{"name": "python"}},
		"cells": []any{
			map[string]any{"cell_type": "markdown", "source": []string{"# Analysis\n", "Some notes."}},
			map[string]any{"cell_type": "code", "execution_count": 1, "source": `print("hi")`,
				"outputs": []any{map[string]any{"output_type": "stream", "name": "stdout", "text": []string{"hi\n"}}}},
			map[string]any{"cell_type": "code", "execution_count": 2, "source": "6*7",
				"outputs": []any{map[string]any{"output_type": "execute_result", "data": map[string]any{"text/plain": "42"}}}},
		},
	}
	b, err := json.Marshal(nb)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// PNG returns a w×h PNG image filled with a gradient.
func PNG(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{uint8(x), uint8(y), 128, 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Write writes data to dir/name and returns the path.
func Write(t testing.TB, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
