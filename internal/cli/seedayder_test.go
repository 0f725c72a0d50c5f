package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// ayder-cli's .ayder/tasks files are the task list until the first change,
// and `aidex ralph import .ayder/tasks` (a folder) or one task file
// imports them.
func TestRalphCLIReadsAyderTasks(t *testing.T) {
	e := newRalphEnv(t)
	dir := filepath.Join(e.ws, ".ayder", "tasks")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "TASK-001-add-auth.md"),
		[]byte("# Add auth\n\n- **ID:** TASK-001\n- **Status:** pending\n- **Created:** 2025-01-02 03:04:05\n\n## Description\n\nLogin.\n"), 0o644))

	code, out, errOut := e.run("", "ralph", "list")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "read from "+dir)
	require.Regexp(t, `TASK-001\s+P2\s+pending\s+task\s+Add auth`, out)
	code, out, _ = e.run("", "ralph", "show", ".ayder/tasks/TASK-001-add-auth.md")
	require.Equal(t, 0, code)
	require.Contains(t, out, "TASK-001: Add auth")

	code, out, errOut = e.run("", "ralph", "import", dir)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "added TASK-001 [P2] pending: Add auth")
	require.Len(t, e.tasks(), 1)
	code, out, _ = e.run("", "ralph", "list")
	require.Equal(t, 0, code)
	require.NotContains(t, out, "read from", "ralph_tasks.json is the list now")

	one := filepath.Join(t.TempDir(), "TASK-002-docs.md")
	require.NoError(t, os.WriteFile(one, []byte("# Docs\n\n- **Status:** done\n"), 0o644))
	code, out, errOut = e.run("", "ralph", "import", one)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "added TASK-002 [P2]: Docs")
}
