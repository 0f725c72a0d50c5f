package tools

import (
	"strings"
	"unicode/utf8"
)

// FirstLines returns the first n lines of s (without the newline after
// the last one).
func FirstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}

// CutUTF8 returns the longest prefix of s of at most n bytes that does not
// split a rune.
func CutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// SplitLinesKeep splits s into lines that keep their terminators; the last
// line has none when s does not end in a newline. "" has no lines.
func SplitLinesKeep(s string) []string {
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// TrimEOL drops one trailing "\n" or "\r\n".
func TrimEOL(s string) string {
	s = strings.TrimSuffix(s, "\n")
	return strings.TrimSuffix(s, "\r")
}
