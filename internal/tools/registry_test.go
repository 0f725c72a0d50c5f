package tools_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/tools"
)

func TestLookupAliasesAndCase(t *testing.T) {
	f := newFixture(t)
	cases := []struct{ in, want string }{
		{"read_file", "read_file"},
		{"Write_File", "write_file"},
		{"  READ-FILE ", "read_file"},
		{"functions.grep", "grep"},
		{"read", "read_file"},
		{"view", "read_file"},
		{"replace_string", "edit_file"},
		{"list_files", "list_directory"},
		{"search_codebase", "grep"},
		{"glob", "search_files"},
		{"GLOB", "search_files"},
	}
	for _, c := range cases {
		d, ok := f.Reg.Lookup(c.in)
		require.True(t, ok, c.in)
		require.Equal(t, c.want, d.Name, c.in)
	}
	for _, bad := range []string{"", "bash\x00rm", "nope", "bash", "write_file\n"} {
		_, ok := f.Reg.Lookup(bad)
		require.False(t, ok, "%q must not resolve (bash: run_command is not registered here)", bad)
	}
}

func TestShellAliasesReachRunCommand(t *testing.T) {
	r := tools.NewRegistry()
	type cmdArgs struct {
		Command string `json:"command"`
	}
	require.NoError(t, r.Register(tools.Define(tools.Spec{Name: "run_command", Kind: kind.Exec, Standard: true, Description: "x"},
		func(ctx context.Context, env *tools.Env, a cmdArgs) tools.Result {
			return tools.Success(a.Command, nil)
		})))
	for _, n := range []string{"bash", "shell", "run_shell_command", "Run_Command"} {
		d, ok := r.Lookup(n)
		require.True(t, ok, n)
		require.Equal(t, "run_command", d.Name)
	}
	res := r.Call(context.Background(), nil, "bash", json.RawMessage(`{"command":"ls"}`))
	require.True(t, res.OK)
	require.Equal(t, "ls", res.Output)
}

func TestPrepareNormalisation(t *testing.T) {
	f := newFixture(t)
	cases := []struct {
		name, tool, args string
		want             map[string]any
		paths            []tools.PathArg
	}{
		{"file_path alias", "read_file", `{"file_path":"a.txt"}`,
			m{"path": "a.txt", "offset": 1.0, "limit": 2000.0}, []tools.PathArg{{"path", "a.txt"}}},
		{"camelCase and string ints", "read_file", `{"filePath":"a.txt","offset":"5","limit":"10"}`,
			m{"path": "a.txt", "offset": 5.0, "limit": 10.0}, nil},
		{"float int", "read_file", `{"path":"a.txt","offset":5.0}`, m{"path": "a.txt", "offset": 5.0, "limit": 2000.0}, nil},
		{"null is absent", "read_file", `{"path":"a.txt","offset":null}`, m{"path": "a.txt", "offset": 1.0, "limit": 2000.0}, nil},
		{"filename", "write_file", `{"filename":"b.txt","contents":"x"}`, m{"path": "b.txt", "content": "x"}, nil},
		{"file + content", "write_file", `{"file":"b.txt","content":""}`, m{"path": "b.txt", "content": ""}, nil},
		{"old/new aliases", "edit_file", `{"path":"a","old_str":"x","new_str":"y","replaceAll":"true"}`,
			m{"path": "a", "old_string": "x", "new_string": "y", "replace_all": true}, nil},
		{"old/new short", "edit_file", `{"path":"a","old":"x","new":"y"}`,
			m{"path": "a", "old_string": "x", "new_string": "y"}, nil},
		{"bool strings", "grep", `{"query":"x","case_insensitive":"yes","-C":"2"}`,
			m{"pattern": "x", "path": ".", "ignore_case": true, "context_lines": 2.0, "max_results": 100.0}, nil},
		{"glob alias in grep is include", "grep", `{"pattern":"x","glob":"*.go"}`,
			m{"pattern": "x", "path": ".", "include": "*.go", "max_results": 100.0}, nil},
		{"glob alias in search_files is pattern", "search_files", `{"glob":"*.go","directory":"src"}`,
			m{"pattern": "*.go", "path": "src"}, []tools.PathArg{{"path", "src"}}},
		{"empty optional path uses default", "list_directory", `{"path":""}`, m{"path": ".", "depth": 2.0},
			[]tools.PathArg{{"path", "."}}},
		{"src/dst", "move_file", `{"src":"a","dst":"b"}`, m{"source": "a", "destination": "b"},
			[]tools.PathArg{{"source", "a"}, {"destination", "b"}}},
		{"double-encoded", "read_file", `"{\"path\":\"a.txt\"}"`, m{"path": "a.txt", "offset": 1.0, "limit": 2000.0}, nil},
		{"empty args for all-optional", "list_directory", ``, m{"path": ".", "depth": 2.0}, nil},
		{"patch_lines content alias", "patch_lines", `{"path":"a","start":"1","end":2,"content":"x"}`,
			m{"path": "a", "start_line": 1.0, "end_line": 2.0, "new_content": "x"}, nil},
		{"insert_line line_number", "insert_line", `{"path":"a","line_number":"3","text":"x"}`,
			m{"path": "a", "line": 3.0, "content": "x"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := f.Reg.Prepare(c.tool, json.RawMessage(c.args))
			require.NoError(t, err)
			var got map[string]any
			require.NoError(t, json.Unmarshal(p.Args, &got))
			require.Equal(t, c.want, got)
			if c.paths != nil {
				require.Equal(t, c.paths, p.Paths)
			}
		})
	}
}

func TestPrepareValidationErrors(t *testing.T) {
	f := newFixture(t)
	cases := []struct{ name, tool, args, wantMsg string }{
		{"malformed JSON", "write_file", `{"path": "a.txt"`, "malformed JSON"},
		{"not an object", "write_file", `[1,2]`, "must be a JSON object"},
		{"path is a number", "write_file", `{"path": 123, "content": "x"}`, `"path" must be a string, got the number 123`},
		{"path is a boolean", "write_file", `{"path": true, "content": "x"}`, `"path" must be a string, got`},
		{"duplicate keys", "write_file", `{"path":"a.txt","path":"../../etc/passwd","content":"x"}`, "given twice"},
		{"alias and canonical", "write_file", `{"path":"a.txt","file_path":"b.txt","content":"x"}`, "both set"},
		{"unknown parameter", "read_file", `{"path":"a","colour":"red"}`, `unknown parameter(s) "colour"; accepted: path (string, required), offset (integer), limit (integer)`},
		{"missing required", "write_file", `{"path":"a.txt"}`, `missing required parameter "content"`},
		{"empty required path", "write_file", `{"path":"","content":"x"}`, `"path" is empty`},
		{"NUL in path", "write_file", `{"path":"sub/\u0000/../../x","content":"x"}`, "NUL"},
		{"bad integer", "read_file", `{"path":"a","offset":"five"}`, `"offset" must be an integer`},
		{"fractional integer", "read_file", `{"path":"a","offset":1.5}`, `"offset" must be an integer`},
		{"bad boolean", "edit_file", `{"path":"a","old_string":"x","new_string":"y","replace_all":"maybe"}`, "must be a boolean"},
		{"lone surrogate", "write_file", `{"path":"a.txt","content":"\ud800"}`, "surrogate"},
		{"reversed surrogates", "write_file", `{"path":"a.txt","content":"\udc00\ud800"}`, "surrogate"},
		{"invalid utf8", "write_file", "{\"path\":\"a.txt\",\"content\":\"\xff\"}", "UTF-8"},
		{"trailing data", "write_file", `{"path":"a.txt","content":"x"} {}`, "after the object"},
		{"unknown tool", "frobnicate", `{}`, `unknown tool "frobnicate"`},
		{"NUL tool name", "bash\x00rm", `{}`, "unknown tool"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := f.Reg.Prepare(c.tool, json.RawMessage(c.args))
			require.Error(t, err)
			res := tools.ErrorResult(err)
			require.Equal(t, tools.CategoryValidation, res.Category)
			require.Contains(t, res.Error, c.wantMsg)
			require.NotContains(t, res.Error, "\x00")
		})
	}
	// nothing was written by any of these
	require.False(t, f.Exists(f.Root+"/a.txt"))
	require.Empty(t, f.Cps.Entries())
}

func TestValidSurrogatePairAccepted(t *testing.T) {
	f := newFixture(t)
	f.OK("write_file", `{"path":"e.txt","content":"\ud83d\ude00 \\ud800 literal"}`)
	require.Equal(t, "😀 \\ud800 literal", f.Read("e.txt"))
}

func TestProfiles(t *testing.T) {
	f := newFixture(t)
	names := func(p tools.Profile) []string {
		defs, err := f.Reg.Tools(p)
		require.NoError(t, err)
		var out []string
		for _, d := range defs {
			out = append(out, d.Name)
		}
		return out
	}
	require.Equal(t, []string{"read_file", "write_file", "edit_file", "list_directory", "search_files", "grep"},
		names(tools.Profile{}))
	require.Equal(t, names(tools.Profile{}), names(tools.Profile{Name: tools.ProfileStandard}))
	require.Len(t, names(tools.Profile{Name: tools.ProfileFull}), len(fileTools()))
	for _, n := range names(tools.Profile{Name: tools.ProfileReadonly}) {
		d, _ := f.Reg.Lookup(n)
		require.Equal(t, kind.Read, d.Kind, n)
	}
	require.Contains(t, names(tools.Profile{Name: tools.ProfileReadonly}), "grep_file")
	got := names(tools.Profile{Enabled: []string{"patch_lines", "VIEW"}, Disabled: []string{"glob", "write_file"}})
	require.Equal(t, []string{"read_file", "edit_file", "patch_lines", "list_directory", "grep"}, got)
	require.True(t, f.Reg.Allowed(tools.Profile{}, "Read"))
	require.False(t, f.Reg.Allowed(tools.Profile{}, "patch_lines"))
	require.False(t, f.Reg.Allowed(tools.Profile{Name: tools.ProfileReadonly}, "write_file"))

	_, err := f.Reg.Tools(tools.Profile{Name: "bogus"})
	require.ErrorContains(t, err, `unknown tool profile "bogus"`)
	_, err = f.Reg.Schemas(tools.Profile{Disabled: []string{"nope"}})
	require.ErrorContains(t, err, `unknown tool "nope"`)
	require.False(t, f.Reg.Allowed(tools.Profile{Name: "bogus"}, "read_file"))
}

func TestSchemasAreValidAndSmall(t *testing.T) {
	f := newFixture(t)
	require.NoError(t, f.Reg.Check())
	schemas, err := f.Reg.Schemas(tools.Profile{Name: tools.ProfileFull})
	require.NoError(t, err)
	for _, s := range schemas {
		var obj map[string]any
		require.NoError(t, json.Unmarshal(s.Parameters, &obj), s.Name)
		require.Equal(t, "object", obj["type"], s.Name)
		require.Equal(t, false, obj["additionalProperties"], s.Name)
		require.NotEmpty(t, s.Description, s.Name)
		require.Less(t, len(s.Description), 160, "keep descriptions short: %s", s.Name)
		d, _ := f.Reg.Lookup(s.Name)
		props := obj["properties"].(map[string]any)
		for _, p := range d.PathParams() {
			require.Contains(t, props, p)
		}
	}
	std, err := f.Reg.Schemas(tools.Profile{})
	require.NoError(t, err)
	b, err := json.Marshal(std)
	require.NoError(t, err)
	t.Logf("standard profile (file tools only): %d tools, %d bytes of schema JSON", len(std), len(b))
	require.Less(t, len(b), 3500, "standard-profile file tool schemas grew; keep descriptions short")
}

func TestRegisterErrors(t *testing.T) {
	type ok struct {
		A string `json:"a"`
	}
	type bad struct {
		M map[string]int `json:"m"`
	}
	type badDefault struct {
		A int `json:"a,omitempty" default:"{"`
	}
	run := func(ctx context.Context, env *tools.Env, a ok) tools.Result { return tools.Success("", nil) }
	r := tools.NewRegistry()
	require.NoError(t, r.Register(tools.Define(tools.Spec{Name: "t1", Kind: kind.Read, Description: "d"}, run)))
	require.ErrorContains(t, r.Register(tools.Define(tools.Spec{Name: "t1", Kind: kind.Read}, run)), "registered twice")
	require.ErrorContains(t, r.Register(tools.Define(tools.Spec{Name: "Bad-Name", Kind: kind.Read}, run)), "snake_case")
	require.ErrorContains(t, r.Register(tools.Define(tools.Spec{Name: "t2", Kind: "weird"}, run)), "unknown kind")
	for _, bad := range []struct {
		def  tools.Def
		want string
	}{
		{tools.Define(tools.Spec{Name: "t3", Kind: kind.Read}, func(ctx context.Context, env *tools.Env, a bad) tools.Result { return tools.Result{} }),
			"unsupported parameter type"},
		{tools.Define(tools.Spec{Name: "t4", Kind: kind.Read}, func(ctx context.Context, env *tools.Env, a badDefault) tools.Result { return tools.Result{} }),
			"default tag"},
		{tools.Define(tools.Spec{Name: "t5", Kind: kind.Read}, func(ctx context.Context, env *tools.Env, a string) tools.Result { return tools.Result{} }),
			"must be a struct"},
	} {
		r2 := tools.NewRegistry()
		require.NoError(t, r2.Register(bad.def), "schemas are built lazily")
		require.ErrorContains(t, r2.Check(), bad.want)
		_, err := r2.Schemas(tools.Profile{Name: tools.ProfileFull})
		require.ErrorContains(t, err, bad.want)
		_, err = r2.Prepare(bad.def.Name, nil)
		require.ErrorContains(t, err, bad.want)
	}
	require.ErrorContains(t, r.Register(tools.Def{Spec: tools.Spec{Name: "t6", Kind: kind.Read}}), "tools.Define")
	require.ErrorContains(t, r.Register(tools.Define(tools.Spec{Name: "t7", Kind: kind.Read, Aliases: []string{"t1x"}}, run),
		tools.Define(tools.Spec{Name: "t8", Kind: kind.Read, Aliases: []string{"read"}}, run)), `alias "read" already names "read_file"`)
	require.Equal(t, []string{"t1"}, r.Names(), "a failed Register adds nothing")
	require.NoError(t, r.Register(tools.Define(tools.Spec{Name: "t7", Kind: kind.Read, Aliases: []string{"t1x"}}, run)))
	require.Equal(t, []string{"t1", "t7"}, r.Names())
	d, found := r.Lookup("T1X")
	require.True(t, found)
	require.Equal(t, "t7", d.Name)
}

func TestPanicBecomesResult(t *testing.T) {
	type noArgs struct{}
	r := tools.NewRegistry()
	require.NoError(t, r.Register(tools.Define(tools.Spec{Name: "boom", Kind: kind.Other, Description: "d"},
		func(ctx context.Context, env *tools.Env, a noArgs) tools.Result { panic("kaboom") })))
	res := r.Call(context.Background(), nil, "boom", nil)
	require.False(t, res.OK)
	require.Equal(t, tools.CategoryInternal, res.Category, "a panic is aidex's failure, not the model's")
	require.Contains(t, res.Error, "kaboom")
}

func TestCancelledContext(t *testing.T) {
	f := newFixture(t)
	f.Write("a.txt", "x\n")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := f.Reg.Call(ctx, f.Env, "read_file", json.RawMessage(`{"path":"a.txt"}`))
	require.False(t, res.OK)
	require.Equal(t, tools.CategoryExecution, res.Category)
	require.True(t, strings.Contains(res.Error, "cancel"))
}

func TestResultJSONShape(t *testing.T) {
	code := 3
	b, err := json.Marshal(tools.Result{OK: false, Error: "e", Category: tools.CategoryNotFound,
		Meta: &tools.Meta{Path: "p", ExitCode: &code}})
	require.NoError(t, err)
	require.JSONEq(t, `{"ok":false,"output":"","error":"e","category":"not_found","metadata":{"path":"p","exit_code":3}}`, string(b))
}
