package shell

import "testing"

func TestEscapeControls(t *testing.T) {
	for in, want := range map[string]string{
		"ls -la":             "ls -la",
		"a\tb\nc":            "a\tb\nc",
		"ls\rrm":             `ls\rrm`,
		"\x1b[2K":            `\x1b[2K`,
		"x\x7f":              `x\x7f`,
		"x\u0085":            `x\x85`,
		"\u202etxt":          `\u202etxt`,
		"\u2066\u2069":       `\u2066\u2069`,
		"\u200e\u200f\u061c": `\u200e\u200f\u061c`,
		`a\rb`:               `a\rb`,
		"\u200d":             "\u200d",
	} {
		if got := EscapeControls(in); got != want {
			t.Errorf("EscapeControls(%q) = %q, want %q", in, got, want)
		}
		if HasControls(in) != (in != want) {
			t.Errorf("HasControls(%q) = %v", in, HasControls(in))
		}
	}
}
