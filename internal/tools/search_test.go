package tools

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// searchTree builds a tree with nested .gitignore files, a .git
// directory, hidden files, binary files and CRLF lines.
func searchTree(f *fixture) {
	f.write(".gitignore", "*.log\nbuild/\n!keep.log\n")
	f.write(".git/config", "needle in git\n")
	f.write(".github/ci.yml", "needle: hidden dir\n")
	f.write("README.md", "Needle upper\nno match\n")
	f.write("main.go", "package main\n\n// needle one\nfunc main() {}\n// needle two\n")
	f.write("app.log", "needle in ignored log\n")
	f.write("keep.log", "needle kept by negation\n")
	f.write("build/out.go", "needle in ignored build\n")
	f.write("src/.gitignore", "gen_*.go\n")
	f.write("src/gen_a.go", "needle generated\n")
	f.write("src/lib.go", "a\nb\nneedle lib\nc\nd\ne\nf\ng\nneedle again\nh\n")
	f.write("src/deep/x/y.go", "x\r\nneedle crlf\r\n")
	f.write("src/data.bin", "needle\x00binary")
	f.write("docs/notes.txt", "needle at end without newline")
}

func TestListDirectory(t *testing.T) {
	f := newFixture(t)
	searchTree(f)
	r := f.ok("list_directory", m{})
	want := `./
  .github/
    ci.yml
  docs/
    notes.txt
  src/
    deep/
    .gitignore
    data.bin
    lib.go
  .gitignore
  README.md
  keep.log
  main.go
`
	require.Equal(t, want, r.Output)
	r = f.ok("list_directory", m{"path": "src", "depth": "5"})
	require.Contains(t, r.Output, "src/\n  deep/\n    x/\n      y.go\n")
	require.NotContains(t, r.Output, "gen_a.go")
	require.NoError(t, os.Symlink("lib.go", filepath.Join(f.root, "src/link.go")))
	r = f.ok("list_directory", m{"path": "src", "depth": 1})
	require.Contains(t, r.Output, "  link.go -> lib.go\n")
	require.NotContains(t, r.Output, "y.go")

	f.write("empty/.keep", "")
	require.NoError(t, os.Remove(filepath.Join(f.root, "empty/.keep")))
	require.Contains(t, f.ok("list_directory", m{"path": "empty"}).Output, "(empty)")
	f.fail("list_directory", m{"path": "main.go"}, CategoryValidation)
	f.fail("list_directory", m{"path": "nope"}, CategoryNotFound)
}

func TestListDirectoryCap(t *testing.T) {
	f := newFixture(t)
	for i := range maxListEntries + 20 {
		f.write(fmt.Sprintf("many/f%04d", i), "")
	}
	r := f.ok("list_directory", m{"path": "many"})
	require.True(t, r.Meta.Truncated)
	require.Contains(t, r.Output, "listing cut at 500 entries")
	require.Equal(t, maxListEntries+2, strings.Count(r.Output, "\n"))
}

func TestSearchFiles(t *testing.T) {
	f := newFixture(t)
	searchTree(f)
	old := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(filepath.Join(f.root, "main.go"), old, old))
	r := f.ok("search_files", m{"pattern": "*.go"})
	got := strings.Split(strings.TrimSpace(r.Output), "\n")
	require.ElementsMatch(t, []string{"main.go", "src/lib.go", "src/deep/x/y.go"}, got)
	require.Equal(t, "main.go", got[len(got)-1], "oldest last")

	r = f.ok("search_files", m{"pattern": "src/**/*.go"})
	require.ElementsMatch(t, []string{"src/lib.go", "src/deep/x/y.go"}, strings.Fields(r.Output))
	r = f.ok("search_files", m{"pattern": "src/*.go"})
	require.Equal(t, "src/lib.go\n", r.Output)
	r = f.ok("search_files", m{"pattern": "*.yml"})
	require.Equal(t, ".github/ci.yml\n", r.Output, "hidden files are searched, .git is not")
	r = f.ok("search_files", m{"pattern": "*.go", "path": "src/deep"})
	require.Equal(t, "src/deep/x/y.go\n", r.Output)
	r = f.ok("search_files", m{"pattern": "nothing/*.zz"})
	require.Contains(t, r.Output, "No files match")
	require.NotContains(t, f.ok("search_files", m{"pattern": "**/config"}).Output, ".git")

	for _, bad := range []string{"../../**/*.pem", "/etc/*", "a/../../x", "[", ""} {
		r := f.call("search_files", m{"pattern": bad})
		require.False(t, r.OK, bad)
		require.Equal(t, CategoryValidation, r.Category, bad)
	}
}

func TestSearchFilesCap(t *testing.T) {
	f := newFixture(t)
	for i := range maxSearchResults + 5 {
		f.write(fmt.Sprintf("d/f%03d.txt", i), "")
	}
	r := f.ok("search_files", m{"pattern": "*.txt"})
	require.True(t, r.Meta.Truncated)
	require.Equal(t, maxSearchResults+5, r.Meta.Matches)
	require.Contains(t, r.Output, "... 5 more files (showing the 100 newest)")
}

func TestSearchFilesSymlinkLoop(t *testing.T) {
	f := newFixture(t)
	f.write("a/file.txt", "x")
	require.NoError(t, os.Symlink(".", filepath.Join(f.root, "a/loop")))
	r := f.ok("search_files", m{"pattern": "**/**/**/**/**/*"})
	require.ElementsMatch(t, []string{"a/file.txt", "a/loop"}, strings.Fields(r.Output))
}

// grepBackends returns the backends to compare; rg is skipped with a
// message when it is not installed.
func grepBackends(t *testing.T) map[string]GrepBackend {
	b := map[string]GrepBackend{"go": GoGrep{}}
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
		{"no match", m{"pattern": "zzz_absent"}, "No matches for \"zzz_absent\" in ."},
		{"single file", m{"pattern": "needle", "path": "main.go"}, "main.go:3: // needle one\nmain.go:5: // needle two\n(2 matching lines in 1 files)\n"},
		{"redos pattern is linear", m{"pattern": "(a+)+$", "path": "src"}, "src/lib.go:1: a\n(1 matching lines in 1 files)\n"},
	}
	for name, backend := range grepBackends(t) {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			f.env.Grep = backend
			searchTree(f)
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					r := f.ok("grep", c.args)
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
	for _, req := range []GrepRequest{
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
	searchTree(f)
	r := f.fail("grep", m{"pattern": "func("}, CategoryValidation)
	require.Contains(t, r.Error, "RE2")
	f.fail("grep", m{"pattern": ""}, CategoryValidation)
	f.fail("grep", m{"pattern": "x", "include": "["}, CategoryValidation)
	f.fail("grep", m{"pattern": "x", "path": "missing"}, CategoryNotFound)
}

func TestGrepFallsBackWhenRipgrepFails(t *testing.T) {
	f := newFixture(t)
	searchTree(f)
	f.env.Grep = Ripgrep{Path: filepath.Join(f.outside, "no-such-rg")}
	r := f.ok("grep", m{"pattern": "needle lib"})
	require.Equal(t, "src/lib.go:3: needle lib\n(1 matching lines in 1 files)\n", r.Output)
}

func TestGrepFile(t *testing.T) {
	f := newFixture(t)
	searchTree(f)
	r := f.ok("grep_file", m{"path": "src/lib.go", "pattern": "needle"})
	require.Equal(t, "src/lib.go:3: needle lib\nsrc/lib.go:9: needle again\n(2 matching lines in 1 files)\n", r.Output)
	r = f.ok("grep_file", m{"path": "src/gen_a.go", "pattern": "needle"})
	require.Contains(t, r.Output, "needle generated", "an explicit file is searched even when ignored")
	f.fail("grep_file", m{"path": "src/data.bin", "pattern": "needle"}, CategoryValidation)
	f.fail("grep_file", m{"path": "src", "pattern": "needle"}, CategoryValidation)
	f.fail("grep_file", m{"path": "nope.go", "pattern": "needle"}, CategoryNotFound)
}

func TestGrepDataEdgeCases(t *testing.T) {
	re, err := compilePattern(`x*`, false)
	require.NoError(t, err)
	got := grepData(re, nil, []byte("a\nb\n"), 0)
	require.Equal(t, []GrepLine{{1, "a", true}, {2, "b", true}}, got, "empty matches hit every line, none past the end")
	re, _ = compilePattern(`a\nb`, false)
	require.Nil(t, grepData(re, nil, []byte("a\nb\n"), 0), "matches never span lines")
	re, _ = compilePattern(`b`, false)
	require.Equal(t, []GrepLine{{1, "a", false}, {2, "b", true}}, grepData(re, nil, []byte("a\nb"), 3))
	require.Equal(t, []GrepLine{{2, "xbx", true}, {3, "b", true}}, grepData(re, []byte("b"), []byte("a\nxbx\nb"), 0))
	require.Equal(t, []byte("Context("), requiredLiteral(`func \w+Context\(`, false))
	require.Nil(t, requiredLiteral(`func`, true))
	require.Nil(t, requiredLiteral(`a|b`, false))
}
