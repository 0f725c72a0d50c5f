package loader

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"path"
	"strconv"
	"strings"
	"time"
)

// The XLSX reader: SpreadsheetML (ECMA-376 part 1, §18) read with
// archive/zip and encoding/xml, as the DOCX and PPTX loaders are. Every
// member is streamed through the document's budget (openZip, zipArchive.open)
// and every XML element read costs a unit of work, so a workbook's cost is
// bounded by Limits whatever it holds.

// Sheet size limits of Excel (ECMA-376 §18.3.1.4, §18.3.1.73): a cell
// reference past them is malformed.
const (
	maxSheetCols = 16384   // column XFD
	maxSheetRows = 1048576 // row 1048576
)

// Relationship types (ECMA-376 part 1 §15.2, transitional and strict).
const (
	relOfficeDocument = "/officeDocument"
	relSharedStrings  = "/sharedStrings"
	relStyles         = "/styles"
)

// workbook is what the reader needs of a workbook's parts: its sheets in
// order, the shared string table, the styles' date formats and the
// 1904 date system flag.
type workbook struct {
	z       *zipArchive
	sheets  []sheetRef
	strings []string
	// dateStyle[i] tells how cell style i shows a number: as a date,
	// a time, both, or as a number (styleNumber).
	dateStyle []dateKind
	date1904  bool
}

// sheetRef is one sheet of the workbook: its name and its part.
type sheetRef struct{ name, part string }

// dateKind is how a cell style shows a number.
type dateKind uint8

const (
	styleNumber dateKind = iota
	styleDate
	styleTime
	styleDateTime
)

// openWorkbook reads the package's relationships, the workbook, its
// shared strings and its styles.
func openWorkbook(z *zipArchive) (*workbook, error) {
	wbPart := "xl/workbook.xml"
	if z.has("_rels/.rels") {
		rels, err := readRels(z, "_rels/.rels", "")
		if err != nil {
			return nil, err
		}
		for _, r := range rels {
			if strings.HasSuffix(r.typ, relOfficeDocument) {
				wbPart = r.target
				break
			}
		}
	}
	if !z.has(wbPart) {
		return nil, fmt.Errorf("malformed workbook: the file has no %s (not a spreadsheet?)", wbPart)
	}
	wb := &workbook{z: z}
	relsPart := path.Join(path.Dir(wbPart), "_rels", path.Base(wbPart)+".rels")
	byID := map[string]string{}
	var sstPart, stylesPart string
	if z.has(relsPart) {
		rels, err := readRels(z, relsPart, path.Dir(wbPart))
		if err != nil {
			return nil, err
		}
		for _, r := range rels {
			byID[r.id] = r.target
			switch {
			case strings.HasSuffix(r.typ, relSharedStrings):
				sstPart = r.target
			case strings.HasSuffix(r.typ, relStyles):
				stylesPart = r.target
			}
		}
	}
	if err := wb.readWorkbook(wbPart, byID); err != nil {
		return nil, err
	}
	if sstPart != "" && z.has(sstPart) {
		if err := wb.readSharedStrings(sstPart); err != nil {
			return nil, err
		}
	}
	if stylesPart != "" && z.has(stylesPart) {
		if err := wb.readStyles(stylesPart); err != nil {
			return nil, err
		}
	}
	return wb, nil
}

// rel is one relationship: its id, type and target part name.
type rel struct{ id, typ, target string }

// readRels reads a relationships part; targets are resolved against dir
// (the folder of the part they belong to) unless absolute.
func readRels(z *zipArchive, part, dir string) ([]rel, error) {
	var out []rel
	err := z.walkXML(part, func(dec *xml.Decoder, t xml.StartElement) error {
		if t.Name.Local != "Relationship" || attr(t, "TargetMode") == "External" {
			return nil
		}
		target := strings.ReplaceAll(attr(t, "Target"), `\`, "/")
		if strings.HasPrefix(target, "/") {
			target = strings.TrimPrefix(target, "/")
		} else {
			target = path.Join(dir, target)
		}
		out = append(out, rel{id: attr(t, "Id"), typ: attr(t, "Type"), target: target})
		return nil
	})
	return out, err
}

// readWorkbook reads the sheet list and the date system.
func (wb *workbook) readWorkbook(part string, byID map[string]string) error {
	return wb.z.walkXML(part, func(dec *xml.Decoder, t xml.StartElement) error {
		switch t.Name.Local {
		case "workbookPr":
			v := attr(t, "date1904")
			wb.date1904 = v == "1" || v == "true"
		case "sheet":
			name, id := attr(t, "name"), attr(t, "id")
			target, ok := byID[id]
			if !ok {
				return fmt.Errorf("malformed workbook: sheet %q names relationship %q, which %s does not have", name, id, part)
			}
			wb.sheets = append(wb.sheets, sheetRef{name: name, part: target})
		}
		return nil
	})
}

// readSharedStrings reads the shared string table: the text of each
// string item (si), its rich-text runs joined, phonetic runs (rPh) left
// out.
func (wb *workbook) readSharedStrings(part string) error {
	var cur strings.Builder
	return wb.z.walkXML(part, func(dec *xml.Decoder, t xml.StartElement) error {
		switch t.Name.Local {
		case "si":
			cur.Reset()
			if err := wb.z.textOf(dec, part, &cur); err != nil {
				return err
			}
			wb.strings = append(wb.strings, cur.String())
		}
		return nil
	})
}

// readStyles reads which cell styles (cellXfs) show numbers as dates or
// times: the built-in date formats and custom formats (numFmt) whose code
// has date or time parts.
func (wb *workbook) readStyles(part string) error {
	custom := map[int]dateKind{}
	inCellXfs := false
	return wb.z.walkXMLEnd(part, func(dec *xml.Decoder, t xml.StartElement) error {
		switch t.Name.Local {
		case "numFmt":
			id, err := strconv.Atoi(attr(t, "numFmtId"))
			if err == nil {
				custom[id] = formatKind(attr(t, "formatCode"))
			}
		case "cellXfs":
			inCellXfs = true
		case "xf":
			if !inCellXfs {
				return nil
			}
			id, _ := strconv.Atoi(attr(t, "numFmtId"))
			kind, ok := custom[id]
			if !ok {
				kind = builtinFormatKind(id)
			}
			wb.dateStyle = append(wb.dateStyle, kind)
		}
		return nil
	}, func(e xml.EndElement) {
		if e.Name.Local == "cellXfs" {
			inCellXfs = false
		}
	})
}

// builtinFormatKind is how a built-in number format (ECMA-376
// §18.8.30) shows a number.
func builtinFormatKind(id int) dateKind {
	switch {
	case id >= 14 && id <= 17, id >= 27 && id <= 31, id == 34, id == 35, id >= 50 && id <= 58:
		return styleDate
	case id >= 18 && id <= 21, id == 32, id == 33, id >= 45 && id <= 47:
		return styleTime
	case id == 22:
		return styleDateTime
	}
	return styleNumber
}

// formatKind reads a custom number format code: date parts (d, y, or m
// with them), time parts (h, s, AM/PM). Quoted text, escaped characters
// and [colour]/[condition] sections do not count; elapsed-time codes
// ([h], [mm]) are times.
func formatKind(code string) dateKind {
	date, tm := false, false
	for i := 0; i < len(code); i++ {
		switch c := code[i]; c {
		case '"':
			if j := strings.IndexByte(code[i+1:], '"'); j >= 0 {
				i += j + 1
			} else {
				i = len(code)
			}
		case '\\', '_', '*':
			i++
		case '[':
			j := strings.IndexByte(code[i:], ']')
			if j < 0 {
				return styleNumber
			}
			switch strings.ToLower(strings.Trim(code[i+1:i+j], "hms")) {
			case "": // [h], [mm], [ss]
				tm = true
			}
			i += j
		case 'd', 'D', 'y', 'Y':
			date = true
		case 'h', 'H', 's', 'S':
			tm = true
		case 'A', 'a':
			if strings.HasPrefix(strings.ToUpper(code[i:]), "AM/PM") {
				tm = true
				i += 4
			}
		case ';':
			// Only the first section (positive numbers) decides.
			i = len(code)
		}
	}
	switch {
	case date && tm:
		return styleDateTime
	case date:
		return styleDate
	case tm:
		return styleTime
	}
	return styleNumber
}

// sheetIndex returns the sheet named name, or -1.
func (wb *workbook) sheetIndex(name string) int {
	for i, s := range wb.sheets {
		if s.name == name {
			return i
		}
	}
	return -1
}

// sheetNames lists the sheets in workbook order.
func (wb *workbook) sheetNames() []string {
	out := make([]string, len(wb.sheets))
	for i, s := range wb.sheets {
		out[i] = s.name
	}
	return out
}

// readSheet streams the rows of sheet s into t. Rows the range or the
// row cap leave out are counted, their cells not kept; missing rows
// between two rows count as empty rows, as a spreadsheet shows them. Each
// XML element costs a unit of work, and each cell kept (with the empty
// ones before it) another.
func (wb *workbook) readSheet(s sheetRef, t *table) error {
	if !wb.z.has(s.part) {
		return fmt.Errorf("malformed workbook: no part %s", s.part)
	}
	rd := sheetReader{wb: wb, t: t, part: s.part}
	return wb.z.walkXMLEnd(s.part, rd.start, rd.end)
}

// sheetReader is the state of one sheet's reading.
type sheetReader struct {
	wb      *workbook
	t       *table
	part    string
	lastRow int      // the last row number read
	row     int      // the row being read (0 outside a row)
	keep    bool     // the row's cells are kept
	cells   []string // the row's cells so far
	col     int      // the last column read in the row
}

func (r *sheetReader) start(dec *xml.Decoder, el xml.StartElement) error {
	switch el.Name.Local {
	case "row":
		n := r.lastRow + 1
		if v := attr(el, "r"); v != "" {
			var err error
			if n, err = strconv.Atoi(v); err != nil || n <= r.lastRow || n > maxSheetRows {
				return fmt.Errorf("malformed row number %q after row %d", v, r.lastRow)
			}
		}
		for gap := r.lastRow + 1; gap < n; gap++ {
			if err := r.wb.z.bud.charge(1, r.part); err != nil {
				return err
			}
			r.t.add(gap, []string{})
		}
		r.row, r.lastRow, r.col = n, n, 0
		r.keep = r.t.wants(n)
		r.cells = r.cells[:0]
	case "c":
		if r.row == 0 {
			return nil
		}
		col := r.col + 1
		if ref := attr(el, "r"); ref != "" {
			c, _, err := cellRef(ref)
			if err != nil || c <= r.col {
				return fmt.Errorf("malformed cell reference %q in row %d", ref, r.row)
			}
			col = c
		}
		r.col = col
		v, err := r.wb.cellValue(dec, el, r.part)
		if err != nil {
			return err
		}
		if !r.keep {
			return nil
		}
		if err := r.wb.z.bud.charge(int64(col-len(r.cells)), r.part); err != nil {
			return err
		}
		for len(r.cells) < col-1 {
			r.cells = append(r.cells, "")
		}
		r.cells = append(r.cells, v)
	}
	return nil
}

func (r *sheetReader) end(el xml.EndElement) {
	if el.Name.Local != "row" || r.row == 0 {
		return
	}
	if r.keep {
		r.t.add(r.row, append([]string(nil), r.cells...))
	} else {
		r.t.add(r.row, nil)
	}
	r.row = 0
}

// cellValue reads cell element el (its start read) to its end and
// returns the text a spreadsheet shows for it: shared and inline strings,
// numbers (dates and times by their style), booleans as TRUE/FALSE,
// error values (#DIV/0!) and formula results as stored.
func (wb *workbook) cellValue(dec *xml.Decoder, el xml.StartElement, part string) (string, error) {
	typ, style := attr(el, "t"), attr(el, "s")
	var v, inline strings.Builder
	depth := 1
	for depth > 0 {
		tok, err := dec.Token()
		if err != nil {
			return "", malformedXML(err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if err := wb.z.bud.charge(1, part); err != nil {
				return "", err
			}
			switch t.Name.Local {
			case "v":
				if err := wb.z.readChars(dec, part, &v); err != nil {
					return "", err
				}
				continue
			case "is":
				if err := wb.z.textOf(dec, part, &inline); err != nil {
					return "", err
				}
				continue
			}
			depth++
		case xml.EndElement:
			depth--
		}
	}
	return wb.show(typ, style, v.String(), inline.String())
}

// show turns a cell's stored value raw (or its inline string) into the
// text a spreadsheet shows, by the cell's type typ and style.
func (wb *workbook) show(typ, style, raw, inline string) (string, error) {
	switch typ {
	case "s":
		i, err := strconv.Atoi(strings.TrimSpace(raw))
		if err != nil || i < 0 || i >= len(wb.strings) {
			return "", fmt.Errorf("cell names shared string %q; the table has %d", raw, len(wb.strings))
		}
		return wb.strings[i], nil
	case "inlineStr":
		return inline, nil
	case "b":
		if strings.TrimSpace(raw) == "1" {
			return "TRUE", nil
		}
		return "FALSE", nil
	case "str", "e", "d":
		return raw, nil
	}
	if raw == "" {
		return "", nil
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(raw), 64)
	if err != nil {
		return raw, nil
	}
	if i, err := strconv.Atoi(style); err == nil && i >= 0 && i < len(wb.dateStyle) && wb.dateStyle[i] != styleNumber {
		if s, ok := excelTime(f, wb.date1904, wb.dateStyle[i]); ok {
			return s, nil
		}
	}
	return formatNumber(f), nil
}

// formatNumber writes a number as Excel's General format does, to 15
// significant digits: 100, 0.1, 1234.5678, 1E+20.
func formatNumber(f float64) string {
	r, err := strconv.ParseFloat(strconv.FormatFloat(f, 'g', 15, 64), 64)
	if err != nil {
		r = f
	}
	if a := math.Abs(r); a != 0 && (a >= 1e15 || a < 1e-9) {
		return strings.ToUpper(strconv.FormatFloat(r, 'g', -1, 64))
	}
	return strconv.FormatFloat(r, 'f', -1, 64)
}

// excelTime converts a serial date (days since 1899-12-30, or 1904-01-01
// in the 1904 system; the fraction is the time of day) to text; ok is
// false for a serial out of Excel's range.
func excelTime(serial float64, date1904 bool, kind dateKind) (string, bool) {
	if serial < 0 || serial > 2958466 || math.IsNaN(serial) {
		return "", false
	}
	epoch := time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC)
	if date1904 {
		epoch = time.Date(1904, 1, 1, 0, 0, 0, 0, time.UTC)
	} else if serial < 61 {
		// Excel counts 1900-02-29, which did not exist: serials below
		// 61 are a day later than the 1899-12-30 epoch gives.
		epoch = epoch.AddDate(0, 0, 1)
	}
	days := math.Floor(serial)
	ms := math.Round((serial - days) * 86400e3)
	t := epoch.AddDate(0, 0, int(days)).Add(time.Duration(ms) * time.Millisecond)
	switch kind {
	case styleDate:
		return t.Format("2006-01-02"), true
	case styleTime:
		return t.Format("15:04:05"), true
	}
	return t.Format("2006-01-02 15:04:05"), true
}

// cellRef parses a cell reference such as "B3" or "$B$3" into its
// 1-based column and row.
func cellRef(ref string) (col, row int, err error) {
	s := strings.ReplaceAll(strings.TrimSpace(ref), "$", "")
	i := 0
	for i < len(s) && (s[i] >= 'A' && s[i] <= 'Z' || s[i] >= 'a' && s[i] <= 'z') {
		col = col*26 + int(s[i]|0x20-'a'+1)
		if col > maxSheetCols {
			return 0, 0, fmt.Errorf("cell %q: past column XFD", ref)
		}
		i++
	}
	if i == 0 || i == len(s) {
		return 0, 0, fmt.Errorf("cell %q: want a column and a row, like B3", ref)
	}
	row, err = strconv.Atoi(s[i:])
	if err != nil || row < 1 || row > maxSheetRows || s[i] == '+' || s[i] == '-' {
		return 0, 0, fmt.Errorf("cell %q: rows go from 1 to %d", ref, maxSheetRows)
	}
	return col, row, nil
}

// walkXML streams member part through the budget and calls start for
// each start element (one unit of work each).
func (z *zipArchive) walkXML(part string, start func(*xml.Decoder, xml.StartElement) error) error {
	return z.walkXMLEnd(part, start, nil)
}

// walkXMLEnd is walkXML that also calls end (when not nil) for each end
// element start did not consume.
func (z *zipArchive) walkXMLEnd(part string, start func(*xml.Decoder, xml.StartElement) error, end func(xml.EndElement)) error {
	rc, err := z.open(part)
	if err != nil {
		return err
	}
	defer rc.Close()
	dec := xml.NewDecoder(rc)
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			if z.bud.err != nil {
				return z.bud.err
			}
			return fmt.Errorf("%s: %w", part, malformedXML(err))
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if err := z.bud.charge(1, part); err != nil {
				return err
			}
			if err := start(dec, t); err != nil {
				if z.bud.err != nil {
					return z.bud.err
				}
				return fmt.Errorf("%s: %w", part, err)
			}
		case xml.EndElement:
			if end != nil {
				end(t)
			}
		}
	}
}

// textOf reads the element whose start was just read to its end and
// appends the text of its t elements, leaving out phonetic runs (rPh).
func (z *zipArchive) textOf(dec *xml.Decoder, part string, out *strings.Builder) error {
	depth, skip := 1, 0
	for depth > 0 {
		tok, err := dec.Token()
		if err != nil {
			return malformedXML(err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if err := z.bud.charge(1, part); err != nil {
				return err
			}
			depth++
			switch {
			case t.Name.Local == "rPh" || skip > 0:
				skip++
			case t.Name.Local == "t":
				if err := z.readChars(dec, part, out); err != nil {
					return err
				}
				depth--
			}
		case xml.EndElement:
			depth--
			if skip > 0 {
				skip--
			}
		}
	}
	return nil
}

// readChars appends the character data of the element whose start was
// just read, up to its end (nested elements, a unit of work each, are
// skipped).
func (z *zipArchive) readChars(dec *xml.Decoder, part string, out *strings.Builder) error {
	depth := 1
	for depth > 0 {
		tok, err := dec.Token()
		if err != nil {
			return malformedXML(err)
		}
		switch t := tok.(type) {
		case xml.CharData:
			if depth == 1 {
				out.Write(t)
			}
		case xml.StartElement:
			if err := z.bud.charge(1, part); err != nil {
				return err
			}
			depth++
		case xml.EndElement:
			depth--
		}
	}
	return nil
}

// malformedXML names an XML error; a truncated part ends with EOF.
func malformedXML(err error) error {
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("malformed XML: %w", err)
}
