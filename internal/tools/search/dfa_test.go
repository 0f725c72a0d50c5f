package search

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/tools"
)

// dfaPatterns are the patterns the line filter tests run: classes,
// repeats, assertions, case folding, Unicode and alternations.
var dfaPatterns = []string{`[A-Z][a-z]+[0-9]{3}x`, `\b[A-Z][a-z]+[0-9]{3}[a-z]\b`, `^\s*func\b`, `a$`, `(?i)straße`,
	`é+\w`, `[^a-z]{3}`, `\bb+c`, `x{2}y|z\d`, `.\x{1F600}.`, `[\p{Greek}]+a`, `(ab|cd)*e`, `\Aq`, `\B_\B`}

func TestLineDFAFindsEveryMatchingLine(t *testing.T) {
	data := "Widget042x and Scope500xa\nfunc\n  func main\nextra\nStraSSe STRASSE\nééé1 é\n1A2\nbbc xxy zz9\n" +
		"a😀b\nαβγa\nabcde\nq\nx_y\r\n\xff\xfeBad123xz\n"
	for _, pat := range dfaPatterns {
		for _, ic := range []bool{false, true} {
			re, err := compilePattern(pat, ic)
			require.NoError(t, err)
			dp := newDFAProg(pat, ic)
			require.NotNil(t, dp, pat)
			d := dp.get()
			for _, line := range strings.Split(data, "\n") {
				at, ok := d.find([]byte(line))
				require.True(t, ok)
				if re.MatchString(line) {
					require.GreaterOrEqual(t, at, 0, "%s (i=%v) must let %q through", pat, ic, line)
				}
			}
			want := perLine(re, data)
			require.Equal(t, want, grepDataFilter(re, nil, dp, []byte(data), 0, 0), pat)
			require.Equal(t, want, grepDataFilter(re, newLitFinder(pat, ic), dp, []byte(data), 0, 0), pat)
		}
	}
}

// perLine is the reference: the lines re matches on their own, as
// ripgrep searches.
func perLine(re *regexp.Regexp, data string) []tools.GrepLine {
	var out []tools.GrepLine
	for i, l := range tools.SplitLinesKeep(data) {
		if re.MatchString(strings.TrimSuffix(l, "\n")) {
			out = append(out, tools.GrepLine{Num: i + 1, Text: tools.TrimEOL(l), Match: true})
		}
	}
	return out
}

func TestLineDFARejectsLinesAndNewlinesReset(t *testing.T) {
	dp := newDFAProg(`[A-Z][a-z]+[0-9]{3}x`, false)
	d := dp.get()
	at, ok := d.find([]byte("Widget04\n2x Widget\n"))
	require.True(t, ok)
	require.Equal(t, -1, at, "a match never spans lines")
	at, _ = d.find([]byte("no\nxx Widget042x"))
	require.Equal(t, len("no\nxx Widget042x")-1, at, "the offset of the match's last byte")
	require.Nil(t, newDFAProg(`x*`, false), "a pattern matching the empty string filters nothing")
	require.Nil(t, newDFAProg(`(`, false))
}

func TestLineDFAGivesUpAndSearchStaysRight(t *testing.T) {
	pat := `(a|b)*a(a|b){12}c` // 2^13 DFA states: more than maxDFAStates
	re, err := compilePattern(pat, false)
	require.NoError(t, err)
	dp := newDFAProg(pat, false)
	var b strings.Builder
	for i := range 3000 {
		for j := range 14 {
			b.WriteByte("ab"[(i>>j)&1])
		}
		if i >= 2500 && i%100 == 0 {
			b.WriteString("abbbbbbbbbbbbc")
		}
		b.WriteByte('\n')
	}
	data := []byte(b.String())
	_, ok := dp.get().find(data)
	require.False(t, ok, "the filter gives up past maxDFAStates")
	want := grepDataWith(re, nil, data, 0)
	require.NotEmpty(t, want)
	for range maxDFAGiveUps {
		require.True(t, dp.usable())
		require.Equal(t, want, grepDataFilter(re, nil, dp, data, 0, 0))
	}
	require.False(t, dp.usable(), "a search stops using a filter that keeps giving up")
	require.Equal(t, want, grepDataFilter(re, nil, dp, data, 0, 0))
}

// FuzzLineDFA checks that grep with the line filter finds the lines the
// regexp matches on their own.
func FuzzLineDFA(f *testing.F) {
	f.Add(uint8(0), false, []byte("Widget042x\nfoo\n"))
	f.Add(uint8(2), false, []byte("  func x\nfunc\n"))
	f.Add(uint8(4), true, []byte("STRASSE\nstraße\n"))
	f.Add(uint8(9), false, []byte("a😀b\n\xf0\x9f\x98"))
	f.Fuzz(func(t *testing.T, pi uint8, ignoreCase bool, data []byte) {
		pat := dfaPatterns[int(pi)%len(dfaPatterns)]
		re, err := compilePattern(pat, ignoreCase)
		if err != nil {
			t.Fatal(err)
		}
		want := perLine(re, string(data))
		if got := grepDataFilter(re, nil, newDFAProg(pat, ignoreCase), data, 0, 0); !slices.Equal(got, want) {
			t.Fatalf("%q (ignore case %v) on %q: %v, want %v", pat, ignoreCase, data, got, want)
		}
	})
}

// BenchmarkLineDFA runs the line filter over 1 MiB of source-like lines
// without a match (the no-literal regex).
func BenchmarkLineDFA(b *testing.B) {
	var sb strings.Builder
	for sb.Len() < 1<<20 {
		sb.WriteString("\tif err := server.StreamQueue(ctx, router); err != nil { // 0x3f Region404 handler\n")
		sb.WriteString("func (s *ClientSignal) PatchJournal(ctx context.Context, encoder Handler) error {\n")
	}
	data := []byte(sb.String())
	d := newDFAProg(`\b[A-Z][a-z]+[0-9]{3}[a-z]\b`, false).get()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if at, ok := d.find(data); !ok || at >= 0 {
			b.Fatal(at, ok)
		}
	}
}
