package file

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zelvior/aidex/internal/tools"
)

func lines(n int, format string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, format+"\n", i)
	}
	return b.String()
}

func TestReadFile(t *testing.T) {
	f := newFixture(t)
	f.Write("a.txt", "alpha\nbeta\r\ngamma")
	f.Write("big.txt", lines(2340, "line %d"))
	f.Write("empty.txt", "")
	f.Write("bom.txt", "\uFEFFhello\n")
	f.Write("long.txt", strings.Repeat("é", 1500)+"\n") // 3000 bytes
	f.Write("bin.dat", "abc\x00def")
	require.NoError(t, os.Mkdir(filepath.Join(f.Root, "dir"), 0o755))

	cases := []struct {
		name, tool string
		args       any
		want       string // exact output, or substring when contains
		contains   bool
		lines      int
	}{
		{"cat -n format", "read_file", m{"path": "a.txt"}, "     1\talpha\n     2\tbeta\n     3\tgamma\n", false, 3},
		{"offset and limit", "read_file", m{"path": "a.txt", "offset": 2, "limit": 1},
			"     2\tbeta\n... 1 more lines; call read_file with offset=3\n", false, 1},
		{"offset 0 is line 1", "read_file", m{"path": "a.txt", "offset": 0, "limit": 1}, "     1\talpha\n", true, 1},
		{"default limit note", "read_file", m{"path": "big.txt"}, "... 340 more lines; call read_file with offset=2001\n", true, 2000},
		{"empty", "read_file", m{"path": "empty.txt"}, "(empty.txt is empty)", false, 0},
		{"bom hidden", "read_file", m{"path": "bom.txt"}, "     1\thello\n", false, 1},
		{"long line cut", "read_file", m{"path": "long.txt"}, "... [line cut: 3000 bytes in all]", true, 1},
		{"lines range", "read_file_lines", m{"path": "big.txt", "start_line": 10, "end_line": 11},
			"    10\tline 10\n    11\tline 11\n... 2329 more lines; call read_file with offset=12\n", false, 2},
		{"lines range clamps end", "read_file_lines", m{"path": "a.txt", "start_line": 3, "end_line": 99}, "     3\tgamma\n", false, 1},
		{"head", "head_file", m{"path": "big.txt", "lines": "2"}, "     1\tline 1\n     2\tline 2\n... 2338 more lines; call read_file with offset=3\n", false, 2},
		{"head default", "head_file", m{"path": "big.txt"}, "    10\tline 10\n...", true, 10},
		{"tail", "tail_file", m{"path": "big.txt", "lines": 2}, "  2339\tline 2339\n  2340\tline 2340\n", false, 2},
		{"tail more than file", "tail_file", m{"path": "a.txt", "lines": 10}, "     1\talpha\n", true, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := f.OK(c.tool, c.args)
			if c.contains {
				require.Contains(t, r.Output, c.want)
			} else {
				require.Equal(t, c.want, r.Output)
			}
			require.Equal(t, c.lines, r.Meta.Lines)
		})
	}

	errs := []struct {
		name, tool string
		args       any
		cat        tools.Category
		msg        string
	}{
		{"missing", "read_file", m{"path": "nope.txt"}, tools.CategoryNotFound, "does not exist: use list_directory or search_files"},
		{"directory", "read_file", m{"path": "dir"}, tools.CategoryValidation, "is a directory"},
		{"binary", "read_file", m{"path": "bin.dat"}, tools.CategoryValidation, "binary"},
		{"offset past end", "read_file", m{"path": "a.txt", "offset": 4}, tools.CategoryValidation, "past the end of the file (3 lines)"},
		{"negative offset", "read_file", m{"path": "a.txt", "offset": -1}, tools.CategoryValidation, "positive"},
		{"bad range", "read_file_lines", m{"path": "a.txt", "start_line": 3, "end_line": 2}, tools.CategoryValidation, "start_line <= end_line"},
		{"range past end", "read_file_lines", m{"path": "a.txt", "start_line": 5, "end_line": 6}, tools.CategoryValidation, "past the end"},
		{"device", "read_file", m{"path": "/dev/zero"}, tools.CategorySecurity, "outside the workspace"},
	}
	for _, c := range errs {
		t.Run(c.name, func(t *testing.T) {
			r := f.Fail(c.tool, c.args, c.cat)
			require.Contains(t, r.Error, c.msg)
		})
	}
}

func TestReadFileOutputCap(t *testing.T) {
	f := newFixture(t)
	// 2000 lines of ~1990 bytes each are ~4 MB: the 256 KiB output cap cuts first.
	f.Write("wide.txt", lines(3000, "%d "+strings.Repeat("x", 1990)))
	r := f.OK("read_file", m{"path": "wide.txt"})
	require.LessOrEqual(t, len(r.Output), MaxOutputBytes+200)
	require.True(t, r.Meta.Truncated)
	require.Less(t, r.Meta.Lines, 200)
	require.Contains(t, r.Output, fmt.Sprintf("... output capped at 256 KiB; %d more lines; call read_file with offset=%d",
		3000-r.Meta.Lines, r.Meta.Lines+1))
}

func TestReadRefusesFIFOWithoutBlocking(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no FIFOs on Windows")
	}
	f := newFixture(t)
	require.NoError(t, mkfifo(filepath.Join(f.Root, "fifo")))
	r := f.Fail("read_file", m{"path": "fifo"}, tools.CategoryValidation)
	require.Contains(t, r.Error, "not a regular file")
}

func TestReadRefusesHugeFile(t *testing.T) {
	f := newFixture(t)
	p := filepath.Join(f.Root, "sparse.bin")
	fh, err := os.Create(p)
	require.NoError(t, err)
	require.NoError(t, fh.Truncate(10<<30)) // 10 GiB sparse: must be refused by size, not read
	require.NoError(t, fh.Close())
	r := f.Fail("read_file", m{"path": "sparse.bin"}, tools.CategoryValidation)
	require.Contains(t, r.Error, "over the 32 MiB limit")
}

func TestReadMarksFileRead(t *testing.T) {
	f := newFixture(t)
	for _, tool := range []string{"read_file", "read_file_lines", "head_file", "tail_file"} {
		t.Run(tool, func(t *testing.T) {
			p := f.Write(tool+".txt", "one\ntwo\n")
			_, ok, _ := f.Env.Reads.LastRead(t.Context(), p)
			require.False(t, ok)
			args := m{"path": tool + ".txt"}
			if tool == "read_file_lines" {
				args["start_line"], args["end_line"] = 1, 1
			}
			f.OK(tool, args)
			s, ok, _ := f.Env.Reads.LastRead(t.Context(), p)
			require.True(t, ok)
			require.True(t, s.SameContent(tools.StampOf([]byte("one\ntwo\n"), s.ModTime)))
		})
	}
}
