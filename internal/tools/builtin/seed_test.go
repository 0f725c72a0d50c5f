package builtin

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/imagegen"
	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/tools"
)

// aidexSeedTools are the 34 tool names of the Python AIdex (its
// TOOL_DEFINITIONS and generate_image).
var aidexSeedTools = []string{
	"read_file", "write_file", "edit_file", "patch_lines", "append_file", "delete_file", "move_file", "copy_file",
	"create_directory", "list_directory", "search_files", "grep_file", "run_command", "run_python", "git_status",
	"git_diff", "git_log", "git_add", "git_commit", "git_init", "git_branch", "git_checkout", "analyze_project",
	"get_file_info", "read_file_lines", "head_file", "tail_file", "count_lines", "disk_usage", "env_info",
	"find_replace_in_files", "which", "list_models", "generate_image",
}

// seedArgs are valid arguments for each seed tool that takes any.
var seedArgs = map[string]string{
	"read_file": `{"path":"a"}`, "write_file": `{"path":"a","content":"x"}`, "edit_file": `{"path":"a","old_string":"x","new_string":"y"}`,
	"patch_lines": `{"path":"a","start_line":1,"end_line":1,"new_content":"x"}`, "append_file": `{"path":"a","content":"x"}`,
	"delete_file": `{"path":"a"}`, "move_file": `{"source":"a","destination":"b"}`, "copy_file": `{"source":"a","destination":"b"}`,
	"create_directory": `{"path":"d"}`, "search_files": `{"pattern":"*.go"}`, "grep_file": `{"path":"a","pattern":"x"}`,
	"run_command": `{"command":"ls"}`, "run_python": `{"code":"print(1)"}`, "git_add": `{"paths":["a"]}`,
	"git_commit": `{"message":"m"}`, "git_branch": `{"name":"b"}`, "git_checkout": `{"ref":"main"}`,
	"get_file_info": `{"path":"a"}`, "read_file_lines": `{"path":"a","start_line":3,"end_line":7}`, "head_file": `{"path":"a"}`,
	"tail_file": `{"path":"a"}`, "count_lines": `{"path":"a"}`, "disk_usage": `{"path":"a"}`,
	"find_replace_in_files": `{"pattern":"a","replacement":"b"}`, "which": `{"name":"go"}`, "generate_image": `{"prompt":"a cat","output_path":"cat.png"}`,
}

func seedRegistry(t *testing.T) *tools.Registry {
	t.Helper()
	g, err := imagegen.New(imagegen.Config{})
	require.NoError(t, err)
	defs, closeTools := Defs(Options{Image: g})
	t.Cleanup(closeTools)
	reg := tools.NewRegistry()
	require.NoError(t, reg.Register(defs...))
	return reg
}

func offeredBy(reg *tools.Registry, p tools.Profile) func(string) bool {
	return func(n string) bool { return reg.Allowed(p, n) }
}

func args(name string) json.RawMessage {
	if a, ok := seedArgs[name]; ok {
		return json.RawMessage(a)
	}
	return json.RawMessage(`{}`)
}

// TestSeedToolNamesInEveryProfile: issue 23 item 13. Every AIdex tool name
// works in the standard profile; in the read-only profile every read-only
// one does and no write or command slips in.
func TestSeedToolNamesInEveryProfile(t *testing.T) {
	reg := seedRegistry(t)
	standard := offeredBy(reg, tools.Profile{Name: tools.ProfileStandard})
	for _, name := range aidexSeedTools {
		p, err := reg.PrepareOffered(standard, name, args(name))
		require.NoError(t, err, name)
		require.True(t, p.Offered(standard), "%s must work in the standard profile", name)
	}
	readonly := offeredBy(reg, tools.Profile{Name: tools.ProfileReadonly})
	for _, name := range aidexSeedTools {
		p, err := reg.PrepareOffered(readonly, name, args(name))
		require.NoError(t, err, name)
		require.Equal(t, p.Def.Kind == kind.Read, p.Offered(readonly), "%s (%s) in the read-only profile", name, p.Def.Kind)
	}
	// Hiding the cover (the web UI without shell tools) hides what it covers.
	noShell := func(n string) bool { return standard(n) && n != "run_command" }
	p, err := reg.PrepareOffered(noShell, "git_commit", json.RawMessage(`{"message":"m"}`))
	require.NoError(t, err)
	require.False(t, p.Offered(noShell))
}

// TestSeedRewrites: seed names served by an offered tool become calls of
// that tool, so the policy judges it and rules name it.
func TestSeedRewrites(t *testing.T) {
	reg := seedRegistry(t)
	standard := offeredBy(reg, tools.Profile{Name: tools.ProfileStandard})
	cases := []struct{ name, args, target, want string }{
		{"head_file", `{"path":"a.go"}`, "read_file", `{"path":"a.go","offset":1,"limit":10}`},
		{"head_file", `{"path":"a.go","lines":"3"}`, "read_file", `{"path":"a.go","offset":1,"limit":3}`},
		{"read_file_lines", `{"path":"a.go","start_line":3,"end_line":7}`, "read_file", `{"path":"a.go","offset":3,"limit":5}`},
		{"grep_file", `{"path":"a.go","pattern":"func"}`, "grep", ""},
		{"get_project_structure", `{"max_depth":3}`, "list_directory", `{"path":".","depth":3}`},
		{"git_status", `{}`, "run_command", `{"command":"git status","timeout":120,"cwd":"."}`},
		{"git_diff", `{"staged":true,"path":"a b.go"}`, "run_command", `{"command":"git diff --staged -- 'a b.go'","timeout":120,"cwd":"."}`},
		{"git_log", `{"path":"x"}`, "run_command", `{"command":"git log --oneline -n 20 -- 'x'","timeout":120,"cwd":"."}`},
		{"git_add", `{"paths":["a","it's"]}`, "run_command", `{"command":"git add -- 'a' 'it'\\''s'","timeout":120,"cwd":"."}`},
		{"git_commit", `{"message":"fix: it's done; rm -rf /"}`, "run_command", `{"command":"git commit -m 'fix: it'\\''s done; rm -rf /'","timeout":120,"cwd":"."}`},
		{"git_branch", `{}`, "run_command", `{"command":"git branch","timeout":120,"cwd":"."}`},
		{"git_checkout", `{"ref":"feat","create":true}`, "run_command", `{"command":"git checkout -b 'feat'","timeout":120,"cwd":"."}`},
		{"run_python", `{"code":"print('hi')","timeout":30}`, "run_command", `{"command":"python3 -c 'print('\\''hi'\\'')'","timeout":30,"cwd":"."}`},
	}
	for _, c := range cases {
		p, err := reg.PrepareOffered(standard, c.name, json.RawMessage(c.args))
		require.NoError(t, err, c.name)
		require.Equal(t, c.target, p.Def.Name, c.name)
		require.True(t, p.Offered(standard))
		if c.want != "" {
			require.JSONEq(t, c.want, string(p.Args), c.name)
		}
		require.Equal(t, c.target, reg.Canonical(standard, c.name), "the text-call parser types %s by %s", c.name, c.target)
	}
	p, err := reg.PrepareOffered(standard, "git_init", json.RawMessage(`{}`))
	require.NoError(t, err)
	require.Equal(t, "git_init", p.Def.Name, "git_init runs as aidex's own git tool, never as a sandboxed command")
	require.Equal(t, "write_file", p.Cover)
	p, err = reg.PrepareOffered(standard, "append_file", json.RawMessage(`{"path":"a","content":"x"}`))
	require.NoError(t, err)
	require.Equal(t, "append_file", p.Def.Name, "a covered seed tool runs as itself")
	require.Equal(t, "edit_file", p.Cover)
	require.Equal(t, "", reg.Canonical(standard, "append_file"), "its schema is not offered")
	_, err = reg.PrepareOffered(standard, "read_file_lines", json.RawMessage(`{"path":"a","start_line":5,"end_line":2}`))
	require.ErrorContains(t, err, "end_line at least start_line")
	_, err = reg.PrepareOffered(standard, "head_file", json.RawMessage(`{}`))
	require.ErrorContains(t, err, "path", "the seed tool's own validation speaks first")
	// In the full profile nothing is rewritten.
	full := offeredBy(reg, tools.Profile{Name: tools.ProfileFull})
	p, err = reg.PrepareOffered(full, "head_file", json.RawMessage(`{"path":"a"}`))
	require.NoError(t, err)
	require.Equal(t, "head_file", p.Def.Name)
	require.Empty(t, p.Seed)
}

// TestSeedAliasTable: every route names registered tools, and the ayder
// names of issue 23 item 14 all resolve.
func TestSeedAliasTable(t *testing.T) {
	reg := seedRegistry(t)
	for _, a := range tools.SeedAliases() {
		for _, n := range []string{a.Name, a.Target, a.Cover} {
			if n != "" {
				_, ok := reg.Lookup(n)
				require.True(t, ok, "%+v names unknown tool %q", a, n)
			}
		}
	}
	for _, n := range []string{"get_project_structure", "insert_line", "delete_line", "get_file_info"} {
		_, ok := reg.Lookup(n)
		require.True(t, ok, n)
	}
}
