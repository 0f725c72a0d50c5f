package mcp

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zelvior/aidex/internal/tools"
	"github.com/zelvior/aidex/internal/tools/proc"
)

// Convert turns a tool call's result into a tool result: text as is; images as
// image parts for the model (with a line naming them); audio named; embedded
// resources as their text (an image blob as an image, other blobs named);
// resource links as a line with the URI; structuredContent as JSON unless the
// content blocks already carry every value of it (see carries), so that it
// never reaches the model twice. isError makes it a failed result with the server's
// text. The output is capped head+tail at proc.DefaultMaxOutputChars with a note.
func Convert(res *sdk.CallToolResult) tools.Result {
	var (
		b      strings.Builder
		images []tools.Image
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
		if js, err := json.Marshal(sc); err == nil && !carries(carried(res.Content), js) {
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

// carried is everything the content blocks tell the model: their text,
// names, URIs and (base64) data, NUL-separated.
func carried(content []sdk.Content) string {
	var b strings.Builder
	carry := func(parts ...string) {
		for _, p := range parts {
			b.WriteString(p)
			b.WriteByte(0)
		}
	}
	for _, c := range content {
		switch c := c.(type) {
		case *sdk.TextContent:
			carry(c.Text)
		case *sdk.ImageContent:
			carry(c.MIMEType, base64.StdEncoding.EncodeToString(c.Data))
		case *sdk.AudioContent:
			carry(c.MIMEType, base64.StdEncoding.EncodeToString(c.Data))
		case *sdk.ResourceLink:
			carry(c.URI, c.Name, c.Title, c.MIMEType, c.Description)
		case *sdk.EmbeddedResource:
			if rc := c.Resource; rc != nil {
				carry(rc.URI, rc.MIMEType, rc.Text, base64.StdEncoding.EncodeToString(rc.Blob))
			}
		}
	}
	return b.String()
}

// carries reports whether the content blocks (carried) already tell every
// value of the structured content js: each string, number and boolean leaf
// appears in them (the spec has a tool that returns structured content also
// return it serialised in a text block, and servers often return the same
// data as prose or media with a structured copy).
func carries(carried string, js []byte) bool {
	var v any
	dec := json.NewDecoder(strings.NewReader(string(js)))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return false
	}
	var walk func(any) bool
	walk = func(v any) bool {
		switch v := v.(type) {
		case map[string]any:
			for _, x := range v {
				if !walk(x) {
					return false
				}
			}
		case []any:
			for _, x := range v {
				if !walk(x) {
					return false
				}
			}
		case string:
			return v == "" || strings.Contains(carried, v) || strings.Contains(carried, strings.TrimSpace(v))
		case json.Number:
			return strings.Contains(carried, v.String())
		case bool:
			return strings.Contains(carried, strconv.FormatBool(v))
		}
		return true // null
	}
	return walk(v)
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
