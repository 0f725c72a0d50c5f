package tui

import (
	"strings"

	"charm.land/glamour/v2"
	gansi "charm.land/glamour/v2/ansi"
	gstyles "charm.land/glamour/v2/styles"
)

// mdRenderer renders markdown with glamour at one width and style; it is
// rebuilt when either changes (building one parses a style, so it is kept).
type mdRenderer struct {
	width int
	style string
	r     *glamour.TermRenderer
}

// render returns md rendered for the terminal, without glamour's leading
// and trailing blank lines. On a renderer failure the text comes back as is.
func (m *mdRenderer) render(md string, width int, style string) string {
	if strings.TrimSpace(md) == "" {
		return ""
	}
	if width < 20 {
		width = 20
	}
	if m.r == nil || m.width != width || m.style != style {
		styleOpt := glamour.WithStandardStyle(style)
		if style == "notty" {
			styleOpt = glamour.WithStyles(noColorStyle())
		}
		r, err := glamour.NewTermRenderer(styleOpt, glamour.WithWordWrap(width-2))
		if err != nil {
			return md
		}
		m.r, m.width, m.style = r, width, style
	}
	out, err := m.r.Render(md)
	if err != nil {
		return md
	}
	return trimBlankLines(out)
}

// noColorStyle is the markdown style without colours (NO_COLOR):
// glamour's ASCII style, with emphasis, strong text, strikethrough and
// headings shown as italic, bold and crossed-out text (attributes, not
// colours) instead of the raw **markers** that style prints.
func noColorStyle() gansi.StyleConfig {
	c := gstyles.ASCIIStyleConfig
	on := true
	c.Strong = gansi.StylePrimitive{Bold: &on}
	c.Emph = gansi.StylePrimitive{Italic: &on}
	c.Strikethrough = gansi.StylePrimitive{CrossedOut: &on}
	c.Heading.Bold = &on
	return c
}

// trimBlankLines drops blank (whitespace-only) lines at both ends and
// trailing spaces glamour pads lines with.
func trimBlankLines(s string) string {
	lines := strings.Split(s, "\n")
	for len(lines) > 0 && strings.TrimSpace(stripANSI(lines[0])) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(stripANSI(lines[len(lines)-1])) == "" {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// stableSplit returns the length of the longest prefix of md made of
// complete markdown blocks: it ends after a blank line outside a code
// fence that is followed by more text. What comes before can be rendered
// and committed to scrollback while the rest is still streaming. 0 means
// nothing is complete yet.
func stableSplit(md string) int {
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

// stripANSI removes escape sequences (for measuring blank lines).
func stripANSI(s string) string {
	if !strings.Contains(s, "\x1b") {
		return s
	}
	var b strings.Builder
	in := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == 0x1b:
			in = true
		case in && (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'):
			in = false
		case !in:
			b.WriteByte(c)
		}
	}
	return b.String()
}
