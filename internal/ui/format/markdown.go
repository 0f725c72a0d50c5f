package format

import (
	"strings"

	"charm.land/glamour/v2"
	gansi "charm.land/glamour/v2/ansi"
	gstyles "charm.land/glamour/v2/styles"
	"github.com/charmbracelet/x/ansi"
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
	out, err := m.r.Render(ExpandTabs(md))
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

// StableSplit returns the length of the longest prefix of md made of
// complete markdown blocks: it ends after a blank line outside a code
// fence that is followed by more text. What comes before can be rendered
// and printed while the rest is still streaming. 0 means nothing is
// complete yet.
func StableSplit(md string) int {
	cut, pos := 0, 0
	inFence := false
	fence := ""
	blankSeen := false
	for pos < len(md) {
		end := strings.IndexByte(md[pos:], '\n')
		if end < 0 {
			break // the last line is still being written
		}
		line := md[pos : pos+end]
		next := pos + end + 1
		trimmed := strings.TrimSpace(line)
		switch {
		case inFence:
			if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]) == "" {
				inFence = false
			}
		case strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~"):
			if blankSeen {
				cut = pos
			}
			inFence, fence = true, trimmed[:3]
			blankSeen = false
		case trimmed == "":
			blankSeen = true
		default:
			if blankSeen && !continuesBlock(line) {
				cut = pos
			}
			blankSeen = false
		}
		pos = next
	}
	return cut
}

// continuesBlock reports whether a line after a blank line may belong to
// the block before it (an indented list continuation or code).
func continuesBlock(line string) bool {
	return strings.HasPrefix(line, "  ") || strings.HasPrefix(line, "\t")
}
