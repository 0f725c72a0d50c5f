package shell

import (
	"strings"
	"unicode/utf8"
)

// IsControl reports whether r is a character that can hide what a command
// line does from the person reading it: C0 controls other than tab and
// newline (a carriage return rewinds the line, ESC starts a terminal
// sequence), DEL, C1 controls, and the Unicode bidirectional controls
// (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F, U+061C) that reorder
// what is shown.
func IsControl(r rune) bool {
	switch {
	case r < 0x20:
		return r != '\t' && r != '\n'
	case r == 0x7f, r >= 0x80 && r < 0xa0:
		return true
	case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069, r == 0x200E, r == 0x200F, r == 0x061C:
		return true
	}
	return false
}

// HasControls reports whether line holds a character of [IsControl]. The
// permission policy never allows such a line by a rule nor counts it
// read-only: it asks (denied where no one can be asked).
func HasControls(line string) bool { return strings.IndexFunc(line, IsControl) >= 0 }

// EscapeControls shows the characters of [IsControl] in s as escapes: `\r`,
// `\x1b` (other C0 controls, DEL and C1 controls as \xNN), `\u202e` (bidi
// controls); a backslash is kept as it is. Text without them is returned
// unchanged.
func EscapeControls(s string) string {
	if !HasControls(s) {
		return s
	}
	const hex = "0123456789abcdef"
	var b strings.Builder
	b.Grow(len(s) + 16)
	for _, r := range s {
		switch {
		case !IsControl(r):
			b.WriteRune(r)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x100:
			b.WriteString(`\x`)
			b.WriteByte(hex[r>>4])
			b.WriteByte(hex[r&0xf])
		default:
			b.WriteString(`\u`)
			for shift := 12; shift >= 0; shift -= 4 {
				b.WriteByte(hex[(r>>shift)&0xf])
			}
		}
	}
	return b.String()
}

// controlNames lists the distinct control characters of line, escaped,
// in order of appearance: `\r, \u202e`.
func controlNames(line string) []string {
	var out []string
	seen := map[rune]bool{}
	for _, r := range line {
		if IsControl(r) && !seen[r] {
			seen[r] = true
			out = append(out, EscapeControls(string(r)))
		}
	}
	return out
}

// ControlReason is the sentence the policy gives for a line with control
// characters: which ones, and the line with them escaped (cut to max
// bytes of the original line).
func ControlReason(line string, max int) string {
	shown := line
	if len(shown) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(shown[cut]) {
			cut--
		}
		shown = shown[:cut] + "..."
	}
	return "the command contains the control characters " + strings.Join(controlNames(line), ", ") +
		", which can hide what it does: `" + EscapeControls(shown) + "`; no rule allows such a line and it is never counted read-only, so it needs approval"
}
