package file

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/tools"
)

func TestParsePatchLenient(t *testing.T) {
	const body = "*** Update File: a.go\n@@ func A() {\n-\treturn 1\n+\treturn 2\n }\n"
	for name, text := range map[string]string{
		"plain":          "*** Begin Patch\n" + body + "*** End Patch\n",
		"padded markers": "  *** Begin Patch  \n" + body + " *** End Patch ",
		"heredoc":        "<<'EOF'\n*** Begin Patch\n" + body + "*** End Patch\nEOF\n",
		"crlf":           "*** Begin Patch\r\n*** Update File: a.go\r\n@@ func A() {\r\n-\treturn 1\r\n+\treturn 2\r\n }\r\n*** End Patch",
	} {
		ops, err := parsePatch(text)
		require.NoError(t, err, name)
		require.Len(t, ops, 1, name)
		require.Equal(t, patchChunk{context: "func A() {", old: []string{"\treturn 1", "}"}, new: []string{"\treturn 2", "}"}, line: 3},
			ops[0].chunks[0], name)
	}
	ops, err := parsePatch("*** Begin Patch\n*** Add File: n.txt\n+one\n+two\n*** Delete File: old.txt\n" +
		"*** Update File: b.txt\n*** Move to: c.txt\n x\n-y\n+z\n\n@@\n-q\n*** End of File\n*** End Patch")
	require.NoError(t, err)
	require.Equal(t, []patchOp{
		{kind: 'A', path: "n.txt", text: "one\ntwo\n", line: 2},
		{kind: 'D', path: "old.txt", line: 5},
		{kind: 'U', path: "b.txt", moveTo: "c.txt", line: 6, chunks: []patchChunk{
			{old: []string{"x", "y", ""}, new: []string{"x", "z", ""}, line: 8},
			{old: []string{"q"}, eof: true, line: 12}}},
	}, ops)

	for text, want := range map[string]string{
		"*** Update File: a\n-x\n*** End Patch":                           "first line of the patch must be",
		"*** Begin Patch\n*** Update File: a\n-x\n":                       "last line of the patch must be",
		"*** Begin Patch\n*** End Patch":                                  "changes no file",
		"*** Begin Patch\n*** Edit File: a\n*** End Patch":                `line 2: "*** Edit File: a" is not a file header`,
		"*** Begin Patch\n*** Update File: a\n*** End Patch":              "the update of a has no changes",
		"*** Begin Patch\n*** Update File: a\nx\n*** End Patch":           "every line of a chunk starts with",
		"*** Begin Patch\n*** Update File: a\n@@ f\n*** End Patch":        "the chunk has no lines",
		"*** Begin Patch\n*** Update File: a\n-x\n@@ f\n?\n*** End Patch": `line 5: "?"`,
	} {
		_, err := parsePatch(text)
		require.ErrorContains(t, err, want, text)
	}
}

func TestPatchedText(t *testing.T) {
	const src = "package a\n\nfunc A() int {\n\treturn 1\n}\n\nfunc B() int {\n\treturn 1\n}\n"
	cases := []struct {
		name, want, err string
		chunks          []patchChunk
		loose           bool
	}{
		{name: "context line picks the second match", chunks: []patchChunk{{context: "func B() int {", old: []string{"\treturn 1"}, new: []string{"\treturn 2"}}},
			want: "package a\n\nfunc A() int {\n\treturn 1\n}\n\nfunc B() int {\n\treturn 2\n}\n"},
		{name: "chunks in order", chunks: []patchChunk{{old: []string{"\treturn 1"}, new: []string{"\treturn 3"}}, {old: []string{"\treturn 1"}, new: []string{"\treturn 4"}}},
			want: "package a\n\nfunc A() int {\n\treturn 3\n}\n\nfunc B() int {\n\treturn 4\n}\n"},
		{name: "end of file", chunks: []patchChunk{{old: []string{"\treturn 1", "}"}, new: []string{"\treturn 5", "}"}, eof: true}},
			want: "package a\n\nfunc A() int {\n\treturn 1\n}\n\nfunc B() int {\n\treturn 5\n}\n"},
		{name: "added lines after the context", chunks: []patchChunk{{context: "package a", new: []string{"", "import \"os\""}}},
			want: "package a\n\nimport \"os\"\n\nfunc A() int {\n\treturn 1\n}\n\nfunc B() int {\n\treturn 1\n}\n"},
		{name: "added lines at the end", chunks: []patchChunk{{new: []string{"// end"}}}, want: src + "// end\n"},
		{name: "trailing empty line the file lacks", chunks: []patchChunk{{old: []string{"func B() int {", "\treturn 1", "}", ""}, new: []string{"func B() {", "}", ""}}},
			want: "package a\n\nfunc A() int {\n\treturn 1\n}\n\nfunc B() {\n}\n"},
		{name: "white space ignored, said", chunks: []patchChunk{{old: []string{"    return 1  "}, new: []string{"\treturn 6"}}}, loose: true,
			want: "package a\n\nfunc A() int {\n\treturn 6\n}\n\nfunc B() int {\n\treturn 1\n}\n"},
		{name: "missing lines refused with the nearest", chunks: []patchChunk{{old: []string{"\treturn 7"}, new: []string{"x"}, line: 4}},
			err: "chunk at patch line 4: these lines are not in the file (after line 0):\n\treturn 7\nThe most similar lines are:"},
		{name: "missing context refused", chunks: []patchChunk{{context: "func C()", old: []string{"\treturn 1"}}}, err: `the context line "func C()" is not in the file`},
		{name: "old lines before the previous chunk are refused", chunks: []patchChunk{{context: "func B() int {", new: []string{"x"}}, {old: []string{"func A() int {"}}}, err: "after line 7"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, loose, err := patchedText(src, c.chunks)
			if c.err != "" {
				require.ErrorContains(t, err, c.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, c.want, got)
			require.Equal(t, c.loose, loose)
		})
	}
	got, loose, err := patchedText("func f() {\n\tif x {\n\t\treturn\n\t}\n}\n", []patchChunk{{context: "\tif x {", old: []string{"\t\treturn"}, new: []string{"\t\treturn 1"}}})
	require.NoError(t, err)
	require.False(t, loose, "an indented context line matches exactly")
	require.Equal(t, "func f() {\n\tif x {\n\t\treturn 1\n\t}\n}\n", got)
	got, _, err = patchedText("a\r\nb", []patchChunk{{old: []string{"b"}, new: []string{"B", "C"}}})
	require.NoError(t, err)
	require.Equal(t, "a\r\nB\r\nC", got, "CRLF kept, the missing final newline stays missing")
	got, loose, err = patchedText("say \u201chi\u201d \u2014 ok\n", []patchChunk{{old: []string{`say "hi" - ok`}, new: []string{"bye"}}})
	require.NoError(t, err)
	require.True(t, loose)
	require.Equal(t, "bye\n", got)
}

// apply_patch adds, updates, moves and deletes files in one call; a patch
// one of whose sections does not apply changes nothing.
func TestApplyPatch(t *testing.T) {
	f := newFixture(t)
	f.Write("a.txt", "one\ntwo\nthree\n")
	f.Write("b.txt", "bee\n")
	f.Write("gone.txt", "bye\n")
	for _, p := range []string{"a.txt", "b.txt", "gone.txt"} {
		f.OK("read_file", m{"path": p})
	}
	bad := "*** Begin Patch\n*** Add File: new.txt\n+x\n*** Update File: a.txt\n@@\n-TWO\n+2\n*** End Patch"
	r := f.Fail("apply_patch", m{"input": bad}, tools.CategoryValidation)
	require.Contains(t, r.Error, "the patch was not applied (nothing was changed): a.txt: chunk at patch line 5: these lines are not in the file")
	require.False(t, f.Exists(filepath.Join(f.Root, "new.txt")))

	patch := "*** Begin Patch\n*** Add File: dir/new.txt\n+hello\n*** Update File: a.txt\n@@\n one\n-two\n+2\n" +
		"*** Update File: b.txt\n*** Move to: c.txt\n-bee\n+sea\n*** Delete File: gone.txt\n*** End Patch"
	r = f.OK("apply_patch", m{"patch": patch}) // "patch" is an alias of input
	require.Equal(t, "Applied the patch:\nA dir/new.txt\nM a.txt\nR b.txt -> c.txt\nD gone.txt", r.Output)
	require.Equal(t, []string{"dir/new.txt", "a.txt", "c.txt", "b.txt", "gone.txt"}, r.Meta.Files)
	require.Contains(t, r.Meta.Diff, "-two\n+2\n")
	require.Equal(t, "hello\n", f.Read("dir/new.txt"))
	require.Equal(t, "one\n2\nthree\n", f.Read("a.txt"))
	require.Equal(t, "sea\n", f.Read("c.txt"))
	require.False(t, f.Exists(filepath.Join(f.Root, "b.txt")))
	require.False(t, f.Exists(filepath.Join(f.Root, "gone.txt")))

	f.Write("d.txt", "d\n")
	r = f.Fail("apply_patch", m{"input": "*** Begin Patch\n*** Update File: d.txt\n-d\n+e\n*** End Patch"}, tools.CategoryValidation)
	require.Contains(t, r.Error, "has not been read in this session")
	r = f.Fail("apply_patch", m{"input": "*** Begin Patch\n*** Add File: ../out.txt\n+x\n*** End Patch"}, tools.CategorySecurity)
	require.Contains(t, r.Error, "the patch was not applied")
}

// The policy judges the paths inside the patch.
func TestPatchPaths(t *testing.T) {
	args, _ := json.Marshal(map[string]string{"input": "*** Begin Patch\n*** Add File: ../../outside.txt\n+x\n*** Update File: a\n*** Move to: b\n-x\n*** End Patch"})
	require.Equal(t, []string{"../../outside.txt", "a", "b"}, PatchPaths(args))
	require.Nil(t, PatchPaths(json.RawMessage(`{"input":"not a patch"}`)))
	reg := tools.NewRegistry()
	require.NoError(t, reg.Register(applyPatchDef()))
	p, err := reg.Prepare("apply_patch", json.RawMessage(`{"patch":"*** Begin Patch\n*** Delete File: x/y.txt\n*** End Patch"}`))
	require.NoError(t, err)
	require.Equal(t, []string{"x/y.txt"}, p.PolicyPaths())
}
