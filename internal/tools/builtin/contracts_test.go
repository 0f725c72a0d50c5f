package builtin

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/imagegen"
	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/permission"
	"github.com/zelvior/aidex/internal/tools"
)

// TestToolContracts pins, for every built-in tool, the facts the
// permission policy and the profiles rely on: kind, standard profile,
// parameters and path parameters.
func TestToolContracts(t *testing.T) {
	want := map[string]struct {
		kind     kind.Kind
		standard bool
		params   []string
		paths    []string
	}{
		"read_file":                 {kind.Read, true, []string{"path", "offset", "limit", "pages", "sheet", "range"}, []string{"path"}},
		"read_file_lines":           {kind.Read, false, []string{"path", "start_line", "end_line"}, []string{"path"}},
		"head_file":                 {kind.Read, false, []string{"path", "lines"}, []string{"path"}},
		"tail_file":                 {kind.Read, false, []string{"path", "lines"}, []string{"path"}},
		"write_file":                {kind.Write, true, []string{"path", "content"}, []string{"path"}},
		"append_file":               {kind.Write, false, []string{"path", "content"}, []string{"path"}},
		"create_directory":          {kind.Write, false, []string{"path"}, []string{"path"}},
		"delete_file":               {kind.Write, false, []string{"path"}, []string{"path"}},
		"move_file":                 {kind.Write, false, []string{"source", "destination"}, []string{"source", "destination"}},
		"copy_file":                 {kind.Write, false, []string{"source", "destination"}, []string{"source", "destination"}},
		"edit_file":                 {kind.Write, true, []string{"path", "old_string", "new_string", "replace_all"}, []string{"path"}},
		"edit_lines":                {kind.Write, false, []string{"path", "start", "end", "content", "after"}, []string{"path"}},
		"apply_patch":               {kind.Write, false, []string{"input"}, nil},
		"patch_lines":               {kind.Write, false, []string{"path", "start_line", "end_line", "new_content"}, []string{"path"}},
		"insert_line":               {kind.Write, false, []string{"path", "line", "content"}, []string{"path"}},
		"delete_line":               {kind.Write, false, []string{"path", "line", "end_line"}, []string{"path"}},
		"find_replace_in_files":     {kind.Write, false, []string{"pattern", "replacement", "include", "regex", "dry_run", "path"}, []string{"path"}},
		"list_directory":            {kind.Read, true, []string{"path", "depth"}, []string{"path"}},
		"search_files":              {kind.Read, true, []string{"pattern", "path"}, []string{"path"}},
		"grep":                      {kind.Read, true, []string{"pattern", "path", "include", "ignore_case", "context_lines", "max_results"}, []string{"path"}},
		"grep_file":                 {kind.Read, false, []string{"path", "pattern"}, []string{"path"}},
		"run_command":               {kind.Exec, true, []string{"command", "timeout", "cwd"}, []string{"cwd"}},
		"run_python":                {kind.Exec, false, []string{"code", "timeout"}, nil},
		"run_background_process":    {kind.Exec, true, []string{"command", "cwd"}, []string{"cwd"}},
		"get_background_output":     {kind.Other, true, []string{"id", "lines"}, nil},
		"kill_background_process":   {kind.Other, true, []string{"id"}, nil},
		"list_background_processes": {kind.Other, true, nil, nil},
		"read_output":               {kind.Read, false, []string{"id", "offset", "limit"}, nil},
		"git_status":                {kind.Read, false, nil, nil},
		"git_diff":                  {kind.Read, false, []string{"path", "staged"}, []string{"path"}},
		"git_log":                   {kind.Read, false, []string{"max_count", "path"}, []string{"path"}},
		"git_add":                   {kind.Write, false, []string{"paths"}, []string{"paths"}},
		"git_commit":                {kind.Write, false, []string{"message"}, nil},
		"git_init":                  {kind.Write, false, nil, nil},
		"git_branch":                {kind.Write, false, []string{"name"}, nil},
		"git_checkout":              {kind.Write, false, []string{"ref", "create"}, nil},
		"get_file_info":             {kind.Read, false, []string{"path"}, []string{"path"}},
		"count_lines":               {kind.Read, false, []string{"path"}, []string{"path"}},
		"disk_usage":                {kind.Read, false, []string{"path"}, []string{"path"}},
		"env_info":                  {kind.Read, false, nil, nil},
		"which":                     {kind.Read, false, []string{"name"}, nil},
		"analyze_project":           {kind.Read, false, nil, nil},
		"memory":                    {kind.Write, true, []string{"command", "path", "file_text", "old_str", "new_str", "insert_line", "insert_text", "new_path"}, nil},
		"save_memory":               {kind.Write, true, []string{"content", "category", "tags", "scope"}, nil},
		"load_memory":               {kind.Read, true, []string{"query", "category", "limit"}, nil},
		"create_note":               {kind.Write, true, []string{"title", "content", "tags"}, nil},
		"web_fetch":                 {kind.Network, true, []string{"url", "format", "max_bytes"}, nil},
		"list_models":               {kind.Read, false, []string{"provider", "free_only", "query"}, nil},
		"generate_image":            {kind.Write, false, []string{"prompt", "output_path", "width", "height", "seed", "overwrite"}, []string{"output_path"}},
	}
	g, err := imagegen.New(imagegen.Config{})
	require.NoError(t, err)
	defs, closeTools := Defs(Options{Image: g})
	defer closeTools()
	reg := tools.NewRegistry()
	require.NoError(t, reg.Register(defs...), "the tools register cleanly (names, aliases)")
	require.NoError(t, reg.Check(), "every schema builds")
	require.Len(t, defs, len(want))
	for _, d := range defs {
		w, ok := want[d.Name]
		require.True(t, ok, d.Name)
		require.Equal(t, w.kind, d.Kind, d.Name)
		require.Equal(t, w.standard, d.Standard, d.Name)
		require.Equal(t, w.params, d.Params(), d.Name)
		require.Equal(t, w.paths, d.PathParams(), d.Name)
		require.NotEmpty(t, d.Description, d.Name)
	}
	p, err := reg.Prepare("run_command", []byte(`{"command":"ls"}`))
	require.NoError(t, err)
	require.Equal(t, []tools.PathArg{{Param: "cwd", Value: "."}}, p.Paths, "the policy always sees the working directory")
}

func TestDefsWithoutImageAndClose(t *testing.T) {
	defs, closeTools := Defs(Options{})
	var names []string
	for _, d := range defs {
		names = append(names, d.Name)
	}
	require.NotContains(t, names, "generate_image", "no generator, no generate_image")
	require.Equal(t, "read_file", names[0], "the file family comes first")
	require.Equal(t, "list_models", names[len(names)-1])
	closeTools()
	closeTools() // a second close does nothing

	reg := tools.NewRegistry()
	require.NoError(t, reg.Register(defs...))
	ws, err := permission.NewWorkspace(t.TempDir(), permission.WorkspaceOptions{})
	require.NoError(t, err)
	r := reg.Call(t.Context(), tools.NewEnv(ws), "run_background_process", []byte(`{"command":"true"}`))
	require.False(t, r.OK)
	require.Contains(t, r.Error, "shutting down", "the closed process table refuses new processes")
}
