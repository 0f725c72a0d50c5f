package tools

import "testing"

// [tools] ensure_trailing_newline: text ends with a newline in the file's
// own line ending; empty and binary content is left alone.
func TestWithTrailingNewline(t *testing.T) {
	for in, want := range map[string]string{
		"a":           "a\n",
		"a\n":         "a\n",
		"a\r\nb":      "a\r\nb\r\n",
		"":            "",
		"bin\x00ary":  "bin\x00ary",
		"\xff\xfebad": "\xff\xfebad",
	} {
		if got := string(withTrailingNewline([]byte(in))); got != want {
			t.Errorf("%q: got %q, want %q", in, got, want)
		}
	}
}
