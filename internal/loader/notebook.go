package loader

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/zelvior/aidex/internal/webpage"
)

// notebook is the part of the Jupyter nbformat 4 document aidex reads
// (https://nbformat.readthedocs.io/en/latest/format_description.html).
type notebook struct {
	Cells    []nbCell `json:"cells"`
	Metadata struct {
		LanguageInfo struct {
			Name string `json:"name"`
		} `json:"language_info"`
	} `json:"metadata"`
}

type nbCell struct {
	CellType       string     `json:"cell_type"`
	Source         multiline  `json:"source"`
	ExecutionCount *int       `json:"execution_count"`
	Outputs        []nbOutput `json:"outputs"`
}

type nbOutput struct {
	OutputType string               `json:"output_type"`
	Name       string               `json:"name"`
	Text       multiline            `json:"text"`
	Data       map[string]multiline `json:"data"`
	EName      string               `json:"ename"`
	EValue     string               `json:"evalue"`
}

// multiline is nbformat's string-or-list-of-strings.
type multiline string

// UnmarshalJSON accepts a string or a list of strings (joined).
func (m *multiline) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*m = multiline(s)
		return nil
	}
	var list []string
	if err := json.Unmarshal(b, &list); err != nil {
		return fmt.Errorf("want a string or a list of strings: %w", err)
	}
	*m = multiline(strings.Join(list, ""))
	return nil
}

// loadNotebook renders every cell with its outputs: "## [N] code" with the
// source fenced in the notebook's language, then stream, result and error
// outputs; PNG and JPEG outputs become images (at most DefaultMaxImages).
//
// Its JSON values are counted first, one unit of work each, by a
// streaming pass that keeps nothing: a notebook of millions of cells or
// output lines is refused before any is decoded. The text stops growing
// once it passes opts.MaxChars: a huge output is cut, and the cells
// after the cap are left out with a note.
func loadNotebook(doc *Document, data []byte, opts Options, bud *budget) error {
	if err := countJSON(data, bud); err != nil {
		return err
	}
	var nb notebook
	if err := json.Unmarshal(data, &nb); err != nil {
		return fmt.Errorf("not a Jupyter notebook (JSON with \"cells\"): %w", err)
	}
	if nb.Cells == nil {
		return fmt.Errorf("not a Jupyter notebook: no \"cells\" list")
	}
	lang := nb.Metadata.LanguageInfo.Name
	w := &capWriter{max: opts.MaxChars}
	for i, c := range nb.Cells {
		if w.full() {
			doc.Notes = append(doc.Notes, fmt.Sprintf("cells %d-%d of %d left out: the text cap is reached", i+1, len(nb.Cells), len(nb.Cells)))
			break
		}
		label := c.CellType
		if c.ExecutionCount != nil {
			label += fmt.Sprintf(", execution %d", *c.ExecutionCount)
		}
		fmt.Fprintf(w, "## Cell %d (%s)\n", i+1, label)
		if c.CellType == "code" {
			fmt.Fprintf(w, "```%s\n%s\n```\n", lang, strings.TrimRight(string(c.Source), "\n"))
		} else {
			w.WriteString(strings.TrimRight(string(c.Source), "\n") + "\n")
		}
		for _, o := range c.Outputs {
			writeOutput(w, doc, o, opts, bud)
		}
		w.WriteString("\n")
		if w.cut > 0 {
			doc.Notes = append(doc.Notes, fmt.Sprintf("cell %d: output cut, %d bytes left out (the text cap)", i+1, w.cut))
			w.cut = 0
		}
	}
	doc.Text = w.b.String()
	return nil
}

// countJSON charges one unit of work for each JSON value of data, reading
// it as a stream of tokens.
func countJSON(data []byte, bud *budget) error {
	dec := jsontext.NewDecoder(bytes.NewReader(data))
	n := int64(0)
	for {
		_, err := dec.ReadToken()
		if errors.Is(err, io.EOF) {
			return bud.charge(n, "the notebook's JSON")
		}
		if err != nil {
			return fmt.Errorf("not a Jupyter notebook (JSON with \"cells\"): %w", err)
		}
		if n++; n == 4096 {
			if err := bud.charge(n, "the notebook's JSON"); err != nil {
				return err
			}
			n = 0
		}
	}
}

// capWriter is a strings.Builder that keeps at most max+1 bytes (one
// past the cap, so that capText notes the cut) and counts what it drops.
type capWriter struct {
	b   strings.Builder
	max int
	cut int
}

func (w *capWriter) full() bool { return w.b.Len() > w.max }

// Write keeps what fits and drops the rest, counting it; it never fails.
func (w *capWriter) Write(p []byte) (int, error) {
	room := w.max + 1 - w.b.Len()
	if room < len(p) {
		w.cut += len(p) - max(room, 0)
		p = p[:max(room, 0)]
	}
	w.b.Write(p)
	return len(p), nil
}

// WriteString is Write for a string.
func (w *capWriter) WriteString(s string) {
	room := w.max + 1 - w.b.Len()
	if room < len(s) {
		w.cut += len(s) - max(room, 0)
		s = s[:max(room, 0)]
	}
	w.b.WriteString(s)
}

func writeOutput(w *capWriter, doc *Document, o nbOutput, opts Options, bud *budget) {
	switch o.OutputType {
	case "stream":
		fmt.Fprintf(w, "Output (%s):\n```\n%s\n```\n", o.Name, strings.TrimRight(string(o.Text), "\n"))
	case "error":
		fmt.Fprintf(w, "Error: %s: %s\n", o.EName, o.EValue)
	case "execute_result", "display_data":
		for _, mime := range []string{"image/png", "image/jpeg"} {
			if s, ok := o.Data[mime]; ok {
				addOutputImage(w, doc, mime, string(s), opts, bud)
				return
			}
		}
		if s, ok := o.Data["text/plain"]; ok {
			fmt.Fprintf(w, "Result:\n```\n%s\n```\n", strings.TrimRight(string(s), "\n"))
		}
	}
}

func addOutputImage(w *capWriter, doc *Document, mime, b64 string, opts Options, bud *budget) {
	if len(doc.Images) >= DefaultMaxImages {
		w.WriteString("[image output left out: the image cap is reached]\n")
		return
	}
	raw, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(b64), ""))
	if err != nil {
		w.WriteString("[image output that is not valid base64]\n")
		return
	}
	img := &Document{Name: doc.Name, MIME: mime, Size: int64(len(raw))}
	if err := loadImage(img, raw, opts, bud); err != nil {
		fmt.Fprintf(w, "[image output that could not be read: %v]\n", err)
		return
	}
	doc.Images = append(doc.Images, img.Images...)
	fmt.Fprintf(w, "[image output %d: %s, %d×%d pixels]\n", len(doc.Images), img.Images[0].MIME, img.Images[0].Width, img.Images[0].Height)
}

// loadHTML converts HTML to markdown as web_fetch does (or keeps the
// source with opts.KeepHTML).
func loadHTML(ctx context.Context, doc *Document, data []byte, opts Options) error {
	if opts.KeepHTML {
		doc.Text = string(data)
		return nil
	}
	md, err := webpage.HTMLToMarkdown(ctx, string(data))
	if err != nil {
		return fmt.Errorf("convert HTML to markdown: %w", err)
	}
	doc.Text = md
	return nil
}
