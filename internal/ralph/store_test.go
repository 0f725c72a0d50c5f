package ralph

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func fixedNow() time.Time { return time.Date(2026, 9, 1, 10, 0, 0, 0, time.UTC) }

func TestOldMinimalFileLoadsAndKeepsUnknownFields(t *testing.T) {
	ws := t.TempDir()
	old := `{
  "schema_version": 1,
  "tasks": [
    {"id": "1", "title": "Fix the parser", "status": "done", "notes": "took two tries", "owner": {"name": "ann"}},
    {"id": "2", "title": "Write docs", "status": "pending", "notes": ""},
    {"title": "No id here", "status": "pending"}
  ],
  "iteration": 3,
  "paused": false
}`
	require.NoError(t, os.WriteFile(filepath.Join(ws, FileName), []byte(old), 0o644))
	st := NewStore(ws, fixedNow)
	tasks, err := st.Tasks()
	require.NoError(t, err)
	require.Len(t, tasks, 3)
	require.Equal(t, "1", tasks[0].ID)
	require.Equal(t, StatusDone, tasks[0].Status)
	require.Equal(t, P2, tasks[1].Priority, "missing priority defaults to P2")
	require.Equal(t, TypeTask, tasks[1].Type)
	require.Equal(t, 0, tasks[1].Attempts)
	require.Equal(t, "T-001", tasks[2].ID, "a missing id is generated")
	require.JSONEq(t, `"took two tries"`, string(tasks[0].Extra["notes"]))

	// A rewrite keeps the unknown fields, of tasks and of the file.
	_, err = st.Edit(context.Background(), "2", func(tk *Task) error {
		tk.Priority = P0
		return nil
	})
	require.NoError(t, err)
	var back struct {
		SchemaVersion int              `json:"schema_version"`
		Iteration     int              `json:"iteration"`
		Paused        *bool            `json:"paused"`
		Tasks         []map[string]any `json:"tasks"`
	}
	data, err := os.ReadFile(filepath.Join(ws, FileName))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &back))
	require.Equal(t, 1, back.SchemaVersion)
	require.Equal(t, 3, back.Iteration)
	require.NotNil(t, back.Paused)
	require.Equal(t, "took two tries", back.Tasks[0]["notes"])
	require.Equal(t, map[string]any{"name": "ann"}, back.Tasks[0]["owner"])
	require.Equal(t, "P0", back.Tasks[1]["priority"])
	require.Equal(t, "T-001", back.Tasks[2]["id"], "the generated id is now stored")
	require.Equal(t, "2026-09-01T10:00:00Z", back.Tasks[1]["updated_at"])

	// And a second load of the rewritten file is the same list.
	again, err := st.Tasks()
	require.NoError(t, err)
	require.Equal(t, tasks[0], again[0])
}

func TestLoadAcceptsBareListAndLenientValues(t *testing.T) {
	ws := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(ws, FileName), []byte(`[
		{"id":"US-007","title":"story","priority":1,"acceptance_criteria":"one criterion"},
		{"title":"t","priority":"high","status":"completed","depends_on":"US-007"}]`), 0o644))
	tasks, err := NewStore(ws, nil).Tasks()
	require.NoError(t, err)
	require.Equal(t, TypeStory, tasks[0].Type, "US- ids are stories")
	require.Equal(t, P1, tasks[0].Priority)
	require.Equal(t, []string{"one criterion"}, tasks[0].AcceptanceCriteria)
	require.Equal(t, StatusDone, tasks[1].Status)
	require.Equal(t, []string{"US-007"}, tasks[1].DependsOn)
}

func TestLoadErrorsNameTheProblem(t *testing.T) {
	for name, tc := range map[string]struct{ content, want string }{
		"syntax":     {`{"tasks": [`, "invalid JSON"},
		"status":     {`{"tasks":[{"id":"T-001","title":"x","status":"started"}]}`, `unknown status "started"`},
		"priority":   {`{"tasks":[{"id":"T-001","title":"x","priority":"P9"}]}`, `unknown priority "P9"`},
		"no title":   {`{"tasks":[{"id":"T-001"}]}`, "has no title"},
		"duplicate":  {`{"tasks":[{"id":"T-001","title":"a"},{"id":"t-001","title":"b"}]}`, "both have id"},
		"self dep":   {`{"tasks":[{"id":"T-001","title":"a","depends_on":["T-001"]}]}`, "depends on itself"},
		"wrong type": {`{"tasks":[{"id":"T-001","title":"a","attempts":"two"}]}`, "attempts"},
	} {
		t.Run(name, func(t *testing.T) {
			ws := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(ws, FileName), []byte(tc.content), 0o644))
			_, err := NewStore(ws, nil).Tasks()
			require.ErrorContains(t, err, tc.want)
			require.ErrorContains(t, err, FileName)
		})
	}
}

func TestAddGeneratesIDsAndChecks(t *testing.T) {
	st := NewStore(t.TempDir(), fixedNow)
	ctx := context.Background()
	added, err := st.Add(ctx, Task{Title: "a"}, Task{Title: "s", Type: TypeStory}, Task{Title: "b", DependsOn: []string{"T-001", "US-001"}})
	require.NoError(t, err)
	require.Equal(t, []string{"T-001", "US-001", "T-002"}, []string{added[0].ID, added[1].ID, added[2].ID})
	require.Equal(t, fixedNow(), added[0].CreatedAt)
	require.Equal(t, StatusPending, added[0].Status)

	_, err = st.Add(ctx, Task{ID: "T-001", Title: "again"})
	require.ErrorContains(t, err, "already in use")
	_, err = st.Add(ctx, Task{Title: "x", DependsOn: []string{"T-404"}})
	require.ErrorContains(t, err, "not in the list")
	_, err = st.Add(ctx, Task{Title: "  "})
	require.ErrorContains(t, err, "no title")
	tasks, err := st.Tasks()
	require.NoError(t, err)
	require.Len(t, tasks, 3, "failed adds write nothing")

	removed, err := st.Remove(ctx, "T-001")
	require.NoError(t, err)
	require.Equal(t, "a", removed.Title)
	b, err := st.Get("T-002")
	require.NoError(t, err)
	require.Equal(t, []string{"US-001"}, b.DependsOn, "a removed task leaves depends_on")
	next, err := st.Add(ctx, Task{Title: "c"})
	require.NoError(t, err)
	require.Equal(t, "T-003", next[0].ID)
}

func TestFindByIDTitleSlug(t *testing.T) {
	l := &List{Tasks: []Task{{ID: "T-001", Title: "Add login page"}, {ID: "T-002", Title: "Add logout"}, {ID: "US-001", Title: "Über Straße"}}}
	for ref, want := range map[string]string{"t-001": "T-001", "add logout": "T-002", "add-login-page": "T-001",
		"Add Login": "T-001", "über-straße": "US-001"} {
		got, err := l.Find(ref)
		require.NoError(t, err, ref)
		require.Equal(t, want, got.ID, ref)
	}
	_, err := l.Find("add")
	require.ErrorContains(t, err, "several tasks (T-001, T-002)")
	_, err = l.Find("nothing")
	require.ErrorContains(t, err, "no task")
}

func TestConcurrentWritersLoseNothing(t *testing.T) {
	ws := t.TempDir()
	const writers, each = 4, 10
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// A Store per writer stands for separate processes: each has
			// its own lock file descriptor.
			st := NewStore(ws, nil)
			for i := range each {
				_, err := st.Add(context.Background(), Task{Title: fmt.Sprintf("w%d-%d", w, i)})
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	tasks, err := NewStore(ws, nil).Tasks()
	require.NoError(t, err)
	require.Len(t, tasks, writers*each)
	seen := map[string]bool{}
	for _, tk := range tasks {
		require.False(t, seen[tk.ID], "duplicate id %s", tk.ID)
		seen[tk.ID] = true
	}
}

func TestNextSelection(t *testing.T) {
	tasks := []Task{
		{ID: "A", Priority: P2, Status: StatusPending},
		{ID: "B", Priority: P1, Status: StatusDone},
		{ID: "C", Priority: P1, Status: StatusPending},
		{ID: "D", Priority: P1, Status: StatusPending},
		{ID: "E", Priority: P0, Status: StatusPending, DependsOn: []string{"A"}},
		{ID: "F", Priority: P0, Status: StatusInProgress},
	}
	i, _ := Next(tasks, nil)
	require.Equal(t, "C", tasks[i].ID, "P1 before P2, ties by list order; E waits, F is not pending")
	i, _ = Next(tasks, []string{"a", "e"})
	require.Equal(t, "A", tasks[i].ID)
	tasks[0].Status = StatusSkipped
	tasks[2].Status, tasks[3].Status = StatusDone, StatusDone
	i, waiting := Next(tasks, nil)
	require.Equal(t, -1, i)
	require.Equal(t, []Waiting{{ID: "E", Needs: []string{"A (skipped)"}}}, waiting)
	require.Equal(t, "E waits for A (skipped)", waiting[0].String())
}

func TestParseImport(t *testing.T) {
	md := "# Sprint\n\n- [ ] [P0] Fix login\n  Users cannot log in with SSO.\n  - [ ] SSO login works\n  - test added\n- [x] Set up CI\n\nNotes at the end.\n  - not a criterion\n* [ ] Last one\n"
	tasks, err := ParseImport("plan.md", []byte(md))
	require.NoError(t, err)
	require.Len(t, tasks, 3)
	require.Equal(t, "Fix login", tasks[0].Title)
	require.Equal(t, P0, tasks[0].Priority)
	require.Equal(t, "Users cannot log in with SSO.", tasks[0].Description)
	require.Equal(t, []string{"SSO login works", "test added"}, tasks[0].AcceptanceCriteria)
	require.Equal(t, StatusDone, tasks[1].Status)
	require.Empty(t, tasks[1].AcceptanceCriteria, "text after a heading or paragraph is not part of a task")
	require.Equal(t, "Last one", tasks[2].Title)
	require.Equal(t, P2, tasks[2].Priority)

	tasks, err = ParseImport("t.json", []byte(`["just a title", {"title":"full","priority":"P1","acceptance_criteria":["a","b"]}]`))
	require.NoError(t, err)
	require.Equal(t, "just a title", tasks[0].Title)
	require.Equal(t, []string{"a", "b"}, tasks[1].AcceptanceCriteria)
	tasks, err = ParseImport("t.json", []byte(`{"tasks":[{"title":"x"}]}`))
	require.NoError(t, err)
	require.Len(t, tasks, 1)

	_, err = ParseImport("empty.md", []byte("# nothing here\n- a bullet\n"))
	require.ErrorContains(t, err, "holds no tasks")
	_, err = ParseImport("bad.json", []byte(`[{"title": 3}]`))
	require.ErrorContains(t, err, "bad.json: task 1")
}

func TestServiceImportAndClear(t *testing.T) {
	svc := NewService(Options{Workspace: t.TempDir(), Now: fixedNow})
	ctx := context.Background()
	added, err := svc.Import(ctx, "x.md", []byte("- [ ] one\n- [ ] two\n"))
	require.NoError(t, err)
	require.Equal(t, "T-002", added[1].ID)
	n, err := svc.Clear(ctx)
	require.NoError(t, err)
	require.Equal(t, 2, n)
	tasks, err := svc.List()
	require.NoError(t, err)
	require.Empty(t, tasks)
	_, err = svc.Run(ctx, RunOptions{}, func(Event) {})
	require.ErrorIs(t, err, ErrNoBackend)
	require.ErrorIs(t, svc.Stop(), ErrNotRunning)
	require.ErrorIs(t, svc.Pause(), ErrNotRunning)
	require.ErrorIs(t, svc.Resume(), ErrNotRunning)
}

func TestTaskToolsAndReporter(t *testing.T) {
	ws := t.TempDir()
	st := NewStore(ws, fixedNow)
	_, err := st.Add(context.Background(), Task{Title: "Add login page", Description: "the form", AcceptanceCriteria: []string{"renders"}},
		Task{Title: "done one", Status: StatusDone})
	require.NoError(t, err)
	tools := TaskTools(st)
	res := tools[0].Run(context.Background(), nil, json.RawMessage(`{"status":"done"}`))
	require.True(t, res.OK)
	require.Equal(t, "T-002 [P2] done: done one\n", res.Output)
	res = tools[0].Run(context.Background(), nil, json.RawMessage(`{"status":"all","format":"table"}`)) // ayder-cli's call
	require.True(t, res.OK, res.Error)
	require.Contains(t, res.Output, "T-001")
	require.Contains(t, res.Output, "T-002")
	res = tools[0].Run(context.Background(), nil, json.RawMessage(`{"status":"weird"}`))
	require.False(t, res.OK)
	res = tools[1].Run(context.Background(), nil, json.RawMessage(`{"id":"add-login-page"}`))
	require.True(t, res.OK)
	require.Contains(t, res.Output, "T-001: Add login page")
	require.Contains(t, res.Output, "- renders")
	res = tools[1].Run(context.Background(), nil, json.RawMessage(`{"id":"T-9"}`))
	require.Equal(t, "not_found", res.Category)

	rep := NewReporter("T-001")
	tool := rep.Tool()
	require.False(t, tool.Run(context.Background(), nil, json.RawMessage(`{"status":"pending","summary":"x"}`)).OK)
	require.False(t, tool.Run(context.Background(), nil, json.RawMessage(`{"status":"done","summary":" "}`)).OK)
	_, ok := rep.Report()
	require.False(t, ok)
	require.True(t, tool.Run(context.Background(), nil, json.RawMessage(`{"status":"done","summary":"did it"}`)).OK)
	r, ok := rep.Report()
	require.True(t, ok)
	require.Equal(t, Report{Status: StatusDone, Summary: "did it"}, r)
}

func TestProposalValidation(t *testing.T) {
	p := &Proposal{existing: func() ([]Task, error) { return []Task{{ID: "T-001", Title: "x"}}, nil }}
	tool := p.Tool()
	bad := tool.Run(context.Background(), nil, json.RawMessage(`{"tasks":[{"id":"T-002","title":"a"},{"id":"T-002","title":"b"}]}`))
	require.Contains(t, bad.Error, "used twice")
	bad = tool.Run(context.Background(), nil, json.RawMessage(`{"tasks":[{"title":"a","depends_on":["T-404"]}]}`))
	require.Contains(t, bad.Error, "neither in the proposal")
	bad = tool.Run(context.Background(), nil, json.RawMessage(`{"tasks":[]}`))
	require.Contains(t, bad.Error, "no tasks")
	ok := tool.Run(context.Background(), nil, json.RawMessage(`{"tasks":[{"title":"a","depends_on":["T-001"],"status":"done"},{"title":"b","task_type":"story"}]}`))
	require.True(t, ok.OK, ok.Error)
	got := p.Tasks()
	require.Equal(t, "T-002", got[0].ID, "ids continue after the list's")
	require.Equal(t, StatusPending, got[0].Status, "proposed tasks are pending")
	require.Equal(t, "US-001", got[1].ID)
}
