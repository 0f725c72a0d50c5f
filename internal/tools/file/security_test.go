package file

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zelvior/aidex/internal/tools"
)

// TestConfinement runs the path-escape cases of shared/security/attacks.jsonl
// (E-003..E-016, E-023, E-030, E-011..E-013) through a real
// *permission.Workspace: every escape is refused with CategorySecurity and
// nothing outside the workspace is created or changed.
func TestConfinement(t *testing.T) {
	f := newFixture(t)
	secret := filepath.Join(f.Outside, "outside.txt")
	require.NoError(t, os.WriteFile(secret, []byte("secret\n"), 0o644))
	sibling := f.Root + "_sibling" // shares the workspace's string prefix
	require.NoError(t, os.Mkdir(sibling, 0o755))
	require.NoError(t, os.Symlink(f.Outside, filepath.Join(f.Root, "out")))
	require.NoError(t, os.Symlink(secret, filepath.Join(f.Root, "link")))
	f.Write("sub/in.txt", "inside\n")

	cases := []struct {
		name, tool string
		args       map[string]any
	}{
		{"E-003 dot-dot read", "read_file", m{"path": "./../outside/outside.txt"}},
		{"E-005 doubled slashes", "read_file", m{"path": "sub//..//..//outside/outside.txt"}},
		{"absolute outside", "read_file", m{"path": secret}},
		{"E-023 symlink to outside file", "read_file", m{"path": "link"}},
		{"E-006 write dot-dot", "write_file", m{"path": "../pwned.txt", "content": "x"}},
		{"E-007 sibling prefix", "write_file", m{"path": sibling + "/pwned.txt", "content": "x"}},
		{"write through symlinked dir", "write_file", m{"path": "out/pwned.txt", "content": "x"}},
		{"append outside", "append_file", m{"path": secret, "content": "x"}},
		{"edit outside", "edit_file", m{"path": "../outside/outside.txt", "old_string": "secret", "new_string": "x"}},
		{"patch outside", "patch_lines", m{"path": "link", "start_line": 1, "end_line": 1, "new_content": "x"}},
		{"insert outside", "insert_line", m{"path": "link", "line": 0, "content": "x"}},
		{"delete_line outside", "delete_line", m{"path": "link", "line": 1}},
		{"mkdir outside", "create_directory", m{"path": "../outside/newdir"}},
		{"delete outside", "delete_file", m{"path": "../outside/outside.txt"}},
		{"E-030 delete through link to dir", "delete_file", m{"path": "out/outside.txt"}},
		{"move source outside", "move_file", m{"source": "../outside/outside.txt", "destination": "stolen.txt"}},
		{"move destination outside", "move_file", m{"source": "sub/in.txt", "destination": "../outside/moved.txt"}},
		{"copy source outside", "copy_file", m{"source": "link", "destination": "copy.txt"}},
		{"copy destination outside", "copy_file", m{"source": "sub/in.txt", "destination": "out/copy.txt"}},
		{"E-011 grep root", "grep", m{"pattern": "PRIVATE KEY", "path": "/"}},
		{"grep through link", "grep", m{"pattern": "secret", "path": "out"}},
		{"grep_file outside", "grep_file", m{"path": "link", "pattern": "secret"}},
		{"E-013 list procfs", "list_directory", m{"path": "/proc/self/cwd/../../"}},
		{"list outside", "list_directory", m{"path": ".."}},
		{"search_files outside", "search_files", m{"pattern": "*", "path": "../outside"}},
		{"find_replace outside", "find_replace_in_files", m{"pattern": "secret", "replacement": "x", "path": "out"}},
		{"head outside", "head_file", m{"path": "link"}},
		{"tail outside", "tail_file", m{"path": "../outside/outside.txt"}},
		{"read_file_lines outside", "read_file_lines", m{"path": "link", "start_line": 1, "end_line": 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := f.Fail(c.tool, c.args, tools.CategorySecurity)
			require.Contains(t, r.Error, "refused")
			require.NotContains(t, r.Output, "secret")
		})
	}
	entries, err := os.ReadDir(f.Outside)
	require.NoError(t, err)
	require.Len(t, entries, 1, "nothing created outside the workspace")
	b, _ := os.ReadFile(secret)
	require.Equal(t, "secret\n", string(b))
	entries, _ = os.ReadDir(sibling)
	require.Empty(t, entries)
	require.FileExists(t, filepath.Join(f.Root, "sub/in.txt"))
	require.Empty(t, f.Cps.Entries(), "no checkpoint: nothing was about to change")
}

func TestPathsAreNotExpanded(t *testing.T) {
	f := newFixture(t)
	// E-009: "~" is not expanded, and a path that expects a shell is
	// refused rather than created literally (see TestShellSyntaxPaths).
	r0 := f.Fail("write_file", m{"path": "~/.bashrc", "content": "x"}, tools.CategoryValidation)
	require.Contains(t, r0.Error, "paths are not shell-expanded; use a path relative to the workspace")
	require.NoDirExists(t, filepath.Join(f.Root, "~"))
	// E-008: %-escapes are literal file names, never decoded into "..".
	r := f.Fail("edit_file", m{"path": "%2e%2e/%2e%2e/etc/hosts", "old": "localhost", "new": "evil"}, tools.CategoryNotFound)
	require.Contains(t, r.Error, "%2e%2e/%2e%2e/etc/hosts does not exist")
	// E-012: glob patterns cannot climb out.
	f.Fail("search_files", m{"pattern": "../../**/*.pem"}, tools.CategoryValidation)
}

func TestInvalidPathsRefused(t *testing.T) {
	f := newFixture(t)
	for _, p := range []string{"README.md:hidden", "CON", ".git./config", "src/\u202etxt.exe"} {
		r := f.Fail("write_file", m{"path": p, "content": "x"}, tools.CategorySecurity)
		require.Contains(t, r.Error, "path refused")
	}
	entries, _ := os.ReadDir(f.Root)
	require.Empty(t, entries)
}
