package tui

import (
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// paintDefault gives the text of rendered markdown the style's document
// colour: every cell glamour left in the terminal's default foreground is
// painted fg (a colour as glamour's styles write it: "252", "#c0c0c0"),
// as glamour itself would with the colour on its document block.
//
// Glamour pads every line of a coloured block to the wrap width with
// spaces, each wrapped in its own colour sequence, and passes that
// padding through each enclosing block's writers again: with the colour
// on the document that is most of its rendering time (issue 21). So the
// renderer runs with no document colour (the padding is plain spaces,
// which trimBlankLines drops) and this single pass adds the colour back.
// A space is painted only where the colour shows (under a background,
// underline, strikethrough or reverse video); the colour is set back to
// the default at each line's end, so no line leaks it. fg == "" returns
// s unchanged.
func paintDefault(s, fg string) string {
	if fg == "" || s == "" {
		return s
	}
	p := painter{set: ansi.Style{}.ForegroundColor(lipgloss.Color(fg)).String()}
	p.b.Grow(len(s) + len(s)/8)
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == 0x1b:
			i = p.escape(s, i)
		case c == '\n':
			p.endLine()
			p.b.WriteByte(c)
			i++
		default:
			if !p.fgSet && !p.painted && (c != ' ' || p.shows()) {
				p.b.WriteString(p.set)
				p.painted = true
			}
			p.b.WriteByte(c)
			i++
		}
	}
	p.endLine()
	return p.b.String()
}

// painter is paintDefault's state: the SGR state of the text so far
// (whether it set a foreground, and what makes a space visible) and
// whether the document colour it added is in effect.
type painter struct {
	b   strings.Builder
	set string // the sequence that sets the document colour
	sgrState
}

// sgrState is what paintDefault tracks of the terminal's SGR state.
type sgrState struct {
	fgSet   bool // the text set a foreground of its own
	painted bool // the document colour is in effect
	bg      bool
	under   bool
	strike  bool
	reverse bool
}

// shows reports whether a space's foreground is visible.
func (p *painter) shows() bool { return p.bg || p.under || p.strike || p.reverse }

// endLine sets the foreground back to the default if it was painted.
func (p *painter) endLine() {
	if p.painted {
		p.b.WriteString("\x1b[39m")
		p.painted = false
	}
}

// escape copies the escape sequence at s[i] and returns the index after
// it; an SGR sequence updates the state.
func (p *painter) escape(s string, i int) int {
	end := escapeEnd(s, i)
	seq := s[i:end]
	p.b.WriteString(seq)
	if len(seq) >= 3 && seq[1] == '[' && seq[len(seq)-1] == 'm' {
		p.sgr(seq[2 : len(seq)-1])
	}
	return end
}

// escapeEnd returns the index after the escape sequence at s[i]: a CSI
// ends at its final byte, an OSC, DCS, SOS, PM or APC string at BEL or
// ESC \, any other at its second byte.
func escapeEnd(s string, i int) int {
	if i+1 >= len(s) {
		return len(s)
	}
	switch s[i+1] {
	case '[':
		for j := i + 2; j < len(s); j++ {
			if s[j] >= 0x40 && s[j] <= 0x7e {
				return j + 1
			}
		}
		return len(s)
	case ']', 'P', 'X', '^', '_':
		for j := i + 2; j < len(s); j++ {
			if s[j] == 0x07 {
				return j + 1
			}
			if s[j] == 0x1b && j+1 < len(s) && s[j+1] == '\\' {
				return j + 2
			}
		}
		return len(s)
	}
	return i + 2
}

// sgr applies the parameters of one SGR sequence ("1;38;5;252").
func (p *painter) sgr(params string) {
	ps := strings.Split(params, ";")
	for k := 0; k < len(ps); k++ {
		code, sub, _ := strings.Cut(ps[k], ":")
		switch code {
		case "", "0":
			p.sgrState = sgrState{}
		case "4":
			p.under = sub != "0"
		case "24":
			p.under = false
		case "7":
			p.reverse = true
		case "27":
			p.reverse = false
		case "9":
			p.strike = true
		case "29":
			p.strike = false
		case "39":
			p.fgSet, p.painted = false, false
		case "49":
			p.bg = false
		case "38":
			k += colorArgs(ps[k:], sub)
			p.fgSet, p.painted = true, false
		case "48":
			k += colorArgs(ps[k:], sub)
			p.bg = true
		case "58":
			k += colorArgs(ps[k:], sub)
		default:
			p.basicColor(code)
		}
	}
}

// basicColor applies an SGR code of the 8/16-colour palette (30–37,
// 90–97 foreground; 40–47, 100–107 background).
func (p *painter) basicColor(code string) {
	if len(code) == 2 && (code[0] == '3' || code[0] == '9') && code[1] >= '0' && code[1] <= '7' {
		p.fgSet, p.painted = true, false
	}
	if (len(code) == 2 && code[0] == '4' || len(code) == 3 && code[:2] == "10") && code[len(code)-1] >= '0' && code[len(code)-1] <= '7' {
		p.bg = true
	}
}

// colorArgs returns how many parameters after ps[0] (38, 48 or 58) belong
// to its colour: none in the colon form (sub is set), 2 for "5;N", 4 for
// "2;R;G;B".
func colorArgs(ps []string, sub string) int {
	if sub != "" || len(ps) < 2 {
		return 0
	}
	switch ps[1] {
	case "5":
		return min(2, len(ps)-1)
	case "2":
		return min(4, len(ps)-1)
	}
	return 0
}
