package slashcmd

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// SplitArgs splits a slash command's argument text into words, the one
// splitter of aidex's commands (a custom command's $1..$9, /task-edit's
// FIELD=VALUE words). It is shell-like without any expansion ($HOME,
// globs, ~, ; | > & # are plain text):
//   - white space separates words; 'single' and "double" quotes group and
//     are removed, and may sit inside a word (title="A B" is the one word
//     title=A B; "" is an empty word);
//   - in single quotes every character is literal;
//   - in double quotes a backslash escapes " and \ and is kept before any
//     other character ("C:\dir" stays C:\dir);
//   - outside quotes a backslash escapes white space, a quote and a
//     backslash (four\ five is one word) and is kept before any other
//     character, so Windows paths (C:\Users\me) pass as typed; a
//     backslash at the end is kept.
//
// Bytes that are not valid UTF-8 are kept as given. Errors: an unclosed
// quote, naming it and the fix.
func SplitArgs(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	inWord, quote, esc := false, rune(0), false
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		raw := s[i : i+size]
		i += size
		switch {
		case esc:
			esc = false
			if !escapable(r, quote) {
				cur.WriteByte('\\')
			}
			cur.WriteString(raw)
		case r == '\\' && quote != '\'':
			esc, inWord = true, true
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
		return nil, fmt.Errorf("the %c quote in the arguments %q is unclosed (unterminated): close it or escape it with \\", quote, s)
	}
	if esc {
		cur.WriteByte('\\')
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out, nil
}

// escapable reports whether a backslash before r escapes it (inside
// quote, 0 outside quotes): " and \ always, and outside quotes also white
// space and '.
func escapable(r, quote rune) bool {
	switch {
	case r == '"' || r == '\\':
		return true
	case quote == 0:
		return r == '\'' || unicode.IsSpace(r)
	}
	return false
}
