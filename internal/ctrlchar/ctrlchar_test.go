package ctrlchar

import (
	"strings"
	"testing"
)

// oldEscape is the escaper as it was copied twice before this package
// (internal/permission/shell.EscapeControls and agent.ShowControls, which
// were byte for byte the same): Escape must give its output on every
// input.
func oldEscape(s string) string {
	hiding := func(r rune) bool {
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
	if strings.IndexFunc(s, hiding) < 0 {
		return s
	}
	const hex = "0123456789abcdef"
	var b strings.Builder
	for _, r := range s {
		switch {
		case !hiding(r):
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

func TestEscape(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"ls -la\tx\ny", "ls -la\tx\ny"},
		{"rm -rf /\rls", `rm -rf /\rls`},
		{"a\x1b[2Jb", `a\x1b[2Jb`},
		{"del\x7f c1\u009b", `del\x7f c1\x9b`},
		{"evil\u202etxt.exe", `evil\u202etxt.exe`},
		{"\u2066\u2069\u200e\u200f\u061c", `\u2066\u2069\u200e\u200f\u061c`},
		{`back\slash`, `back\slash`},
		{"\x00\x01", `\x00\x01`},
		{"ünïcödé 日本", "ünïcödé 日本"},
	} {
		if got := Escape(c.in); got != c.want {
			t.Errorf("Escape(%q) = %q, want %q", c.in, got, c.want)
		}
		if got := oldEscape(c.in); got != c.want {
			t.Errorf("the old escaper gave %q for %q, the table says %q", got, c.in, c.want)
		}
	}
}

func TestWriteHex(t *testing.T) {
	for r, want := range map[rune]string{0: `\x00`, 0x1b: `\x1b`, 0x9b: `\x9b`, 0xff: `\xff`, 0x202e: `\u202e`, 0xfeff: `\ufeff`} {
		var b strings.Builder
		WriteHex(&b, r)
		if b.String() != want {
			t.Errorf("WriteHex(%U) = %q, want %q", r, b.String(), want)
		}
	}
}

func FuzzEscape(f *testing.F) {
	for _, s := range []string{"", "a\rb", "\x1b]0;t\x07", "\u202e", "\xff\xfe", "ok"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Escape(s)
		if want := oldEscape(s); got != want {
			t.Fatalf("Escape(%q) = %q, the old copies gave %q", s, got, want)
		}
		if strings.IndexFunc(got, IsHiding) >= 0 {
			t.Fatalf("Escape(%q) = %q still holds a hiding character", s, got)
		}
	})
}
