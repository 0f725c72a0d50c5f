package loader

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// cellRange is a rectangle of cells, 1-based and inclusive; zero is "all".
type cellRange struct{ col1, row1, col2, row2 int }

// parseRange parses "A1:D20" (or one cell "B3"); "" is every cell.
func parseRange(spec string) (cellRange, error) {
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return cellRange{}, nil
	}
	a, b, ok := strings.Cut(spec, ":")
	if !ok {
		b = a
	}
	c1, r1, err1 := cellRef(a)
	c2, r2, err2 := cellRef(b)
	if err1 != nil || err2 != nil {
		return cellRange{}, fmt.Errorf("range %q: write cells like \"A1:D20\" (columns A.., rows from 1)", spec)
	}
	return cellRange{min(c1, c2), min(r1, r2), max(c1, c2), max(r1, r2)}, nil
}

// keep reports whether row (1-based) is in the range.
func (r cellRange) keep(row int) bool {
	return r == (cellRange{}) || row >= r.row1 && row <= r.row2
}

// cut cuts a row's cells to the range's columns (all when r is zero).
func (r cellRange) cut(row []string) []string {
	if r == (cellRange{}) {
		return row
	}
	cut := make([]string, 0, r.col2-r.col1+1)
	for j := r.col1 - 1; j < r.col2; j++ {
		if j < len(row) {
			cut = append(cut, row[j])
		} else {
			cut = append(cut, "")
		}
	}
	return cut
}

// table collects the rows of one sheet or CSV file as they stream by:
// the first maxRows rows in the range are kept, the others only counted,
// so that memory does not grow with the file.
type table struct {
	rng     cellRange
	maxRows int
	rows    [][]string
	total   int // rows in the range
}

// wants reports whether row (1-based) is kept if add is called for it:
// callers skip reading the cells of other rows.
func (t *table) wants(row int) bool {
	return t.rng.keep(row) && len(t.rows) < t.maxRows
}

// add counts row (1-based) and keeps its cells when wanted (cells may be
// nil for a row only counted).
func (t *table) add(row int, cells []string) {
	if !t.rng.keep(row) {
		return
	}
	t.total++
	if len(t.rows) < t.maxRows {
		t.rows = append(t.rows, t.rng.cut(cells))
	}
}

// loadXLSX renders each sheet (or opts.Sheet) as a markdown table of at most
// opts.MaxRows rows (cut to opts.Range), under a "## Sheet: NAME" heading.
// The workbook is read by the reader in xlsx.go: every part streams
// through the document's budget.
func loadXLSX(doc *Document, data []byte, opts Options, bud *budget) error {
	rng, err := parseRange(opts.Range)
	if err != nil {
		return err
	}
	z, err := openZip(data, bud)
	if err != nil {
		return err
	}
	wb, err := openWorkbook(z)
	if err != nil {
		return err
	}
	sheets := wb.sheets
	if opts.Sheet != "" {
		i := wb.sheetIndex(opts.Sheet)
		if i < 0 {
			return fmt.Errorf("no sheet %q: the sheets are %s", opts.Sheet, strings.Join(wb.sheetNames(), ", "))
		}
		sheets = sheets[i : i+1]
	}
	var b strings.Builder
	for _, s := range sheets {
		if b.Len() > opts.MaxChars {
			doc.Notes = append(doc.Notes, fmt.Sprintf("sheet %s left out: the text cap is reached; pass its name as the sheet to read it", s.name))
			continue
		}
		t := &table{rng: rng, maxRows: opts.MaxRows}
		if err := wb.readSheet(s, t); err != nil {
			return fmt.Errorf("sheet %s: %w", s.name, err)
		}
		fmt.Fprintf(&b, "## Sheet: %s\n\n", s.name)
		writeTable(&b, doc, s.name, t, opts.MaxChars)
		b.WriteByte('\n')
	}
	doc.Text = b.String()
	return nil
}

// loadCSV renders a CSV (TSV for .tsv) file as one markdown table, reading
// it one record at a time.
func loadCSV(doc *Document, data []byte, opts Options, bud *budget) error {
	rng, err := parseRange(opts.Range)
	if err != nil {
		return err
	}
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord, r.LazyQuotes, r.ReuseRecord = -1, true, true
	if strings.EqualFold(filepath.Ext(doc.Name), ".tsv") {
		r.Comma = '\t'
	}
	t := &table{rng: rng, maxRows: opts.MaxRows}
	for row := 1; ; row++ {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("malformed CSV: %w", err)
		}
		if !t.wants(row) {
			t.add(row, nil)
			continue
		}
		if err := bud.charge(int64(1+len(rec)), "row "+strconv.Itoa(row)); err != nil {
			return err
		}
		t.add(row, slices.Clone(rec))
	}
	var b strings.Builder
	writeTable(&b, doc, doc.Name, t, opts.MaxChars)
	doc.Text = b.String()
	return nil
}

// writeTable writes t's rows as a markdown table (the first row as the
// header), noting rows left out in doc.Notes; it stops once b holds more
// than maxChars bytes (capText notes the cut).
func writeTable(b *strings.Builder, doc *Document, name string, t *table, maxChars int) {
	rows := t.rows
	if len(rows) == 0 {
		b.WriteString("(empty)\n")
		return
	}
	if t.total > len(rows) {
		n := len(rows)
		doc.Notes = append(doc.Notes, fmt.Sprintf("%s: %d of %d rows shown; pass a range such as \"A%d:Z%d\" for more", name, n, t.total, n+1, 2*n))
	}
	width := 0
	for _, r := range rows {
		width = max(width, len(r))
	}
	esc := strings.NewReplacer("|", `\|`, "\n", " ", "\r", "")
	for i, r := range rows {
		if b.Len() > maxChars {
			return
		}
		b.WriteString("|")
		for j := range width {
			b.WriteByte(' ')
			if j < len(r) {
				b.WriteString(esc.Replace(r[j]))
			}
			b.WriteString(" |")
			if b.Len() > maxChars {
				return
			}
		}
		b.WriteByte('\n')
		if i == 0 {
			b.WriteString("|" + strings.Repeat(" --- |", width) + "\n")
		}
	}
}
