package agent

import (
	"fmt"
	"strings"
)

// invisible reports whether r is a character that renders as nothing but
// can carry hidden instructions: Unicode tag characters (U+E0000–U+E007F),
// bidirectional overrides and isolates, zero-width spaces and marks, word
// joiners, and a byte-order mark inside text. The zero-width joiner
// (U+200D) is kept: emoji sequences need it.
func invisible(r rune) bool {
	switch {
	case r >= 0xE0000 && r <= 0xE007F:
		return true
	case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069:
		return true
	case r == 0x200B || r == 0x200C || r == 0x200E || r == 0x200F:
		return true
	case r >= 0x2060 && r <= 0x2064, r == 0xFEFF:
		return true
	}
	return false
}

// RevealInvisible replaces invisible characters in tool output with
// visible escapes (`<U+E0041>`), so text hidden in a file or a web page
// reaches the model, and the user, as what it is (attack case E-124).
func RevealInvisible(s string) string {
	i := strings.IndexFunc(s, invisible)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for _, r := range s[i:] {
		if invisible(r) {
			fmt.Fprintf(&b, "<U+%04X>", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
