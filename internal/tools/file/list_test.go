package file

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/zelvior/aidex/internal/tools"
)

func TestListDirectory(t *testing.T) {
	f := newFixture(t)
	f.SearchTree()
	r := f.OK("list_directory", m{})
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
	r = f.OK("list_directory", m{"path": "src", "depth": "5"})
	require.Contains(t, r.Output, "src/\n  deep/\n    x/\n      y.go\n")
	require.NotContains(t, r.Output, "gen_a.go")
	require.NoError(t, os.Symlink("lib.go", filepath.Join(f.Root, "src/link.go")))
	r = f.OK("list_directory", m{"path": "src", "depth": 1})
	require.Contains(t, r.Output, "  link.go -> lib.go\n")
	require.NotContains(t, r.Output, "y.go")

	f.Write("empty/.keep", "")
	require.NoError(t, os.Remove(filepath.Join(f.Root, "empty/.keep")))
	require.Contains(t, f.OK("list_directory", m{"path": "empty"}).Output, "(empty)")
	f.Fail("list_directory", m{"path": "main.go"}, tools.CategoryValidation)
	f.Fail("list_directory", m{"path": "nope"}, tools.CategoryNotFound)
}

func TestListDirectoryCap(t *testing.T) {
	f := newFixture(t)
	for i := range maxListEntries + 20 {
		f.Write(fmt.Sprintf("many/f%04d", i), "")
	}
	r := f.OK("list_directory", m{"path": "many"})
	require.True(t, r.Meta.Truncated)
	require.Contains(t, r.Output, "listing cut at 500 entries")
	require.Equal(t, maxListEntries+2, strings.Count(r.Output, "\n"))
}

func TestSearchFiles(t *testing.T) {
	f := newFixture(t)
	f.SearchTree()
	old := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(filepath.Join(f.Root, "main.go"), old, old))
	r := f.OK("search_files", m{"pattern": "*.go"})
	got := strings.Split(strings.TrimSpace(r.Output), "\n")
	require.ElementsMatch(t, []string{"main.go", "src/lib.go", "src/deep/x/y.go"}, got)
	require.Equal(t, "main.go", got[len(got)-1], "oldest last")

	r = f.OK("search_files", m{"pattern": "src/**/*.go"})
	require.ElementsMatch(t, []string{"src/lib.go", "src/deep/x/y.go"}, strings.Fields(r.Output))
	r = f.OK("search_files", m{"pattern": "src/*.go"})
	require.Equal(t, "src/lib.go\n", r.Output)
	r = f.OK("search_files", m{"pattern": "*.yml"})
	require.Equal(t, ".github/ci.yml\n", r.Output, "hidden files are searched, .git is not")
	r = f.OK("search_files", m{"pattern": "*.go", "path": "src/deep"})
	require.Equal(t, "src/deep/x/y.go\n", r.Output)
	r = f.OK("search_files", m{"pattern": "nothing/*.zz"})
	require.Contains(t, r.Output, "No files match")
	require.NotContains(t, f.OK("search_files", m{"pattern": "**/config"}).Output, ".git")

	for _, bad := range []string{"../../**/*.pem", "/etc/*", "a/../../x", "[", ""} {
		r := f.Call("search_files", m{"pattern": bad})
		require.False(t, r.OK, bad)
		require.Equal(t, tools.CategoryValidation, r.Category, bad)
	}
}

func TestSearchFilesCap(t *testing.T) {
	f := newFixture(t)
	for i := range maxSearchResults + 5 {
		f.Write(fmt.Sprintf("d/f%03d.txt", i), "")
	}
	r := f.OK("search_files", m{"pattern": "*.txt"})
	require.True(t, r.Meta.Truncated)
	require.Equal(t, maxSearchResults+5, r.Meta.Matches)
	require.Contains(t, r.Output, "... 5 more files (showing the 100 newest)")
}

func TestSearchFilesSymlinkLoop(t *testing.T) {
	f := newFixture(t)
	f.Write("a/file.txt", "x")
	require.NoError(t, os.Symlink(".", filepath.Join(f.Root, "a/loop")))
	r := f.OK("search_files", m{"pattern": "**/**/**/**/**/*"})
	require.ElementsMatch(t, []string{"a/file.txt", "a/loop"}, strings.Fields(r.Output))
}

func TestTreeToolsNeverReadIgnoredDirectories(t *testing.T) {
	f := newFixture(t)
	f.SearchTree()
	f.Write("build/deep/more.go", "needle\n")
	for _, c := range []struct {
		tool string
		args m
	}{
		{"list_directory", m{"depth": 10}},
		{"search_files", m{"pattern": "**/*.go"}},
		{"grep", m{"pattern": "needle"}},
		{"grep", m{"pattern": `[a-z]+\d`}},
	} {
		f.RequireNotRead("src/deep", "build", func() {
			r := f.OK(c.tool, c.args)
			require.NotContains(t, r.Output, "build/", c.tool)
		})
	}
}

func TestListDirectoryLimits(t *testing.T) {
	f := newFixture(t)
	for i := range 30 {
		f.Write(fmt.Sprintf("big/f%02d", i), "")
	}
	f.Write("small/a", "")
	lim := listLimits{entries: 100, dirEntries: 10, timeout: time.Minute}
	r := listDirWith(context.Background(), f.Env, listArgs{Path: ".", Depth: 2}, lim)
	require.True(t, r.OK)
	require.True(t, r.Meta.Truncated)
	require.Equal(t, 10, strings.Count(r.Output, "    f"), "ten entries of big/ read and listed")
	require.Contains(t, r.Output, "  small/\n    a\n")
	require.Contains(t, r.Output, "1 directories hold more than 10 entries")

	lim.timeout = time.Nanosecond
	r = listDirWith(context.Background(), f.Env, listArgs{Path: ".", Depth: 2}, lim)
	require.True(t, r.OK, "the time limit cuts the listing, it does not fail it")
	require.True(t, r.Meta.Truncated)
	require.Contains(t, r.Output, "listing stopped after 1ns")

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r = listDirWith(ctx, f.Env, listArgs{Path: "."}, defaultListLimits)
	require.False(t, r.OK, "a cancelled call fails")
}
