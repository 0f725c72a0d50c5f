//go:build unix

package builtin

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/tools"
	"github.com/zelvior/aidex/internal/tools/exec"
	"github.com/zelvior/aidex/internal/tools/file"
	"github.com/zelvior/aidex/internal/tools/git"
	"github.com/zelvior/aidex/internal/tools/info"
	"github.com/zelvior/aidex/internal/tools/search"
)

func TestToolContracts(t *testing.T) {
	want := map[string]struct {
		kind     kind.Kind
		standard bool
		params   []string
		paths    []string
	}{
		"run_command":               {kind.Exec, true, []string{"command", "timeout", "cwd"}, []string{"cwd"}},
		"run_python":                {kind.Exec, false, []string{"code", "timeout"}, nil},
		"run_background_process":    {kind.Exec, true, []string{"command", "cwd"}, []string{"cwd"}},
		"get_background_output":     {kind.Other, true, []string{"id", "lines"}, nil},
		"kill_background_process":   {kind.Other, true, []string{"id"}, nil},
		"list_background_processes": {kind.Other, true, nil, nil},
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
	}
	reg := tools.NewRegistry()
	defs := append(append(exec.Tools(exec.Options{}), git.Tools()...), info.Tools()...)
	require.NoError(t, reg.Register(defs...), "the tools register cleanly (names, aliases, schemas)")
	require.NoError(t, reg.Register(append(file.Tools(), search.Tools()...)...), "no name or alias clashes with the file tools")
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
