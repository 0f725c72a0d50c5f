package search

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// litStrings lists a finder's literals, case-folded ones as "i:" + text.
func litStrings(f *litFinder) []string {
	if f == nil {
		return nil
	}
	var out []string
	for _, a := range f.alts {
		s := string(a.s)
		if a.fold {
			s = "i:" + s
		}
		out = append(out, s)
	}
	return out
}

func TestNewLitFinder(t *testing.T) {
	cases := []struct {
		pattern    string
		ignoreCase bool
		want       []string
	}{
		{`func \w+Context\(`, false, []string{"Context("}},
		{`\w+(Context|Ctx)[(\[]`, false, []string{"Context(", "Context[", "Ctx(", "Ctx["}},
		{`TODO|FIXME`, false, []string{"TODO", "FIXME"}},
		{`func \w+context\(`, true, []string{"i:context("}},
		{`(?-i:Foo)bar`, true, []string{"Foo"}}, // case-sensitive letters do not join folded ones
		{`a(?:b+)c`, false, []string{"a"}},
		{`^foo$`, false, []string{"foo"}},
		{`kind`, true, []string{"i:ind"}}, // k folds to U+212A KELVIN SIGN
		{`(?i)ſ`, false, nil},             // only non-ASCII folds
		{`\w+`, false, nil},
		{`a|b*`, false, nil}, // b* matches without a literal
		{`(ab)?c`, false, []string{"c"}},
		{`x{2,}y`, false, []string{"x"}},
		{`[^a]bc`, false, []string{"bc"}},
	}
	for _, c := range cases {
		require.Equal(t, c.want, litStrings(newLitFinder(c.pattern, c.ignoreCase)), "%s ignoreCase=%v", c.pattern, c.ignoreCase)
	}
}

func TestLitFinderIndex(t *testing.T) {
	f := newLitFinder(`TODO|FIXME`, false)
	require.Equal(t, 2, f.index([]byte("a FIXME TODO")))
	require.Equal(t, -1, f.index([]byte("todo fixme")))
	f = newLitFinder(`context\(`, true)
	require.Equal(t, 3, f.index([]byte("ContExt CONTEXT(")[5:]))
	require.Equal(t, -1, f.index([]byte("contex(")))
}

// FuzzLitPrefilter checks that the literal prefilter never changes what
// grepData finds.
func FuzzLitPrefilter(f *testing.F) {
	patterns := []string{`TODO|FIXME`, `\w+(Context|Ctx)[(\[]`, `func \w+context\(`, `(?-i:Fo)o\s*b`,
		`a(b|c)d`, `ab|^$`, `[xy]z`, `k\wS`, `(a\n)?`, `\bfoo\b`, `a+b`, `x{2}y|z`, `é|ab`}
	f.Add(uint8(0), false, []byte("a TODO\nFIXME\n"))
	f.Add(uint8(1), false, []byte("xCtx[\nContext(\n"))
	f.Add(uint8(2), true, []byte("FUNC aCONTEXT(\nfunc b ContexT(\r\n"))
	f.Add(uint8(7), true, []byte("\u212Ax\u017F\nKaS\n"))
	f.Add(uint8(12), true, []byte("É\nAB\n"))
	f.Fuzz(func(t *testing.T, pi uint8, ignoreCase bool, data []byte) {
		pat := patterns[int(pi)%len(patterns)]
		re, err := compilePattern(pat, ignoreCase)
		if err != nil {
			t.Fatal(err)
		}
		want := grepDataWith(re, nil, data, 1)
		lf := newLitFinder(pat, ignoreCase)
		if got := grepDataWith(re, lf, data, 1); !slices.Equal(got, want) {
			t.Fatalf("%q (ignore case %v) prefilter %s on %q: %v, want %v", pat, ignoreCase,
				strings.Join(litStrings(lf), ","), data, got, want)
		}
	})
}
