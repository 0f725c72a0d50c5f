package search

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/tools"
)

// FuzzGrepData checks the whole-buffer search against a line-by-line
// reference (ripgrep's semantics).
func FuzzGrepData(f *testing.F) {
	patterns := []string{`a`, `^\s*b`, `a$`, `x*`, `\s+`, `(?i)AB`, `a.b`, `^$`, `ab\s*c`, `\bb+c`, `a\nb`}
	f.Add(uint8(0), []byte("a\nb\n"))
	f.Add(uint8(1), []byte("\n\n  b\r\nb"))
	f.Add(uint8(4), []byte(" \n\t\n"))
	f.Add(uint8(7), []byte("\n\na\n\n"))
	f.Fuzz(func(t *testing.T, pi uint8, data []byte) {
		pat := patterns[int(pi)%len(patterns)]
		re, err := compilePattern(pat, false)
		if err != nil {
			t.Fatal(err)
		}
		got := grepData(re, nil, data, 0)
		if lit := requiredLiteral(pat, false); lit != nil {
			if withLit := grepData(re, lit, data, 0); !slices.Equal(got, withLit) {
				t.Fatalf("literal prefilter %q changes results on %q: %v vs %v", lit, data, withLit, got)
			}
		}
		var want []tools.GrepLine
		for i, l := range tools.SplitLinesKeep(string(data)) {
			text := tools.TrimEOL(l)
			if lineMatch(re, strings.TrimSuffix(l, "\n")) {
				want = append(want, tools.GrepLine{Num: i + 1, Text: text, Match: true})
			}
		}
		if len(got) != len(want) {
			t.Fatalf("pattern %q on %q: got %v, want %v", re, data, got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("pattern %q on %q: got %v, want %v", re, data, got, want)
			}
		}
	})
}

func lineMatch(re *regexp.Regexp, line string) bool { return re.MatchString(line) }
