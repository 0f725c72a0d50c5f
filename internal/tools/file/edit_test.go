package file

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zelvior/aidex/internal/tools"
)

// edited writes content, reads it through the tool, runs tool with args
// and returns the result.
func (f *fixture) edited(content, tool string, args map[string]any) tools.Result {
	f.T.Helper()
	f.Write("f.txt", content)
	f.OK("read_file", m{"path": "f.txt"})
	args["path"] = "f.txt"
	return f.Call(tool, args)
}

func TestEditFile(t *testing.T) {
	cases := []struct {
		name    string
		content string
		args    map[string]any
		want    string // file content after; "" with errCat set means unchanged
		errCat  tools.Category
		errMsg  string
		outMsg  string
	}{
		{name: "unique", content: "a\nfoo\nb\n", args: m{"old_string": "foo", "new_string": "bar"}, want: "a\nbar\nb\n",
			outMsg: "replaced 1 occurrence"},
		{name: "multi-line", content: "a\nb\nc\n", args: m{"old_string": "a\nb\n", "new_string": "x\n"}, want: "x\nc\n"},
		{name: "ambiguous", content: "a a a a a\n", args: m{"old_string": "a", "new_string": "b"},
			errCat: tools.CategoryValidation, errMsg: "matches 5 times in f.txt (at lines 1, 1, 1, 1, 1): include more surrounding lines"},
		{name: "replace_all", content: "a\na\n", args: m{"old_string": "a", "new_string": "b", "replace_all": true}, want: "b\nb\n",
			outMsg: "replaced 2 occurrence(s)"},
		{name: "crlf kept", content: "one\r\ntwo\r\nthree\r\n", args: m{"old_string": "one\ntwo\n", "new_string": "1\n2\n2.5\n"},
			want: "1\r\n2\r\n2.5\r\nthree\r\n"},
		{name: "crlf single line with added line", content: "x\r\ny\r\n", args: m{"old_string": "y", "new_string": "y\nz"},
			want: "x\r\ny\r\nz\r\n"},
		{name: "no final newline kept", content: "a\nlast", args: m{"old_string": "last", "new_string": "LAST"}, want: "a\nLAST"},
		{name: "bom kept", content: "\uFEFFa\n", args: m{"old_string": "a", "new_string": "b"}, want: "\uFEFFb\n"},
		{name: "no-op", content: "a\n", args: m{"old_string": "a", "new_string": "a"}, errCat: tools.CategoryValidation, errMsg: "identical"},
		{name: "whitespace tolerant", content: "func f() {\n\treturn  1\n}\n",
			args: m{"old_string": "func f() {\n    return 1\n}", "new_string": "func f() {\n    return 2\n}"},
			want: "func f() {\n\treturn 2\n}\n", outMsg: "did not match exactly; it matched lines 1-3 only after ignoring whitespace"},
		{name: "whitespace tolerant ambiguous", content: "x  = 1\nx = 1\n", args: m{"old_string": "x = 1 ", "new_string": "y"},
			errCat: tools.CategoryValidation, errMsg: "matches 2 places"},
		{name: "nearest lines", content: "alpha\nfunc computeTotal(a int) int {\nomega\n",
			args:   m{"old_string": "func computeTotals(a int) int {", "new_string": "x"},
			errCat: tools.CategoryValidation, errMsg: "The most similar lines are:\n     1\talpha\n     2\tfunc computeTotal(a int) int {\n"},
		{name: "line number prefix hint", content: "hello\n", args: m{"old_string": "     1\thello", "new_string": "x"},
			errCat: tools.CategoryValidation, errMsg: "line-number prefixes"},
		{name: "empty old on non-empty file", content: "x\n", args: m{"old_string": "", "new_string": "y"},
			errCat: tools.CategoryValidation, errMsg: "old_string is empty"},
		{name: "empty old on empty file", content: "", args: m{"old_string": "", "new_string": "y\n"}, want: "y\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			r := f.edited(c.content, "edit_file", c.args)
			if c.errCat != "" {
				require.False(t, r.OK, r.Output)
				require.Equal(t, c.errCat, r.Category, r.Error)
				require.Contains(t, r.Error, c.errMsg)
				require.Equal(t, c.content, f.Read("f.txt"), "unchanged")
				require.Empty(t, f.Cps.Entries())
				return
			}
			require.True(t, r.OK, r.Error)
			require.Equal(t, c.want, f.Read("f.txt"))
			require.Contains(t, r.Output, c.outMsg)
			require.NotEmpty(t, r.Meta.Diff)
			cps := f.Cps.Entries()
			require.Len(t, cps, 1)
			require.Equal(t, c.content, string(cps[0].Old))
		})
	}
}

func TestEditFileCreatesWithEmptyOld(t *testing.T) {
	f := newFixture(t)
	f.OK("edit_file", m{"path": "new/x.go", "old_string": "", "new_string": "package x\n"})
	require.Equal(t, "package x\n", f.Read("new/x.go"))
	f.Fail("edit_file", m{"path": "missing.go", "old_string": "a", "new_string": "b"}, tools.CategoryNotFound)
}

func TestEditFileStaleAndUnread(t *testing.T) {
	f := newFixture(t)
	p := f.Write("a.txt", "v1\n")
	f.Fail("edit_file", m{"path": "a.txt", "old_string": "v1", "new_string": "v2"}, tools.CategoryValidation)
	f.OK("read_file", m{"path": "a.txt"})
	require.NoError(t, os.WriteFile(p, []byte("v1 edited by user\n"), 0o644))
	r := f.Fail("edit_file", m{"path": "a.txt", "old_string": "v1", "new_string": "v2"}, tools.CategoryValidation)
	require.Contains(t, r.Error, "read it again")
	require.Equal(t, "v1 edited by user\n", f.Read("a.txt"))
	// two edits in a row need only one read
	f.OK("read_file", m{"path": "a.txt"})
	f.OK("edit_file", m{"path": "a.txt", "old_string": "v1", "new_string": "v2"})
	f.OK("edit_file", m{"path": "a.txt", "old_string": "v2", "new_string": "v3"})
	require.Equal(t, "v3 edited by user\n", f.Read("a.txt"))
}

func TestLineTools(t *testing.T) {
	cases := []struct {
		name, content, tool string
		args                map[string]any
		want                string
		errMsg              string
	}{
		{"patch middle", "1\n2\n3\n", "patch_lines", m{"start_line": 2, "end_line": 2, "new_content": "two\nTWO\n"}, "1\ntwo\nTWO\n3\n", ""},
		{"patch last no final newline", "1\n2", "patch_lines", m{"start_line": 2, "end_line": 2, "new_content": "b\nc"}, "1\nb\nc", ""},
		{"patch crlf", "1\r\n2\r\n", "patch_lines", m{"start_line": 1, "end_line": 1, "new_content": "a\nb"}, "a\r\nb\r\n2\r\n", ""},
		{"patch empty deletes", "1\n2\n3\n", "patch_lines", m{"start_line": 1, "end_line": 2, "new_content": ""}, "3\n", ""},
		{"patch bad range", "1\n", "patch_lines", m{"start_line": 1, "end_line": 3, "new_content": "x"}, "", "line range 1..3 is invalid: the file has 1 lines"},
		{"patch no-op", "1\n2\n", "patch_lines", m{"start_line": 1, "end_line": 1, "new_content": "1"}, "", "changes nothing"},
		{"insert top", "1\n", "insert_line", m{"line": 0, "content": "0"}, "0\n1\n", ""},
		{"insert after", "1\n3\n", "insert_line", m{"line": "1", "content": "2\n"}, "1\n2\n3\n", ""},
		{"insert after last without newline", "1\n2", "insert_line", m{"line": 2, "content": "3"}, "1\n2\n3", ""},
		{"insert crlf", "a\r\nc\r\n", "insert_line", m{"line": 1, "content": "b"}, "a\r\nb\r\nc\r\n", ""},
		{"insert past end", "1\n", "insert_line", m{"line": 5, "content": "x"}, "", "outside 0..1"},
		{"insert empty", "1\n", "insert_line", m{"line": 1, "content": ""}, "", "nothing to insert"},
		{"delete one", "1\n2\n3\n", "delete_line", m{"line": 2}, "1\n3\n", ""},
		{"delete range", "1\n2\n3\n4\n", "delete_line", m{"line": 2, "end_line": 3}, "1\n4\n", ""},
		{"delete last keeps missing newline", "1\n2\n3", "delete_line", m{"line": 3}, "1\n2", ""},
		{"delete all", "1\n2\n", "delete_line", m{"line": 1, "end_line": 2}, "", ""},
		{"delete bad", "1\n", "delete_line", m{"line": 0}, "", "invalid"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			r := f.edited(c.content, c.tool, c.args)
			if c.errMsg != "" {
				require.False(t, r.OK)
				require.Equal(t, tools.CategoryValidation, r.Category)
				require.Contains(t, r.Error, c.errMsg)
				require.Equal(t, c.content, f.Read("f.txt"))
				return
			}
			require.True(t, r.OK, r.Error)
			require.Equal(t, c.want, f.Read("f.txt"))
			require.NotEmpty(t, r.Meta.Diff)
			require.Len(t, f.Cps.Entries(), 1)
		})
	}
}

func TestLineToolsNeedRead(t *testing.T) {
	f := newFixture(t)
	f.Write("a.txt", "1\n")
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"patch_lines", m{"path": "a.txt", "start_line": 1, "end_line": 1, "new_content": "x"}},
		{"insert_line", m{"path": "a.txt", "line": 1, "content": "x"}},
		{"delete_line", m{"path": "a.txt", "line": 1}},
	} {
		r := f.Fail(c.tool, c.args, tools.CategoryValidation)
		require.Contains(t, r.Error, "has not been read")
	}
	require.Equal(t, "1\n", f.Read("a.txt"))
}

func TestFindReplaceInFiles(t *testing.T) {
	f := newFixture(t)
	f.Write("a.go", "oldName()\noldName()\n")
	f.Write("b/c.go", "x := oldName\n")
	f.Write("b/d.txt", "oldName\n")
	f.Write("ignored/e.go", "oldName\n")
	f.Write(".gitignore", "ignored/\n")
	f.Write("bin.go", "oldName\x00")

	r := f.OK("find_replace_in_files", m{"pattern": "oldName", "replacement": "newName", "include": "*.go", "dry_run": true})
	require.Equal(t, "Dry run: would replace 3 occurrence(s) in 2 file(s):\n  a.go (2)\n  b/c.go (1)", r.Output)
	require.Contains(t, r.Meta.Diff, "+newName()")
	require.Equal(t, "oldName()\noldName()\n", f.Read("a.go"), "dry run changes nothing")
	require.Empty(t, f.Cps.Entries())

	// a file the model read and that changed since is skipped
	f.OK("read_file", m{"path": "b/c.go"})
	f.Write("b/c.go", "x := oldName // user\n")
	r = f.OK("find_replace_in_files", m{"pattern": "old(Name)", "replacement": "new$1", "regex": true, "include": "*.go"})
	require.Contains(t, r.Output, "Replaced 2 occurrence(s) in 1 file(s):\n  a.go (2)\nSkipped 1 file(s):\n  b/c.go: b/c.go changed on disk")
	require.Equal(t, "newName()\nnewName()\n", f.Read("a.go"))
	require.Equal(t, "x := oldName // user\n", f.Read("b/c.go"))
	require.Equal(t, "oldName\n", f.Read("ignored/e.go"))
	require.Equal(t, "oldName\n", f.Read("b/d.txt"))
	require.Len(t, f.Cps.Entries(), 1)
	// a.go was never read: it stays unread
	f.Fail("edit_file", m{"path": "a.go", "old_string": "newName()\nnewName()", "new_string": "x"}, tools.CategoryValidation)

	r = f.OK("find_replace_in_files", m{"pattern": "nothing-here", "replacement": "x"})
	require.Contains(t, r.Output, "nothing changed")
	f.Fail("find_replace_in_files", m{"pattern": "(", "replacement": "x", "regex": true}, tools.CategoryValidation)
	f.Fail("find_replace_in_files", m{"pattern": "", "replacement": "x"}, tools.CategoryValidation)
	f.Fail("find_replace_in_files", m{"pattern": "a", "replacement": "x", "include": "[", "path": "b"}, tools.CategoryValidation)
}

func TestFindReplaceFileCap(t *testing.T) {
	f := newFixture(t)
	for i := range maxReplaceFiles + 1 {
		f.Write(filepath.Join("many", strings.Repeat("d", 1+i%3), "f"+string(rune('a'+i%26))+strings.Repeat("x", i/26)+".txt"), "hit\n")
	}
	r := f.Fail("find_replace_in_files", m{"pattern": "hit", "replacement": "x"}, tools.CategoryValidation)
	require.Contains(t, r.Error, "more than 200")
}

// TestFindReplaceSkipsProtectedDirs: the policy sees only the directory
// "."; find_replace_in_files must not rewrite .aidex/config.toml or
// .vscode/tasks.json below it (those writes always need an approval).
func TestFindReplaceSkipsProtectedDirs(t *testing.T) {
	f := newFixture(t)
	cfg := f.Write(".aidex/config.toml", "mode = \"ask\"\n")
	tasks := f.Write(".vscode/tasks.json", "mode = \"ask\"\n")
	plain := f.Write("notes.txt", "mode = \"ask\"\n")
	f.OK("find_replace_in_files", m{"pattern": `mode = "ask"`, "replacement": `mode = "yolo"`})
	for _, p := range []string{cfg, tasks} {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		require.Equal(t, "mode = \"ask\"\n", string(b), "%s was rewritten", p)
	}
	b, err := os.ReadFile(plain)
	require.NoError(t, err)
	require.Equal(t, "mode = \"yolo\"\n", string(b))
	// An approved path inside the protected directory itself still works.
	f.OK("find_replace_in_files", m{"pattern": `mode = "ask"`, "replacement": `mode = "auto-edit"`, "path": ".aidex"})
	b, err = os.ReadFile(cfg)
	require.NoError(t, err)
	require.Equal(t, "mode = \"auto-edit\"\n", string(b))
}
