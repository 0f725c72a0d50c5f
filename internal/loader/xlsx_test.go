package loader_test

import (
	"archive/zip"
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/loader"
	"github.com/zelvior/aidex/internal/loader/loadertest"
)

// TestXLSXCellKinds reads one cell of every kind SpreadsheetML stores, in
// a workbook written part by part: shared strings (rich text joined,
// phonetic runs left out), inline strings, numbers as Excel's General
// format shows them, dates and times by built-in and custom number
// formats, booleans, error values, formula results, cells without a
// reference, and rows missing between two rows.
func TestXLSXCellKinds(t *testing.T) {
	styles := `<numFmts count="2"><numFmt numFmtId="164" formatCode="yyyy\-mm\-dd\ hh:mm"/><numFmt numFmtId="165" formatCode="&quot;day &quot;0.00"/></numFmts>` +
		`<cellXfs count="5"><xf numFmtId="0"/><xf numFmtId="14"/><xf numFmtId="164"/><xf numFmtId="21"/><xf numFmtId="165"/></cellXfs>`
	rows := `<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c><c r="C1" t="inlineStr"><is><r><t>in</t></r><r><t>line</t></r></is></c></row>` +
		`<row r="2"><c r="A2"><v>0.1</v></c><c r="B2"><v>1234.5678</v></c><c r="C2"><v>1E+20</v></c><c r="D2"><v>0.30000000000000004</v></c></row>` +
		`<row r="3"><c r="A3" s="1"><v>45000</v></c><c r="B3" s="2"><v>45000.5</v></c><c r="C3" s="3"><v>0.75</v></c><c r="D3" s="4"><v>2</v></c></row>` +
		`<row r="4"><c r="A4" t="b"><v>1</v></c><c r="B4" t="b"><v>0</v></c><c r="C4" t="e"><v>#DIV/0!</v></c><c r="D4" t="str"><f>A1&amp;B1</f><v>ab</v></c></row>` +
		`<row><c><v>7</v></c><c><v>8</v></c><c r="D5"><v>9</v></c></row>` +
		`<row r="7"><c r="B7" t="s"><v>2</v></c></row>`
	data := loadertest.Workbook(t, map[string]string{"Kinds": rows}, []string{"Kinds"}, []string{"head", "rich", "last"}, styles)
	// The rich-text shared string: two runs and a phonetic run.
	data = loadertest.Zip(t, replaceMember(t, data, "xl/sharedStrings.xml",
		`<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><si><t>head</t></si><si><r><t>ri</t></r><r><t>ch</t></r><rPh sb="0" eb="1"><t>PHONETIC</t></rPh></si><si><t>last</t></si></sst>`))
	doc := load(t, "kinds.xlsx", data, loader.Options{})
	for _, want := range []string{
		"| head | rich | inline |  |",
		"| 0.1 | 1234.5678 | 1E+20 | 0.3 |",
		"| 2023-03-15 | 2023-03-15 12:00:00 | 18:00:00 | 2 |",
		"| TRUE | FALSE | #DIV/0! | ab |",
		"| 7 | 8 |  | 9 |",
		"|  |  |  |  |\n|  | last |  |  |",
	} {
		if !strings.Contains(doc.Text, want) {
			t.Errorf("missing %q in:\n%s", want, doc.Text)
		}
	}
	if strings.Contains(doc.Text, "PHONETIC") {
		t.Errorf("the phonetic run was read:\n%s", doc.Text)
	}
}

// TestXLSXMalformed: a broken workbook is an error naming its cause.
func TestXLSXMalformed(t *testing.T) {
	for _, c := range []struct{ name, rows, want string }{
		{"shared string out of range", `<row r="1"><c r="A1" t="s"><v>9</v></c></row>`, "shared string"},
		{"column past XFD", `<row r="1"><c r="XFE1"><v>1</v></c></row>`, "malformed cell reference"},
		{"rows out of order", `<row r="2"/><row r="1"/>`, "malformed row number"},
		{"truncated XML", `<row r="1"><c r="A1"><v>1`, "malformed XML"},
	} {
		data := loadertest.Workbook(t, map[string]string{"S": c.rows}, []string{"S"}, []string{"x"}, "")
		if _, err := loadDoc("bad.xlsx", data, loader.Options{}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want one containing %q", c.name, err, c.want)
		}
	}
}

// replaceMember returns the members of zip data with name's replaced.
func replaceMember(t *testing.T, data []byte, name, body string) map[string]string {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		m[f.Name] = string(b)
	}
	m[name] = body
	return m
}

func loadDoc(name string, data []byte, opts loader.Options) (*loader.Document, error) {
	return loader.Load(context.Background(), name, data, opts)
}
