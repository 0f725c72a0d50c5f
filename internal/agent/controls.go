package agent

import "strings"

// hidingControl reports whether r can hide what a command line does from
// the person approving it: C0 controls other than tab and newline, DEL,
// C1 controls, and the bidirectional controls. It is the set of
// internal/permission/shell.IsControl (which the policy asks about; the
// engine may not import it).
func hidingControl(r rune) bool {
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

// ShowControls is the command line an approval shows: the characters of
// hidingControl as escapes (`\r`, `\x1b`, `\u202e`), so a carriage return
// cannot paint a harmless command over the real one.
func ShowControls(s string) string {
	if strings.IndexFunc(s, hidingControl) < 0 {
		return s
	}
	const hex = "0123456789abcdef"
	var b strings.Builder
	for _, r := range s {
		switch {
		case !hidingControl(r):
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
