package search

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zelvior/aidex/internal/tools"
)

// grepBackends returns the backends to compare; rg is skipped with a
// message when it is not installed.
func grepBackends(t *testing.T) map[string]tools.GrepBackend {
	b := map[string]tools.GrepBackend{"go": GoGrep{}}
	if p, err := exec.LookPath("rg"); err == nil {
		b["ripgrep"] = Ripgrep{Path: p}
	} else {
		t.Log("ripgrep (rg) is not installed: only the Go backend is tested; apt-get install ripgrep to test both")
	}
	return b
}

func TestGrepToolBothBackends(t *testing.T) {
	cases := []struct {
		name string
		args map[string]any
		want string
	}{
		{"basic", m{"pattern": "needle"}, `.github/ci.yml:1: needle: hidden dir
docs/notes.txt:1: needle at end without newline
keep.log:1: needle kept by negation
main.go:3: // needle one
main.go:5: // needle two
src/deep/x/y.go:2: needle crlf
src/lib.go:3: needle lib
src/lib.go:9: needle again
(8 matching lines in 6 files)
`},
		{"ignore case", m{"pattern": "^needle upper", "ignore_case": true}, "README.md:1: Needle upper\n(1 matching lines in 1 files)\n"},
		{"include", m{"pattern": "needle", "include": "*.go"}, `main.go:3: // needle one
main.go:5: // needle two
src/deep/x/y.go:2: needle crlf
src/lib.go:3: needle lib
src/lib.go:9: needle again
(5 matching lines in 3 files)
`},
		{"include with slash", m{"pattern": "needle", "include": "src/**"}, `src/deep/x/y.go:2: needle crlf
src/lib.go:3: needle lib
src/lib.go:9: needle again
(3 matching lines in 2 files)
`},
		{"subdir path", m{"pattern": "needle", "path": "src/deep"}, "src/deep/x/y.go:2: needle crlf\n(1 matching lines in 1 files)\n"},
		{"context", m{"pattern": "needle (lib|again)", "path": "src", "context_lines": 2}, `src/lib.go-1- a
src/lib.go-2- b
src/lib.go:3: needle lib
src/lib.go-4- c
src/lib.go-5- d
--
src/lib.go-7- f
src/lib.go-8- g
src/lib.go:9: needle again
src/lib.go-10- h
(2 matching lines in 1 files)
`},
		{"anchors per line", m{"pattern": "^needle", "path": "src"}, `src/deep/x/y.go:2: needle crlf
src/lib.go:3: needle lib
src/lib.go:9: needle again
(3 matching lines in 2 files)
`},
		{"max_results", m{"pattern": "needle", "max_results": "2"}, `.github/ci.yml:1: needle: hidden dir
docs/notes.txt:1: needle at end without newline
... showing 2 of 8 matching lines; narrow the pattern, path or include, or raise max_results (at most 1000)
`},
		{"$ matches before a CRLF line ending", m{"pattern": "needle crlf$", "path": "src"}, "src/deep/x/y.go:2: needle crlf\n(1 matching lines in 1 files)\n"},
		{"$ before CRLF in a group and an alternation", m{"pattern": "(crlf|lib)$|^x$"}, "src/deep/x/y.go:1: x\nsrc/deep/x/y.go:2: needle crlf\nsrc/lib.go:3: needle lib\n(3 matching lines in 2 files)\n"},
		{"no match", m{"pattern": "zzz_absent"}, "No matches for \"zzz_absent\" in ."},
		{"single file", m{"pattern": "needle", "path": "main.go"}, "main.go:3: // needle one\nmain.go:5: // needle two\n(2 matching lines in 1 files)\n"},
		{"redos pattern is linear", m{"pattern": "(a+)+$", "path": "src"}, "src/lib.go:1: a\n(1 matching lines in 1 files)\n"},
	}
	for name, backend := range grepBackends(t) {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			f.Env.Grep = backend
			f.SearchTree()
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					r := f.OK("grep", c.args)
					require.Equal(t, c.want, r.Output)
				})
			}
		})
	}
}

func TestGrepBackendsAgreeOnRepo(t *testing.T) {
	b := grepBackends(t)
	rg, ok := b["ripgrep"]
	if !ok {
		t.Skip("ripgrep (rg) is not installed; apt-get install ripgrep to compare the backends")
	}
	root, err := filepath.Abs("..") // internal/: a real tree of Go files
	require.NoError(t, err)
	for _, req := range []tools.GrepRequest{
		{Root: root, Pattern: `func \w+\(`},
		{Root: root, Pattern: `ERR|err\b`, IgnoreCase: true, Include: "*_test.go", Context: 1},
		{Root: root, Pattern: `^\s*//`, Include: "!*_test.go"},
	} {
		g, err := GoGrep{}.Search(context.Background(), req)
		require.NoError(t, err)
		r, err := rg.Search(context.Background(), req)
		require.NoError(t, err)
		require.NotZero(t, g.Matches, req.Pattern)
		require.Equal(t, g, r, "backends disagree on %+v", req)
	}
}

func TestGrepErrors(t *testing.T) {
	f := newFixture(t)
	f.SearchTree()
	r := f.Fail("grep", m{"pattern": "func("}, tools.CategoryValidation)
	require.Contains(t, r.Error, "RE2")
	f.Fail("grep", m{"pattern": ""}, tools.CategoryValidation)
	f.Fail("grep", m{"pattern": "x", "include": "["}, tools.CategoryValidation)
	f.Fail("grep", m{"pattern": "x", "path": "missing"}, tools.CategoryNotFound)
}

func TestGrepFallsBackWhenRipgrepFails(t *testing.T) {
	f := newFixture(t)
	f.SearchTree()
	f.Env.Grep = Ripgrep{Path: filepath.Join(f.Outside, "no-such-rg")}
	r := f.OK("grep", m{"pattern": "needle lib"})
	require.Equal(t, "src/lib.go:3: needle lib\n(1 matching lines in 1 files)\n", r.Output)
}

func TestGrepFile(t *testing.T) {
	f := newFixture(t)
	f.SearchTree()
	r := f.OK("grep_file", m{"path": "src/lib.go", "pattern": "needle"})
	require.Equal(t, "src/lib.go:3: needle lib\nsrc/lib.go:9: needle again\n(2 matching lines in 1 files)\n", r.Output)
	r = f.OK("grep_file", m{"path": "src/gen_a.go", "pattern": "needle"})
	require.Contains(t, r.Output, "needle generated", "an explicit file is searched even when ignored")
	f.Fail("grep_file", m{"path": "src/data.bin", "pattern": "needle"}, tools.CategoryValidation)
	f.Fail("grep_file", m{"path": "src", "pattern": "needle"}, tools.CategoryValidation)
	f.Fail("grep_file", m{"path": "nope.go", "pattern": "needle"}, tools.CategoryNotFound)
}

func TestGrepDataEdgeCases(t *testing.T) {
	re, err := compilePattern(`x*`, false)
	require.NoError(t, err)
	got := grepData(re, nil, []byte("a\nb\n"), 0)
	require.Equal(t, []tools.GrepLine{{Num: 1, Text: "a", Match: true}, {Num: 2, Text: "b", Match: true}}, got, "empty matches hit every line, none past the end")
	re, _ = compilePattern(`a\nb`, false)
	require.Nil(t, grepData(re, nil, []byte("a\nb\n"), 0), "matches never span lines")
	re, _ = compilePattern(`b`, false)
	require.Equal(t, []tools.GrepLine{{Num: 1, Text: "a", Match: false}, {Num: 2, Text: "b", Match: true}}, grepData(re, nil, []byte("a\nb"), 3))
	require.Equal(t, []tools.GrepLine{{Num: 2, Text: "xbx", Match: true}, {Num: 3, Text: "b", Match: true}}, grepData(re, []byte("b"), []byte("a\nxbx\nb"), 0))
	require.Equal(t, []byte("Context("), requiredLiteral(`func \w+Context\(`, false))
	require.Nil(t, requiredLiteral(`func`, true))
	require.Nil(t, requiredLiteral(`a|b`, false))
}

func TestGrepSkipsFilesWithALateNUL(t *testing.T) {
	f := newFixture(t)
	f.Write("late.dat", "needle first\n"+strings.Repeat("x", binarySniffBytes+100)+"\x00tail\n")
	f.Write("text.txt", "needle\n"+strings.Repeat("y\n", binarySniffBytes))
	for name, be := range grepBackends(t) {
		f.Env.Grep = be
		r := f.OK("grep", m{"pattern": "needle"})
		require.Equal(t, "text.txt:1: needle\n(1 matching lines in 1 files)\n", r.Output, name)
		r = f.OK("grep", m{"pattern": `ne+dle\b`})
		require.Equal(t, "text.txt:1: needle\n(1 matching lines in 1 files)\n", r.Output, name)
	}
}
