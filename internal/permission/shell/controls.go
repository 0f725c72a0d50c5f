package shell

import (
	"strings"
	"unicode/utf8"

	"github.com/zelvior/aidex/internal/ctrlchar"
)

// IsControl reports whether r is a character that can hide what a command
// line does from the person reading it: ctrlchar.IsHiding (C0 controls
// other than tab and newline, DEL, C1 controls, and the Unicode
// bidirectional controls that reorder what is shown).
func IsControl(r rune) bool { return ctrlchar.IsHiding(r) }

// HasControls reports whether line holds a character of [IsControl]. The
// permission policy never allows such a line by a rule nor counts it
// read-only: it asks (denied where no one can be asked).
func HasControls(line string) bool { return strings.IndexFunc(line, IsControl) >= 0 }

// EscapeControls shows the characters of [IsControl] in s as escapes: `\r`,
// `\x1b` (other C0 controls, DEL and C1 controls as \xNN), `\u202e` (bidi
// controls); a backslash is kept as it is. Text without them is returned
// unchanged. It is ctrlchar.Escape.
func EscapeControls(s string) string { return ctrlchar.Escape(s) }

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
