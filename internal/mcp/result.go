package mcp

import (
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zelvior/aidex/internal/tools"
	"github.com/zelvior/aidex/internal/tools/proc"
)

// Convert turns a tool call's result into a tool result: text as is; images as
// image parts for the model (with a line naming them); audio named; embedded
// resources as their text (an image blob as an image, other blobs named);
// resource links as a line with the URI; structuredContent as JSON when no text
// block already holds it. isError makes it a failed result with the server's
// text. The output is capped head+tail at proc.DefaultMaxOutputChars with a note.
func Convert(res *sdk.CallToolResult) tools.Result {
	var (
		b      strings.Builder
		images []tools.Image
		texts  []string
	)
	line := func(s string) {
		if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
			b.WriteByte('\n')
		}
		b.WriteString(s)
	}
	for _, c := range res.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			line(c.Text)
			texts = append(texts, strings.TrimSpace(c.Text))
		case *sdk.ImageContent:
			images = append(images, tools.Image{MIME: c.MIMEType, Data: c.Data})
			line(fmt.Sprintf("[image %s, %d bytes: attached as an image]", c.MIMEType, len(c.Data)))
		case *sdk.AudioContent:
			line(fmt.Sprintf("[audio %s, %d bytes: not shown]", c.MIMEType, len(c.Data)))
		case *sdk.ResourceLink:
			l := fmt.Sprintf("[resource link] %s: %s", c.Name, c.URI)
			if c.MIMEType != "" {
				l += " (" + c.MIMEType + ")"
			}
			if c.Description != "" {
				l += " - " + c.Description
			}
			line(l)
		case *sdk.EmbeddedResource:
			images = embedded(c.Resource, line, images)
		}
	}
	if sc := res.StructuredContent; sc != nil {
		if js, err := json.Marshal(sc); err == nil && !containsJSON(texts, js) {
			line("structuredContent: " + string(js))
		}
	}
	out, cut := capOutput(b.String())
	r := tools.Result{OK: !res.IsError, Output: out, Images: images}
	if cut {
		r.Meta = &tools.Meta{Truncated: true}
	}
	if res.IsError {
		r.Category, r.Error, r.Output = tools.CategoryExecution, "the MCP tool reported an error: "+out, ""
		if out == "" {
			r.Error = "the MCP tool reported an error without a message"
		}
	}
	return r
}

func embedded(rc *sdk.ResourceContents, line func(string), images []tools.Image) []tools.Image {
	if rc == nil {
		return images
	}
	head := fmt.Sprintf("[resource %s", rc.URI)
	if rc.MIMEType != "" {
		head += " (" + rc.MIMEType + ")"
	}
	switch {
	case rc.Text != "":
		line(head + "]\n" + rc.Text)
	case strings.HasPrefix(rc.MIMEType, "image/"):
		images = append(images, tools.Image{MIME: rc.MIMEType, Data: rc.Blob})
		line(fmt.Sprintf("%s, %d bytes: attached as an image]", head, len(rc.Blob)))
	default:
		line(fmt.Sprintf("%s, %d bytes of binary data: not shown]", head, len(rc.Blob)))
	}
	return images
}

// containsJSON reports whether one of the text blocks is the same JSON value.
func containsJSON(texts []string, js []byte) bool {
	var want any
	if json.Unmarshal(js, &want) != nil {
		return false
	}
	norm, _ := json.Marshal(want)
	for _, t := range texts {
		var v any
		if json.Unmarshal([]byte(t), &v) == nil {
			if got, _ := json.Marshal(v); string(got) == string(norm) {
				return true
			}
		}
	}
	return false
}

func capOutput(s string) (string, bool) {
	h := proc.NewHeadTail(proc.DefaultMaxOutputChars)
	_, _ = h.Write([]byte(s))
	out, cut := h.String()
	if cut {
		out += "\n[output cut: the MCP tool's result was longer than " + fmt.Sprint(proc.DefaultMaxOutputChars) + " characters]"
	}
	return out, cut
}
