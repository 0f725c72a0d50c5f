// Package mdterm renders markdown for terminals with glamour: the line
// mode's plain text (Markdown) and the colourless style the terminal UI
// shares with it (NoColorMarkdownStyle). It is linked into aidex-chat,
// the interactive chat, and not into aidex itself, whose other commands
// do not render markdown (glamour and its dependencies cost every start
// in package init; issue 40).
package mdterm

import (
	"strings"

	"charm.land/glamour/v2"
	gansi "charm.land/glamour/v2/ansi"
	gstyles "charm.land/glamour/v2/styles"
	"github.com/charmbracelet/x/ansi"

	"github.com/zelvior/aidex/internal/ui/format"
)

// NoColorMarkdownStyle is the markdown style without colours (NO_COLOR,
// the line mode): glamour's ASCII style without the raw **markers** it
// prints and without the #s of headings. With attrs, emphasis, strong text, strikethrough and headings
// are italic, bold and crossed-out text (attributes, not colours);
// without, plain text (for output that is not a terminal). Code blocks
// keep their indentation and are not highlighted.
func NoColorMarkdownStyle(attrs bool) gansi.StyleConfig {
	c := gstyles.ASCIIStyleConfig
	on := attrs
	c.Strong = gansi.StylePrimitive{}
	c.Emph = gansi.StylePrimitive{}
	c.Strikethrough = gansi.StylePrimitive{}
	for _, h := range []*gansi.StyleBlock{&c.H1, &c.H2, &c.H3, &c.H4, &c.H5, &c.H6} {
		h.Prefix = "" // no raw #s
	}
	if attrs {
		c.Strong.Bold = &on
		c.Emph.Italic = &on
		c.Strikethrough.CrossedOut = &on
		c.Heading.Bold = &on
	}
	return c
}

// Markdown renders markdown as readable text for the line mode: without
// colours and markers (NoColorMarkdownStyle; attrs as there), wrapped at
// width cells (80 when width <= 0), tabs expanded first, without leading
// and trailing blank lines. The renderer is built once per width. On a
// renderer failure the text comes back as is.
type Markdown struct {
	Attrs bool
	width int
	r     *glamour.TermRenderer
}

// Render renders md for a terminal width cells wide.
func (m *Markdown) Render(md string, width int) string {
	if strings.TrimSpace(md) == "" {
		return ""
	}
	if width <= 0 {
		width = 80
	}
	width = max(width, 20)
	if m.r == nil || m.width != width {
		r, err := glamour.NewTermRenderer(glamour.WithStyles(NoColorMarkdownStyle(m.Attrs)), glamour.WithWordWrap(width-2))
		if err != nil {
			return md
		}
		m.r, m.width = r, width
	}
	out, err := m.r.Render(format.ExpandTabs(md))
	if err != nil {
		return md
	}
	lines := strings.Split(out, "\n")
	for len(lines) > 0 && strings.TrimSpace(ansi.Strip(lines[0])) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(ansi.Strip(lines[len(lines)-1])) == "" {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}
