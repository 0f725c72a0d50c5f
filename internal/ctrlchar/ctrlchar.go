// Package ctrlchar is the one escaper of control characters: which
// characters can hide what a line says from the person reading it, and
// how they are shown as visible escapes (`\r`, `\x1b`, `\u202e`). The
// permission policy, the engine's approval requests and the terminal
// front ends share it. It is a leaf: it imports nothing of aidex.
package ctrlchar

import "strings"

// IsHiding reports whether r can hide what a line does from the person
// reading it: C0 controls other than tab and newline (a carriage return
// rewinds the line, ESC starts a terminal sequence), DEL, C1 controls,
// and the Unicode bidirectional controls (U+202A–U+202E, U+2066–U+2069,
// U+200E, U+200F, U+061C) that reorder what is shown.
func IsHiding(r rune) bool {
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

// Escape shows the characters of [IsHiding] in s as escapes: `\r` for a
// carriage return, [WriteHex]'s form for the others; a backslash is kept
// as it is. Text without them is returned unchanged (no allocation).
func Escape(s string) string {
	if strings.IndexFunc(s, IsHiding) < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for _, r := range s {
		switch {
		case !IsHiding(r):
			b.WriteRune(r)
		case r == '\r':
			b.WriteString(`\r`)
		default:
			WriteHex(&b, r)
		}
	}
	return b.String()
}

// WriteHex writes r to b as a visible escape: `\xNN` (two lowercase hex
// digits) below U+0100, `\uNNNN` (four) above; r is at most U+FFFF in
// every set this package's callers escape.
func WriteHex(b *strings.Builder, r rune) {
	const hex = "0123456789abcdef"
	if r < 0x100 {
		b.WriteString(`\x`)
		b.WriteByte(hex[r>>4])
		b.WriteByte(hex[r&0xf])
		return
	}
	b.WriteString(`\u`)
	for shift := 12; shift >= 0; shift -= 4 {
		b.WriteByte(hex[(r>>shift)&0xf])
	}
}
