package tui

import (
	"strings"

	"charm.land/glamour/v2"
	gansi "charm.land/glamour/v2/ansi"
	gstyles "charm.land/glamour/v2/styles"

	"github.com/zelvior/aidex/internal/ui/format"
	"github.com/zelvior/aidex/internal/ui/mdterm"
)

// mdRenderer renders markdown with glamour at one width and style; it is
// rebuilt when either changes (building one parses a style, so it is kept).
// Markdown is rendered without the style's document colour, which
// paintDefault adds afterwards (the same look, ~3x faster); a table is
// rendered with the whole style (its borders are left uncoloured, which
// paintDefault cannot tell from text).
type mdRenderer struct {
	width int
	style string
	fg    string                // the style's document colour, painted by paintDefault
	r     *glamour.TermRenderer // the style without the document colour
	full  *glamour.TermRenderer // the whole style, built for the first table
}

// render returns md rendered for the terminal, without glamour's leading
// and trailing blank lines. Tabs are expanded first: glamour counts a tab
// as no cells when it wraps, the terminal draws up to 8, and words broke
// in the middle. On a renderer failure the text comes back as is.
func (m *mdRenderer) render(md string, width int, style string) string {
	if strings.TrimSpace(md) == "" {
		return ""
	}
	md = format.ExpandTabs(md)
	if width < 20 {
		width = 20
	}
	if m.r == nil || m.width != width || m.style != style {
		cfg, fg := markdownStyle(style)
		r, err := glamour.NewTermRenderer(glamour.WithStyles(cfg), glamour.WithWordWrap(width-2))
		if err != nil {
			return md
		}
		m.r, m.full, m.width, m.style, m.fg = r, nil, width, style, fg
	}
	if m.fg != "" && hasTable(md) {
		return m.renderFull(md)
	}
	out, err := m.r.Render(md)
	if err != nil {
		return md
	}
	return paintDefault(trimBlankLines(out), m.fg)
}

// renderFull renders md with the whole style, document colour included.
func (m *mdRenderer) renderFull(md string) string {
	if m.full == nil {
		cfg, fg := markdownStyle(m.style)
		cfg.Document.Color = &fg
		r, err := glamour.NewTermRenderer(glamour.WithStyles(cfg), glamour.WithWordWrap(m.width-2))
		if err != nil {
			return md
		}
		m.full = r
	}
	out, err := m.full.Render(md)
	if err != nil {
		return md
	}
	return trimBlankLines(out)
}

// hasTable reports whether md may hold a table: a line of only pipes,
// dashes, colons and spaces with a pipe and a dash in it (a GFM table's
// delimiter row).
func hasTable(md string) bool {
	for line := range strings.Lines(md) {
		t := strings.TrimSpace(line)
		if strings.Contains(t, "|") && strings.Contains(t, "-") && strings.Trim(t, "|-: \t") == "" {
			return true
		}
	}
	return false
}

// markdownStyle returns glamour's style for "dark", "light" or "notty"
// with the document's colour taken out, and that colour ("" for none):
// paintDefault paints it after rendering, which looks the same and
// renders ~3x faster (see paintDefault).
func markdownStyle(style string) (gansi.StyleConfig, string) {
	var c gansi.StyleConfig
	switch style {
	case "notty":
		c = mdterm.NoColorMarkdownStyle(true)
	case "light":
		c = gstyles.LightStyleConfig
	default:
		c = gstyles.DarkStyleConfig
	}
	fg := ""
	if c.Document.Color != nil {
		fg = *c.Document.Color
	}
	c.Document.Color = nil
	return c, fg
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
