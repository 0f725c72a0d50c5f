package loader

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/zelvior/aidex/internal/webfetch"
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
func loadNotebook(doc *Document, data []byte, opts Options) error {
	var nb notebook
	if err := json.Unmarshal(data, &nb); err != nil {
		return fmt.Errorf("not a Jupyter notebook (JSON with \"cells\"): %w", err)
	}
	if nb.Cells == nil {
		return fmt.Errorf("not a Jupyter notebook: no \"cells\" list")
	}
	lang := nb.Metadata.LanguageInfo.Name
	var b strings.Builder
	for i, c := range nb.Cells {
		label := c.CellType
		if c.ExecutionCount != nil {
			label += fmt.Sprintf(", execution %d", *c.ExecutionCount)
		}
		fmt.Fprintf(&b, "## Cell %d (%s)\n", i+1, label)
		if c.CellType == "code" {
			fmt.Fprintf(&b, "```%s\n%s\n```\n", lang, strings.TrimRight(string(c.Source), "\n"))
		} else {
			b.WriteString(strings.TrimRight(string(c.Source), "\n") + "\n")
		}
		for _, o := range c.Outputs {
			writeOutput(&b, doc, o, opts)
		}
		b.WriteByte('\n')
	}
	doc.Text = b.String()
	return nil
}

func writeOutput(b *strings.Builder, doc *Document, o nbOutput, opts Options) {
	switch o.OutputType {
	case "stream":
		fmt.Fprintf(b, "Output (%s):\n```\n%s\n```\n", o.Name, strings.TrimRight(string(o.Text), "\n"))
	case "error":
		fmt.Fprintf(b, "Error: %s: %s\n", o.EName, o.EValue)
	case "execute_result", "display_data":
		for _, mime := range []string{"image/png", "image/jpeg"} {
			if s, ok := o.Data[mime]; ok {
				addOutputImage(b, doc, mime, string(s), opts)
				return
			}
		}
		if s, ok := o.Data["text/plain"]; ok {
			fmt.Fprintf(b, "Result:\n```\n%s\n```\n", strings.TrimRight(string(s), "\n"))
		}
	}
}

func addOutputImage(b *strings.Builder, doc *Document, mime, b64 string, opts Options) {
	if len(doc.Images) >= DefaultMaxImages {
		b.WriteString("[image output left out: the image cap is reached]\n")
		return
	}
	raw, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(b64), ""))
	if err != nil {
		b.WriteString("[image output that is not valid base64]\n")
		return
	}
	img := &Document{Name: doc.Name, MIME: mime, Size: int64(len(raw))}
	if err := loadImage(img, raw, opts); err != nil {
		fmt.Fprintf(b, "[image output that could not be read: %v]\n", err)
		return
	}
	doc.Images = append(doc.Images, img.Images...)
	fmt.Fprintf(b, "[image output %d: %s, %d×%d pixels]\n", len(doc.Images), img.Images[0].MIME, img.Images[0].Width, img.Images[0].Height)
}

// loadHTML converts HTML to markdown as web_fetch does (or keeps the
// source with opts.KeepHTML).
func loadHTML(ctx context.Context, doc *Document, data []byte, opts Options) error {
	if opts.KeepHTML {
		doc.Text = string(data)
		return nil
	}
	md, err := webfetch.HTMLToMarkdown(ctx, string(data))
	if err != nil {
		return fmt.Errorf("convert HTML to markdown: %w", err)
	}
	doc.Text = md
	return nil
}
