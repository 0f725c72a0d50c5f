package loader

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/ledongthuc/pdf"
)

// loadPDF extracts the text of the selected pages (opts.Pages, default all)
// with ledongthuc/pdf (pure Go; chosen over pdfcpu, which extracts content
// streams rather than text, and go-pdfium, a 5 MB WebAssembly build; on a
// six-page groff -ms document it finds 98% of the words pdftotext finds), one
// "--- page N of M ---" marker before each page. A page without text but
// with images is reported as scanned.
//
// The reader is aidex's patched copy (third_party/pdf): it tells the
// budget of every object, entry, token and text run it reads and every
// byte it decompresses, and refuses cycles; the pages come from one walk
// of the page tree (Reader.Pages), not from the /Count a file claims.
func loadPDF(doc *Document, data []byte, opts Options, bud *budget) error {
	r, err := pdf.NewReaderMeter(bytes.NewReader(data), int64(len(data)), pdfMeter{bud})
	if err != nil {
		if errors.Is(err, ErrLimit) {
			return err
		}
		return fmt.Errorf("malformed PDF: %w", err)
	}
	bud.at = "the page tree"
	all, err := r.Pages()
	if err != nil {
		return err
	}
	n := len(all)
	if n == 0 {
		return fmt.Errorf("the PDF has no pages")
	}
	pages, err := ParsePages(opts.Pages, n)
	if err != nil {
		return err
	}
	doc.Pages, doc.PDF = n, data
	var b strings.Builder
	var scanned []string
	for _, i := range pages {
		if b.Len() > opts.MaxChars {
			break // capText notes the cut
		}
		bud.at = fmt.Sprintf("page %d", i)
		if err := bud.check(""); err != nil {
			return err
		}
		fmt.Fprintf(&b, "--- page %d of %d ---\n", i, n)
		p := all[i-1]
		p.Resources() // a /Parent cycle fails here, not inside the text extraction
		text, _ := pageText(p)
		if strings.TrimSpace(text) == "" {
			if hasImages(p) {
				scanned = append(scanned, strconv.Itoa(i))
				b.WriteString("[scanned page: an image without a text layer]\n")
			} else {
				b.WriteString("[no text on this page]\n")
			}
			continue
		}
		b.WriteString(strings.TrimRight(text, "\n"))
		b.WriteString("\n")
	}
	doc.Text = b.String()
	if len(pages) < n {
		doc.Notes = append(doc.Notes, fmt.Sprintf("pages %s of %d shown", opts.Pages, n))
	}
	if len(scanned) > 0 {
		doc.Notes = append(doc.Notes, fmt.Sprintf("scanned pages without text (an OCR tool is needed): %s", strings.Join(scanned, ", ")))
	}
	return nil
}

// pdfMeter meters the PDF reader against the document's budget (the part
// being read is bud.at).
type pdfMeter struct{ bud *budget }

func (m pdfMeter) Work(n int64) error  { return m.bud.charge(n, "") }
func (m pdfMeter) Bytes(n int64) error { return m.bud.expand(n, "") }
func (m pdfMeter) Depth(d int) error   { return m.bud.deeper(d, "") }

// pageText is the page's text, one line per text row.
func pageText(p pdf.Page) (string, error) {
	if p.V.IsNull() {
		return "", nil
	}
	rows, err := p.GetTextByRow()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, row := range rows {
		var line strings.Builder
		for i, w := range row.Content {
			if i > 0 && !strings.HasSuffix(line.String(), " ") && !strings.HasPrefix(w.S, " ") {
				prev := row.Content[i-1]
				if w.X-(prev.X+prev.W) > prev.FontSize*0.05 {
					line.WriteByte(' ')
				}
			}
			line.WriteString(w.S)
		}
		b.WriteString(strings.TrimSpace(line.String()))
		b.WriteByte('\n')
	}
	return b.String(), nil
}

// hasImages reports whether the page draws an image XObject.
func hasImages(p pdf.Page) bool {
	xo := p.Resources().Key("XObject")
	for _, k := range xo.Keys() {
		if xo.Key(k).Key("Subtype").Name() == "Image" {
			return true
		}
	}
	return false
}

// ParsePages parses a page selection ("3", "1-5", "2-", "1-3,7") against n
// pages and returns the page numbers in order, each once; "" is every page.
// Errors name the bad part and the valid range.
func ParsePages(spec string, n int) ([]int, error) {
	if strings.TrimSpace(spec) == "" {
		out := make([]int, n)
		for i := range out {
			out[i] = i + 1
		}
		return out, nil
	}
	seen := map[int]bool{}
	var out []int
	for part := range strings.SplitSeq(spec, ",") {
		lo, hi, err := pageRange(strings.TrimSpace(part), n)
		if err != nil {
			return nil, err
		}
		for i := lo; i <= hi; i++ {
			if !seen[i] {
				seen[i] = true
				out = append(out, i)
			}
		}
	}
	return out, nil
}

func pageRange(part string, n int) (int, int, error) {
	bad := func() (int, int, error) {
		return 0, 0, fmt.Errorf("pages %q: write a page or a range between 1 and %d, e.g. \"1-5\" or \"2,4\"", part, n)
	}
	a, b, isRange := strings.Cut(part, "-")
	lo, err := strconv.Atoi(strings.TrimSpace(a))
	if err != nil {
		return bad()
	}
	hi := lo
	if isRange {
		if hi, err = strconv.Atoi(strings.TrimSpace(b)); strings.TrimSpace(b) == "" {
			hi, err = n, nil
		}
		if err != nil {
			return bad()
		}
	}
	if lo < 1 || hi < lo || lo > n {
		return bad()
	}
	return lo, min(hi, n), nil
}
