package slashcmd

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// oldCommandsSplit is internal/ui/commands.SplitArgs as it was before the
// two splitters became SplitArgs (/task-edit's words): a backslash
// escaped only " and \ inside double quotes; outside quotes it was
// literal.
func oldCommandsSplit(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	inWord := false
	var quote rune
	esc := false
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		raw := s[i : i+size]
		i += size
		switch {
		case esc:
			if r != '"' && r != '\\' {
				cur.WriteByte('\\')
			}
			cur.WriteString(raw)
			esc = false
		case quote == '"' && r == '\\':
			esc = true
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteString(raw)
		case r == '"' || r == '\'':
			quote, inWord = r, true
		case unicode.IsSpace(r):
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteString(raw)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unterminated %c quote in %q", quote, s)
	}
	if esc {
		cur.WriteRune('\\')
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out, nil
}

// oldSlashcmdSplit is this package's SplitArgs as it was (a custom
// command's $1..$9): a backslash escaped any next character outside single
// quotes, and the input was read as runes (invalid bytes became U+FFFD).
func oldSlashcmdSplit(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	inWord, quote, escaped := false, rune(0), false
	for _, r := range s {
		switch {
		case escaped:
			cur.WriteRune(r)
			escaped = false
		case r == '\\' && quote != '\'':
			escaped, inWord = true, true
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '"' || r == '\'':
			quote, inWord = r, true
		case unicode.IsSpace(r):
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unclosed %c quote in the arguments %q: close it or escape it with \\", quote, s)
	}
	if inWord || escaped {
		out = append(out, cur.String())
	}
	return out, nil
}

// splitCases are the inputs of both old splitters' tests and the inputs
// where they disagreed, with what the one splitter gives. old says which
// old copies gave the same: "both", "commands", "slashcmd".
var splitCases = []struct {
	in   string
	want []string
	old  string
}{
	{"", nil, "both"},
	{"a b  c", []string{"a", "b", "c"}, "both"},
	{"a\tb\nc", []string{"a", "b", "c"}, "both"},
	{`title="A B" x='c d'`, []string{"title=A B", "x=c d"}, "both"},
	{`t="say \"hi\""`, []string{`t=say "hi"`}, "both"},
	{`e="" f=`, []string{"e=", "f="}, "both"},
	{`"a b"c`, []string{"a bc"}, "both"},
	{`''`, []string{""}, "both"},
	{`"\\"`, []string{`\`}, "both"},
	{`one "two words" 'three \x'`, []string{"one", "two words", `three \x`}, "both"},
	{`fix #12 now; a > b | c & $HOME ~/x *.go`, []string{"fix", "#12", "now;", "a", ">", "b", "|", "c", "&", "$HOME", "~/x", "*.go"}, "both"},
	{`u=\q`, []string{`u=\q`}, "commands"},
	{`C:\Users\me "C:\dir"`, []string{`C:\Users\me`, `C:\dir`}, "commands"},
	{`trailing\`, []string{`trailing\`}, "commands"},
	{"bad\xffbyte", []string{"bad\xffbyte"}, "commands"},
	{`four\ five`, []string{"four five"}, "slashcmd"},
	{`it\'s \"x\" a\\b`, []string{"it's", `"x"`, `a\b`}, "slashcmd"},
}

func TestSplitArgsOneSplitter(t *testing.T) {
	for _, c := range splitCases {
		got, err := SplitArgs(c.in)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("SplitArgs(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
		for name, old := range map[string]func(string) ([]string, error){"commands": oldCommandsSplit, "slashcmd": oldSlashcmdSplit} {
			o, oerr := old(c.in)
			same := oerr == nil && reflect.DeepEqual(o, c.want)
			if want := c.old == "both" || c.old == name; same != want {
				t.Errorf("the old %s splitter gave %q, %v for %q: the table says it agreed: %v", name, o, oerr, c.in, want)
			}
		}
	}
	for _, in := range []string{`"open`, `title="open`, `it's`} {
		_, err := SplitArgs(in)
		if err == nil || !strings.Contains(err.Error(), "unclosed") || !strings.Contains(err.Error(), "unterminated") {
			t.Errorf("SplitArgs(%q): %v, want the unclosed quote named", in, err)
		}
	}
}

// FuzzSplitArgs checks the one splitter against both old copies: without
// a backslash all three agree (the old slashcmd one on valid UTF-8); a
// backslash before anything but white space, a quote or a backslash
// is kept as the old /task-edit splitter kept it.
func FuzzSplitArgs(f *testing.F) {
	for _, c := range splitCases {
		f.Add(c.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := SplitArgs(s)
		if strings.ContainsRune(s, '\\') && escapesSomething(s) {
			return
		}
		o, oerr := oldCommandsSplit(s)
		if (err == nil) != (oerr == nil) || !reflect.DeepEqual(got, o) {
			t.Fatalf("SplitArgs(%q) = %q, %v; the old commands splitter: %q, %v", s, got, err, o, oerr)
		}
		if strings.ContainsRune(s, '\\') || !utf8.ValidString(s) {
			return
		}
		o, oerr = oldSlashcmdSplit(s)
		if (err == nil) != (oerr == nil) || !reflect.DeepEqual(got, o) {
			t.Fatalf("SplitArgs(%q) = %q, %v; the old slashcmd splitter: %q, %v", s, got, err, o, oerr)
		}
	})
}

// escapesSomething reports whether a backslash in s stands before white
// space, a quote or a backslash (where the old copies differed).
func escapesSomething(s string) bool {
	for i := 0; i+1 < len(s); i++ {
		if s[i] == '\\' {
			r, _ := utf8.DecodeRuneInString(s[i+1:])
			if r == '"' || r == '\'' || r == '\\' || unicode.IsSpace(r) {
				return true
			}
		}
	}
	return false
}
