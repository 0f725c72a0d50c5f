package ralph

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// ayderWorkspace writes ayder-cli task files the way ayder writes them
// (slug names, the older TASK-NNN.md, a done task, a note that is no task).
func ayderWorkspace(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	dir := filepath.Join(ws, AyderDir)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	files := map[string]string{
		"TASK-001-add-auth.md": "# Add auth\n\n- **ID:** TASK-001\n- **Status:** pending\n- **Created:** 2025-01-02 03:04:05\n\n## Description\n\nLogin with a password.\n\n## Acceptance Criteria\n\n- [ ] login works\n- tests pass\n",
		"TASK-002.md":          "# Write docs\n\n- **ID:** TASK-002\n- **Status:** done\n- **Created:** 2025-01-02 03:04:05\n\n## Description\n\nNo description provided.\n",
		"TASK-010-fix-bug.md":  "# Fix the bug\r\n\r\n- **Status:** in progress\r\n",
		"README.md":            "# not a task\n",
	}
	for name, text := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
	return ws
}

func TestAyderTasksAreTheListUntilTheFirstChange(t *testing.T) {
	ws := ayderWorkspace(t)
	st := NewStore(ws, fixedNow)
	l, err := st.Load()
	require.NoError(t, err)
	require.Equal(t, filepath.Join(ws, AyderDir), l.From)
	require.Len(t, l.Tasks, 3)
	first := l.Tasks[0]
	require.Equal(t, "TASK-001", first.ID)
	require.Equal(t, "Add auth", first.Title)
	require.Equal(t, "Login with a password.", first.Description)
	require.Equal(t, []string{"login works", "tests pass"}, first.AcceptanceCriteria)
	require.False(t, first.CreatedAt.IsZero())
	require.Equal(t, StatusDone, l.Tasks[1].Status)
	require.Empty(t, l.Tasks[1].Description, "ayder's placeholder is no description")
	require.Equal(t, "TASK-010", l.Tasks[2].ID, "the id comes from the file name when the file has none")
	require.Equal(t, StatusInProgress, l.Tasks[2].Status)
	_, err = os.Stat(filepath.Join(ws, FileName))
	require.ErrorIs(t, err, os.ErrNotExist, "reading writes nothing")

	// The first change saves them into ralph_tasks.json.
	_, err = st.Add(context.Background(), Task{Title: "new"})
	require.NoError(t, err)
	l, err = st.Load()
	require.NoError(t, err)
	require.Empty(t, l.From)
	require.Len(t, l.Tasks, 4)
	require.Equal(t, "T-001", l.Tasks[3].ID)

	// Later ayder files are no longer read; `ralph import DIR` adds the new ones.
	require.NoError(t, os.WriteFile(filepath.Join(ws, AyderDir, "TASK-011-late.md"), []byte("# Late\n\n- **Status:** pending\n"), 0o644))
	svc := NewService(Options{Workspace: ws, Now: fixedNow})
	added, present, err := svc.ImportAyder(context.Background(), filepath.Join(ws, AyderDir))
	require.NoError(t, err)
	require.Equal(t, 3, present)
	require.Len(t, added, 1)
	require.Equal(t, "TASK-011", added[0].ID)
	_, _, err = svc.ImportAyder(context.Background(), t.TempDir())
	require.ErrorContains(t, err, "holds no ayder task files")
}

func TestAyderTaskToolParameters(t *testing.T) {
	ws := ayderWorkspace(t)
	tools := TaskTools(NewStore(ws, fixedNow))
	run := func(tool int, args string) (string, string) {
		r := tools[tool].Run(context.Background(), nil, []byte(args))
		return r.Output, r.Error
	}
	out, errText := run(0, `{"format":"table","status":"pending"}`)
	require.Empty(t, errText)
	require.Contains(t, out, "ID")
	require.Contains(t, out, "TASK-001")
	require.NotContains(t, out, "TASK-002", "status filters")
	require.Contains(t, out, filepath.FromSlash(AyderDir))
	out, errText = run(0, `{"format":"list","status":"all"}`)
	require.Empty(t, errText)
	require.Contains(t, out, "TASK-002 [P2] done: Write docs")
	_, errText = run(0, `{"format":"yaml"}`)
	require.Contains(t, errText, "list or table")

	for _, ref := range []string{
		`{"identifier":".ayder/tasks/TASK-001-add-auth.md"}`,
		`{"identifier":"TASK-001-add-auth.md"}`,
		`{"identifier":"TASK-001"}`,
		`{"identifier":"1"}`,
		`{"identifier":"add-auth"}`,
		`{"id":"task-001"}`,
	} {
		out, errText = run(1, ref)
		require.Empty(t, errText, ref)
		require.Contains(t, out, "TASK-001: Add auth", ref)
	}
	_, errText = run(1, `{}`)
	require.Contains(t, errText, "name the task")
}

func TestParseImportTakesAnAyderTaskFile(t *testing.T) {
	tasks, err := ParseImport("TASK-007-ship-it.md", []byte("# Ship it\n\n- **Status:** pending\n\n## Description\n\nRelease 1.0.\n"))
	require.NoError(t, err)
	require.Len(t, tasks, 1)
	require.Equal(t, "TASK-007", tasks[0].ID)
	require.Equal(t, "Ship it", tasks[0].Title)
	require.Equal(t, "Release 1.0.", tasks[0].Description)
}

// FuzzParseAyderTask checks that any task file either fails with an error
// naming it or gives a titled task that a task list stores and reloads
// unchanged.
func FuzzParseAyderTask(f *testing.F) {
	for _, s := range []string{
		"# T\n\n- **ID:** TASK-001\n- **Status:** pending\n",
		"# T\n- **Status:** weird\n## Acceptance Criteria\n- [x] a\n## Notes\nn\n",
		"- **ID:** x\n", "", "# \n", "\xef\xbb\xbf# A\r\n- **Created:** 2025-01-02 03:04:05\r\n",
	} {
		f.Add("TASK-001-x.md", []byte(s))
	}
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		task, err := ParseAyderTask(name, data)
		if err != nil {
			return
		}
		if task.Title == "" {
			t.Fatal("a task without a title")
		}
		if task.ID == "" {
			task.ID = "TASK-001"
		}
		l := &List{Tasks: []Task{task}}
		out, err := l.encode()
		if err != nil {
			t.Fatalf("encode: %v", err)
		}
		if _, err := parseList("f", out); err != nil {
			t.Fatalf("reload of %s: %v", out, err)
		}
	})
}
