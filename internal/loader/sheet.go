package loader

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/xuri/excelize/v2"
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
	c1, r1, err1 := excelize.CellNameToCoordinates(strings.TrimSpace(a))
	c2, r2, err2 := excelize.CellNameToCoordinates(strings.TrimSpace(b))
	if err1 != nil || err2 != nil {
		return cellRange{}, fmt.Errorf("range %q: write cells like \"A1:D20\" (columns A.., rows from 1)", spec)
	}
	return cellRange{min(c1, c2), min(r1, r2), max(c1, c2), max(r1, r2)}, nil
}

// apply cuts rows to the range (every row when r is zero).
func (r cellRange) apply(rows [][]string) [][]string {
	if r == (cellRange{}) {
		return rows
	}
	var out [][]string
	for i := r.row1 - 1; i < r.row2 && i < len(rows); i++ {
		row := rows[i]
		var cut []string
		for j := r.col1 - 1; j < r.col2; j++ {
			if j < len(row) {
				cut = append(cut, row[j])
			} else {
				cut = append(cut, "")
			}
		}
		out = append(out, cut)
	}
	return out
}

// loadXLSX renders each sheet (or opts.Sheet) as a markdown table of at most
// opts.MaxRows rows (cut to opts.Range), under a "## Sheet: NAME" heading.
func loadXLSX(doc *Document, data []byte, opts Options) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("malformed workbook: %v", r)
		}
	}()
	rng, err := parseRange(opts.Range)
	if err != nil {
		return err
	}
	f, err := excelize.OpenReader(bytes.NewReader(data), excelize.Options{UnzipXMLSizeLimit: maxXMLBytes, UnzipSizeLimit: 4 * maxXMLBytes})
	if err != nil {
		return fmt.Errorf("malformed workbook: %w", err)
	}
	defer f.Close()
	sheets := f.GetSheetList()
	if opts.Sheet != "" {
		idx, _ := f.GetSheetIndex(opts.Sheet)
		if idx < 0 {
			return fmt.Errorf("no sheet %q: the sheets are %s", opts.Sheet, strings.Join(sheets, ", "))
		}
		sheets = []string{opts.Sheet}
	}
	var b strings.Builder
	for _, name := range sheets {
		rows, err := f.GetRows(name)
		if err != nil {
			return fmt.Errorf("sheet %s: %w", name, err)
		}
		fmt.Fprintf(&b, "## Sheet: %s\n\n", name)
		writeTable(&b, doc, name, rng.apply(rows), opts.MaxRows)
		b.WriteByte('\n')
	}
	doc.Text = b.String()
	return nil
}

// loadCSV renders a CSV (TSV for .tsv) file as one markdown table.
func loadCSV(doc *Document, data []byte, opts Options) error {
	rng, err := parseRange(opts.Range)
	if err != nil {
		return err
	}
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord, r.LazyQuotes, r.ReuseRecord = -1, true, false
	if strings.EqualFold(filepath.Ext(doc.Name), ".tsv") {
		r.Comma = '\t'
	}
	var rows [][]string
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("malformed CSV: %w", err)
		}
		rows = append(rows, rec)
	}
	var b strings.Builder
	writeTable(&b, doc, doc.Name, rng.apply(rows), opts.MaxRows)
	doc.Text = b.String()
	return nil
}

// writeTable writes rows as a markdown table (the first row as the
// header), at most maxRows rows, noting a cut in doc.Notes.
func writeTable(b *strings.Builder, doc *Document, name string, rows [][]string, maxRows int) {
	if len(rows) == 0 {
		b.WriteString("(empty)\n")
		return
	}
	if len(rows) > maxRows {
		doc.Notes = append(doc.Notes, fmt.Sprintf("%s: %d of %d rows shown; pass a range such as \"A%d:Z%d\" for more", name, maxRows, len(rows), maxRows+1, 2*maxRows))
		rows = rows[:maxRows]
	}
	width := 0
	for _, r := range rows {
		width = max(width, len(r))
	}
	for i, r := range rows {
		cells := make([]string, width)
		for j := range cells {
			if j < len(r) {
				cells[j] = strings.NewReplacer("|", `\|`, "\n", " ", "\r", "").Replace(r[j])
			}
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
		if i == 0 {
			b.WriteString("|" + strings.Repeat(" --- |", width) + "\n")
		}
	}
}
