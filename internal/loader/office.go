package loader

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// sniffZip tells DOCX, XLSX and PPTX apart by their zip members; any other
// zip is binary.
func sniffZip(data []byte) (Kind, string) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return KindBinary, "application/zip"
	}
	for _, f := range zr.File {
		switch f.Name {
		case "word/document.xml":
			return KindDOCX, "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
		case "xl/workbook.xml":
			return KindXLSX, "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
		case "ppt/presentation.xml":
			return KindPPTX, "application/vnd.openxmlformats-officedocument.presentationml.presentation"
		}
	}
	return KindBinary, "application/zip"
}

// loadDOCX renders word/document.xml: paragraphs as lines (headings with
// "#"), tables as rows of cells separated by " | ".
func loadDOCX(doc *Document, data []byte, bud *budget) error {
	z, err := openZip(data, bud)
	if err != nil {
		return err
	}
	body, err := z.read("word/document.xml")
	if err != nil {
		return err
	}
	text, err := wordText(body, bud)
	if err != nil {
		return fmt.Errorf("word/document.xml: %w", err)
	}
	doc.Text = text
	return nil
}

// wordText walks WordprocessingML: w:t text, w:tab, w:br, w:p paragraphs,
// w:pStyle HeadingN, w:tc table cells, w:tr table rows.
func wordText(body []byte, bud *budget) (string, error) {
	dec := xml.NewDecoder(bytes.NewReader(body))
	var out, para, cell strings.Builder
	var cells []string
	inTable, inText := 0, false
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", fmt.Errorf("malformed XML: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if err := bud.charge(1, "word/document.xml"); err != nil {
				return "", err
			}
			switch t.Name.Local {
			case "t":
				inText = true
			case "tab":
				para.WriteByte('\t')
			case "br", "cr":
				para.WriteByte('\n')
			case "pStyle":
				if n, ok := headingLevel(attr(t, "val")); ok {
					para.WriteString(strings.Repeat("#", n) + " ")
				}
			case "tbl":
				inTable++
			}
		case xml.CharData:
			if inText {
				para.Write(t)
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "t":
				inText = false
			case "p":
				if inTable > 0 {
					cell.WriteString(para.String() + " ")
				} else {
					out.WriteString(para.String())
					out.WriteByte('\n')
				}
				para.Reset()
			case "tc":
				cells = append(cells, strings.TrimSpace(cell.String()))
				cell.Reset()
			case "tr":
				out.WriteString("| " + strings.Join(cells, " | ") + " |\n")
				cells = nil
			case "tbl":
				inTable--
			}
		}
	}
	return out.String(), nil
}

// headingLevel reads a paragraph style "Title", "Heading1" … "Heading6"
// (or "heading 2") as a markdown heading level.
func headingLevel(style string) (int, bool) {
	if style == "Title" {
		return 1, true
	}
	if len(style) < 8 || !strings.EqualFold(style[:7], "heading") {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimSpace(style[7:]))
	return n, err == nil && n >= 1 && n <= 6
}

func attr(t xml.StartElement, local string) string {
	for _, a := range t.Attr {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

// slideNumber reads the N of ppt/slides/slideN.xml.
func slideNumber(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, "ppt/slides/slide")
	if !ok {
		return 0, false
	}
	rest, ok = strings.CutSuffix(rest, ".xml")
	n, err := strconv.Atoi(rest)
	return n, ok && err == nil && n > 0
}

// loadPPTX renders the text of each slide (opts.Pages selects slides),
// one "--- slide N of M ---" marker before each.
func loadPPTX(doc *Document, data []byte, opts Options, bud *budget) error {
	z, err := openZip(data, bud)
	if err != nil {
		return err
	}
	var nums []int
	seen := map[int]bool{}
	for _, f := range z.zr.File {
		if n, ok := slideNumber(f.Name); ok && !seen[n] {
			seen[n] = true
			nums = append(nums, n)
		}
	}
	if len(nums) == 0 {
		return errors.New("the presentation has no slides")
	}
	slices.Sort(nums)
	pick, err := ParsePages(opts.Pages, len(nums))
	if err != nil {
		return err
	}
	var b strings.Builder
	for _, i := range pick {
		if b.Len() > opts.MaxChars {
			break // capText notes the cut
		}
		name := fmt.Sprintf("ppt/slides/slide%d.xml", nums[i-1])
		body, err := z.read(name)
		if err != nil {
			return err
		}
		text, err := slideText(body, name, bud)
		if err != nil {
			return fmt.Errorf("slide %d: %w", i, err)
		}
		fmt.Fprintf(&b, "--- slide %d of %d ---\n%s", i, len(nums), text)
	}
	doc.Text = b.String()
	return nil
}

// slideText returns the a:t runs of a slide, one line per a:p paragraph.
func slideText(body []byte, name string, bud *budget) (string, error) {
	dec := xml.NewDecoder(bytes.NewReader(body))
	var b, para strings.Builder
	inText := false
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return b.String(), nil
		}
		if err != nil {
			return "", fmt.Errorf("malformed XML: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if err := bud.charge(1, name); err != nil {
				return "", err
			}
			inText = inText || t.Name.Local == "t"
		case xml.CharData:
			if inText {
				para.Write(t)
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "t":
				inText = false
			case "p":
				if s := strings.TrimSpace(para.String()); s != "" {
					b.WriteString(s + "\n")
				}
				para.Reset()
			}
		}
	}
}
