package file

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/tools"
)

// anchor is LINE#HASH of line n (1-based) of content.
func anchor(content string, n int) string {
	return fmt.Sprintf("%d#%s", n, LineHash(tools.SplitLinesKeep(content)[n-1]))
}

// With LineHashes, read_file shows LINE#HASH|text and the edit result's
// snippet does too, so the model can chain edits.
func TestReadFileShowsLineHashes(t *testing.T) {
	f := newFixture(t)
	f.Env.LineHashes = true
	f.Write("a.go", "package a\n\nfunc A() {}\n")
	r := f.OK("read_file", m{"path": "a.go"})
	want := fmt.Sprintf("1#%s|package a\n2#%s|\n3#%s|func A() {}\n", LineHash("package a"), LineHash(""), LineHash("func A() {}"))
	require.Equal(t, want, r.Output)
	r = f.OK("edit_lines", m{"path": "a.go", "start": anchor("package a\n\nfunc A() {}\n", 3), "content": "func A() int { return 1 }"})
	require.Contains(t, r.Output, "3#"+LineHash("func A() int { return 1 }")+"|func A() int { return 1 }")
}

func TestEditLines(t *testing.T) {
	const src = "one\ntwo\nthree\nfour\n"
	cases := []struct {
		name   string
		edit   m
		want   string
		errMsg string
	}{
		{name: "replace one", edit: m{"start": anchor(src, 2), "content": "TWO"}, want: "one\nTWO\nthree\nfour\n"},
		{name: "replace range", edit: m{"start": anchor(src, 2), "end": anchor(src, 3), "content": "x\ny\nz"}, want: "one\nx\ny\nz\nfour\n"},
		{name: "delete", edit: m{"start": anchor(src, 1), "end": anchor(src, 2), "content": ""}, want: "three\nfour\n"},
		{name: "insert after", edit: m{"start": anchor(src, 4), "after": true, "content": "five"}, want: "one\ntwo\nthree\nfour\nfive\n"},
		{name: "pasted anchor with text", edit: m{"start": anchor(src, 2) + "|two", "content": "2"}, want: "one\n2\nthree\nfour\n"},
		{name: "stale anchor after an edit above", edit: m{"start": "3#" + LineHash("four"), "content": "B"}, errMsg: "start 3#"},
		{name: "stale anchor", edit: m{"start": "2#" + LineHash("not two"), "content": "X"},
			errMsg: "is stale: line 2 is now 2#" + LineHash("two") + ". Nothing was changed. The lines there now:\n1#" + LineHash("one") + "|one\n"},
		{name: "line past the end", edit: m{"start": "9#abc", "content": "x"}, errMsg: "line 9 does not exist"},
		{name: "not an anchor", edit: m{"start": "2", "content": "x"}, errMsg: "is not an anchor LINE#HASH"},
		{name: "end before start", edit: m{"start": anchor(src, 3), "end": anchor(src, 2), "content": "x"}, errMsg: "is before start"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			r := f.edited(src, "edit_lines", c.edit)
			if c.errMsg != "" {
				require.False(t, r.OK)
				require.Equal(t, tools.CategoryValidation, r.Category)
				require.Contains(t, r.Error, c.errMsg)
				require.Equal(t, src, f.Read("f.txt"), "a refused edit changes nothing")
				return
			}
			require.True(t, r.OK, r.Error)
			require.Equal(t, c.want, f.Read("f.txt"))
		})
	}
}

// CRLF files keep their line endings; the hash ignores the terminator.
func TestEditLinesCRLF(t *testing.T) {
	f := newFixture(t)
	r := f.edited("a\r\nb\r\n", "edit_lines", m{"start": "2#" + LineHash("b"), "content": "B\nC"})
	require.True(t, r.OK, r.Error)
	require.Equal(t, "a\r\nB\r\nC\r\n", f.Read("f.txt"))
	require.Equal(t, LineHash("b\r\n"), LineHash("b"))
	require.False(t, strings.Contains(LineHash("x"), "#"))
}
