package commands

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/app/apptest"
	"github.com/zelvior/aidex/internal/config"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/memstore"
	"github.com/zelvior/aidex/internal/notestore"
	"github.com/zelvior/aidex/internal/ralph"
	"github.com/zelvior/aidex/internal/slashcmd"
)

// fixture is a controller on a scripted model in a temp HOME, XDG
// directories and workspace.
type fixture struct {
	c      *Controller
	ws     string
	script *llmtest.Script
}

// newFixture builds the controller; extraConfig is appended to the global
// config.toml.
func newFixture(t *testing.T, extraConfig string, turns ...llmtest.Turn) *fixture {
	t.Helper()
	script := llmtest.NewScript(t, turns...)
	home := apptest.NewHome(t, apptest.FakeProvider(script.URL, []string{"m1"}, extraConfig))
	ws, env := home.WS, home.Env
	ctx := context.Background()
	opts := app.Options{Workspace: ws, Flags: map[string]string{}, Getenv: func(k string) string { return env[k] }}
	svc, err := app.Start(ctx, app.StartOptions{Options: opts})
	require.NoError(t, err)
	t.Cleanup(func() { svc.Close() })
	sess, err := svc.Pick(ctx, "", false)
	require.NoError(t, err)
	c, err := New(ctx, Config{Service: svc, Session: sess})
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return &fixture{c: c, ws: ws, script: script}
}

func (f *fixture) exec(t *testing.T, line string) (string, Outcome, error) {
	t.Helper()
	var b bytes.Buffer
	o, err := Default().Exec(context.Background(), f.c, line, &b)
	return b.String(), o, err
}

func (f *fixture) mustExec(t *testing.T, line string) (string, Outcome) {
	t.Helper()
	out, o, err := f.exec(t, line)
	require.NoError(t, err, line)
	return out, o
}

func toolNames(t *testing.T, req json.RawMessage) []string {
	var body struct {
		Tools []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	require.NoError(t, json.Unmarshal(req, &body))
	var names []string
	for _, x := range body.Tools {
		names = append(names, x.Function.Name)
	}
	return names
}

func TestDefaultHasFeatureCommands(t *testing.T) {
	tab := Default()
	for _, name := range []string{"/plan", "/tasks", "/task-edit", "/implement", "/implement-all", "/memory", "/notes", "/image"} {
		_, ok := tab.Find(name)
		require.True(t, ok, name)
	}
	require.Equal(t, "/implement", tab.Nearest("/implemnt"))
	var names []string
	for _, s := range tab.Complete("/imp") {
		names = append(names, s.Name)
	}
	require.Equal(t, []string{"/implement", "/implement-all"}, names)
}

func TestTasksAddListAndEditFields(t *testing.T) {
	f := newFixture(t, "")
	out, _ := f.mustExec(t, "/tasks")
	require.Contains(t, out, "no tasks")
	out, _ = f.mustExec(t, "/tasks add Write the parser")
	require.Contains(t, out, "added T-001 [P2]: Write the parser")
	out, _ = f.mustExec(t, `/task-edit T-001 priority=P0 title="Write the JSON parser" criteria="tests pass" criteria='fuzzed' depends= desc="in parse.go"`)
	require.Contains(t, out, "updated T-001")
	task, err := f.c.Ralph().Get("T-001")
	require.NoError(t, err)
	require.Equal(t, "Write the JSON parser", task.Title)
	require.Equal(t, ralph.P0, task.Priority)
	require.Equal(t, []string{"tests pass", "fuzzed"}, task.AcceptanceCriteria)
	require.Equal(t, "in parse.go", task.Description)
	out, _ = f.mustExec(t, "/tasks")
	require.Contains(t, out, "T-001  P0  ○ pending  Write the JSON parser")
	require.Contains(t, out, "1 pending · 0 in progress · 0 done")

	_, _, err = f.exec(t, "/task-edit T-001 colour=red")
	require.ErrorContains(t, err, `unknown task field "colour"`)
	_, _, err = f.exec(t, "/task-edit T-001 priority=P9")
	require.ErrorContains(t, err, "P0 (most urgent)")
	_, _, err = f.exec(t, "/task-edit T-001 status=done title")
	require.ErrorContains(t, err, "not FIELD=VALUE")
	task, _ = f.c.Ralph().Get("T-001")
	require.Equal(t, ralph.StatusPending, task.Status, "nothing changes when a field is bad")
	_, o := f.mustExec(t, "/task-edit write-the-json-parser")
	require.Equal(t, Outcome{Action: ActEditTask, Arg: "T-001"}, o, "no fields: the front end edits it (by slug too)")
	_, _, err = f.exec(t, "/task-edit T-404")
	require.Error(t, err)
}

func TestTaskJSONRoundTrip(t *testing.T) {
	f := newFixture(t, "")
	_, err := f.c.Ralph().Add(context.Background(), ralph.Task{Title: "Old", AcceptanceCriteria: []string{"a"}})
	require.NoError(t, err)
	task, _ := f.c.Ralph().Get("T-001")
	data := TaskJSON(task)
	require.Contains(t, string(data), `"acceptance_criteria": [`)
	edited := strings.Replace(strings.Replace(string(data), `"Old"`, `"New <title>"`, 1), `"pending"`, `"skipped"`, 1)
	got, err := f.c.Tasks().ApplyJSON(context.Background(), "T-001", []byte(edited))
	require.NoError(t, err)
	require.Equal(t, "New <title>", got.Title)
	require.Equal(t, ralph.StatusSkipped, got.Status)
	_, err = f.c.Tasks().ApplyJSON(context.Background(), "T-001", []byte(`{"title":"x","extra":1}`))
	require.ErrorContains(t, err, `unknown field "extra"`)
	_, err = f.c.Tasks().ApplyJSON(context.Background(), "T-001", []byte(`{"title":"x","status":"later"}`))
	require.ErrorContains(t, err, "unknown status")
}

func TestImplementRunsInThisSessionWithTaskTools(t *testing.T) {
	f := newFixture(t, "",
		llmtest.Turn{Calls: []llmtest.Call{{Name: "complete_task", Args: `{"status":"done","summary":"wrote it"}`}}},
		llmtest.Turn{Text: "Finished."})
	_, err := f.c.Ralph().Add(context.Background(), ralph.Task{Title: "Write hello"})
	require.NoError(t, err)
	out, o := f.mustExec(t, "/implement T-001")
	require.Contains(t, out, "working on T-001 in this session")
	require.Contains(t, o.Prompt, "Write hello")
	task, _ := f.c.Ralph().Get("T-001")
	require.Equal(t, ralph.StatusInProgress, task.Status)
	require.Equal(t, f.c.Session().ID, task.SessionID, "the task runs in the chat session")

	var events []agent.Event
	var mu sync.Mutex
	done, runErr := f.c.RunWith(context.Background(), BuildPrompt(f.ws, o.Prompt).Parts, o.Tools, func(e agent.Event) {
		mu.Lock()
		events = append(events, e)
		mu.Unlock()
	})
	require.NoError(t, runErr)
	line := o.After(context.Background(), done, runErr)
	require.Equal(t, "T-001 is done: wrote it", line)
	task, _ = f.c.Ralph().Get("T-001")
	require.Equal(t, ralph.StatusDone, task.Status)
	require.Contains(t, toolNames(t, f.script.Requests()[0]), "complete_task")
	n := 0
	for _, name := range toolNames(t, f.script.Requests()[0]) {
		if name == "list_tasks" {
			n++
		}
	}
	require.Equal(t, 1, n, "the session's own list_tasks gives way to the run's")
	require.NotEmpty(t, f.c.Session().Messages, "the run is in this session")

	_, err = f.c.Run(context.Background(), []llm.Part{{Type: llm.PartText, Text: "hi"}}, func(agent.Event) {})
	require.NoError(t, err)
	reqs := f.script.Requests()
	require.NotContains(t, toolNames(t, reqs[len(reqs)-1]), "complete_task", "the task tools are offered for that run only")
	_, _, err = f.exec(t, "/implement")
	require.ErrorContains(t, err, "name a task")
}

func TestImplementInterruptedGoesBackToPending(t *testing.T) {
	f := newFixture(t, "", llmtest.Turn{Text: "working", Hang: true})
	_, err := f.c.Ralph().Add(context.Background(), ralph.Task{Title: "Slow"})
	require.NoError(t, err)
	_, o := f.mustExec(t, "/implement T-001")
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-f.script.Started; cancel() }()
	done, runErr := f.c.RunWith(ctx, BuildPrompt(f.ws, o.Prompt).Parts, o.Tools, func(agent.Event) {})
	require.Error(t, runErr)
	require.Contains(t, o.After(ctx, done, runErr), "pending again")
	task, _ := f.c.Ralph().Get("T-001")
	require.Equal(t, ralph.StatusPending, task.Status)
}

func TestPlanProposesAndSaves(t *testing.T) {
	f := newFixture(t, "",
		llmtest.Turn{Calls: []llmtest.Call{{Name: "propose_tasks", Args: `{"tasks":[` +
			`{"id":"T-001","title":"Parse input","description":"in parse.go","acceptance_criteria":["tests pass"],"priority":"P1"},` +
			`{"id":"T-002","title":"Print output","description":"in main.go","acceptance_criteria":["prints"],"priority":"P2","depends_on":["T-001"]}]}`}}},
		llmtest.Turn{Text: "Here is the plan."})
	_, o := f.mustExec(t, "/plan build a CLI")
	require.Equal(t, Outcome{Action: ActPlan, Arg: "build a CLI"}, o)
	var texts strings.Builder
	res, err := f.c.Tasks().Plan(context.Background(), o.Arg, func(e agent.Event) {
		if e.Type == agent.EventText {
			texts.WriteString(e.Text)
		}
	})
	require.NoError(t, err)
	require.Equal(t, "Here is the plan.", texts.String(), "the planning run's events reach the front end")
	require.Len(t, res.Tasks, 2)
	var b bytes.Buffer
	WriteProposal(&b, res)
	require.Contains(t, b.String(), "T-002 [P2] task: Print output\n  after: T-001\n  in main.go\n  - [ ] prints")
	tasks, _ := f.c.Ralph().List()
	require.Empty(t, tasks, "nothing is saved before the user agrees")
	saved, err := f.c.Tasks().SavePlan(context.Background(), res.Tasks)
	require.NoError(t, err)
	require.Len(t, saved, 2)
	require.NotEqual(t, f.c.Session().ID, res.SessionID, "planning uses its own session")
	require.Contains(t, string(f.script.Requests()[0]), "propose_tasks")
	_, _, err = f.exec(t, "/plan")
	require.ErrorContains(t, err, "say what you want done")
}

func TestImplementAllStartsTheLoop(t *testing.T) {
	f := newFixture(t, "",
		llmtest.Turn{Calls: []llmtest.Call{{Name: "complete_task", Args: `{"status":"done","summary":"ok"}`}}},
		llmtest.Turn{Text: "Done."})
	_, err := f.c.Ralph().Add(context.Background(), ralph.Task{Title: "Only task"})
	require.NoError(t, err)
	_, o := f.mustExec(t, "/implement-all")
	require.Equal(t, ActRalphRun, o.Action)
	require.Contains(t, f.c.Tasks().Notice(), "permission mode ask")
	var logs = map[string]*RalphLog{}
	var lines []string
	wait, err := f.c.Tasks().Start(context.Background(), func(ev ralph.Event) {
		if ev.TaskID != "" {
			if logs[ev.TaskID] == nil {
				logs[ev.TaskID] = &RalphLog{}
			}
			logs[ev.TaskID].Add(ev)
		}
		if s := RalphEventLine(ev); s != "" {
			lines = append(lines, s)
		}
	})
	require.NoError(t, err)
	_, _, err = f.exec(t, "/implement-all")
	require.ErrorIs(t, err, ralph.ErrRunning, "a second loop is refused")
	sum, err := wait()
	require.NoError(t, err)
	require.Equal(t, 1, sum.Done)
	require.Contains(t, lines[0], "▶ T-001 [P2] Only task")
	require.Contains(t, lines[len(lines)-1], "Ralph finished (completed): ran 1 · 1 done")
	log := strings.Join(logs["T-001"].Lines(), "\n")
	require.Contains(t, log, "→ complete_task done")
	require.Contains(t, log, "Done.")
	require.Contains(t, log, "✓ T-001 done (reported): ok")
}

func TestRalphLogStreamsTextAndCaps(t *testing.T) {
	var l RalphLog
	text := func(s string) ralph.Event {
		return ralph.Event{TaskID: "T-1", Agent: &agent.Event{Type: agent.EventText, Text: s}}
	}
	l.Add(text("Hel"))
	require.Equal(t, []string{"Hel"}, l.Lines())
	l.Add(text("lo\nWor"))
	require.Equal(t, []string{"Hello", "Wor"}, l.Lines())
	l.Add(ralph.Event{TaskID: "T-1", Agent: &agent.Event{Type: agent.EventToolCall, ToolCall: &agent.ToolCallInfo{Name: "read_file", Arguments: json.RawMessage(`{"path":"a.go"}`)}}})
	require.Equal(t, []string{"Hello", "Wor", "→ read_file a.go"}, l.Lines())
	for i := 0; i < 1000; i++ {
		l.Add(text("x\n"))
	}
	require.Len(t, l.Lines(), maxLogLines)
}

func TestMemoryCommands(t *testing.T) {
	f := newFixture(t, "")
	st := f.c.Memory()
	e, err := st.Save(context.Background(), memstore.ScopeProject, memstore.Entry{Content: "Use pnpm, not npm", Category: "preference"})
	require.NoError(t, err)
	out, _ := f.mustExec(t, "/memory")
	require.Contains(t, out, e.ID)
	require.Contains(t, out, "[preference] Use pnpm, not npm")
	out, _ = f.mustExec(t, "/memory pin "+e.ID)
	require.Contains(t, out, "(pinned)")
	got, _ := st.Get(context.Background(), e.ID)
	require.True(t, got.Pinned)
	f.mustExec(t, "/memory unpin "+e.ID)
	got, _ = st.Get(context.Background(), e.ID)
	require.False(t, got.Pinned)
	out, _ = f.mustExec(t, "/memory edit "+e.ID+" Use pnpm everywhere")
	require.Contains(t, out, "Use pnpm everywhere")
	out, _ = f.mustExec(t, "/memory list pnpm")
	require.Contains(t, out, "Use pnpm everywhere", "/memory list WORDS searches")
	out, _ = f.mustExec(t, "/memory add Tests run with make test")
	require.Contains(t, out, "Tests run with make test")
	f.mustExec(t, "/memory delete "+e.ID)
	_, err = st.Get(context.Background(), e.ID)
	require.ErrorIs(t, err, memstore.ErrNoEntry)
	_, _, err = f.exec(t, "/memory pin nope")
	require.ErrorIs(t, err, memstore.ErrNoEntry)
	_, _, err = f.exec(t, "/memory frob x")
	require.ErrorContains(t, err, "unknown /memory frob")
}

func TestNotesCommand(t *testing.T) {
	f := newFixture(t, "")
	out, _ := f.mustExec(t, "/notes")
	require.Contains(t, out, "no notes yet")
	_, err := notestore.Create(context.Background(), f.ws, "Design choices", "We use SQLite.", []string{"db"}, time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC))
	require.NoError(t, err)
	out, _ = f.mustExec(t, "/notes")
	require.Contains(t, out, "Design choices")
	require.Contains(t, out, "#db")
}

func imageServer(t *testing.T, body []byte) (*httptest.Server, *[]string) {
	var mu sync.Mutex
	var paths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.URL.Path)
		mu.Unlock()
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv, &paths
}

// pngHeader is enough of a PNG for content sniffing.
var pngHeader = append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), bytes.Repeat([]byte{7}, 64)...)

func TestImageSavesIntoTheWorkspace(t *testing.T) {
	srv, paths := imageServer(t, pngHeader)
	f := newFixture(t, fmt.Sprintf("image_provider = \"pollinations\"\nimage_base_url = %q", srv.URL))
	out, _ := f.mustExec(t, "/image a red fox in snow -o art/fox.png")
	require.Contains(t, out, "saved art/fox.png (image/png, 80 bytes")
	data, err := os.ReadFile(filepath.Join(f.ws, "art", "fox.png"))
	require.NoError(t, err)
	require.Equal(t, pngHeader, data, "the image bytes are saved unchanged")
	require.Equal(t, "/prompt/a red fox in snow", (*paths)[0])

	out, _ = f.mustExec(t, "/image a cat")
	require.Regexp(t, `saved image-\d{8}-\d{6}\.png`, out, "no -o: a time-stamped name with the image's extension")

	_, _, err = f.exec(t, "/image a fox -o ../outside.png")
	require.ErrorContains(t, err, "refused")
	_, err = os.Stat(filepath.Join(filepath.Dir(f.ws), "outside.png"))
	require.True(t, os.IsNotExist(err), "nothing is written outside the workspace")
	require.Len(t, *paths, 2, "a refused path costs no generation")
	_, _, err = f.exec(t, "/image a fox -o art/fox.png")
	require.ErrorContains(t, err, "exists")
	_, _, err = f.exec(t, "/image -o x.png")
	require.ErrorContains(t, err, "describe the image")
	_, _, err = f.exec(t, "/image fox -o")
	require.ErrorContains(t, err, "-o needs a file name")
}

func TestSplitArgs(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"a b  c", []string{"a", "b", "c"}},
		{`title="A B" x='c d'`, []string{"title=A B", "x=c d"}},
		{`t="say \"hi\"" u=\q`, []string{`t=say "hi"`, `u=\q`}},
		{`e="" f=`, []string{"e=", "f="}},
		{`"a b"c`, []string{"a bc"}},
	}
	for _, c := range cases {
		got, err := slashcmd.SplitArgs(c.in)
		require.NoError(t, err, c.in)
		require.Equal(t, c.want, got, c.in)
	}
	_, err := slashcmd.SplitArgs(`title="open`)
	require.ErrorContains(t, err, "unterminated")
}

func FuzzSplitArgs(f *testing.F) {
	for _, s := range []string{`a "b c" 'd'`, `x=\"`, `"\\"`, `''`, "a\tb\nc", `"unterminated`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		words, err := slashcmd.SplitArgs(s)
		if err != nil {
			if !strings.ContainsAny(s, `"'`) {
				t.Fatalf("error without quotes in %q: %v", s, err)
			}
			return
		}
		if !strings.ContainsAny(s, `"'\`) {
			if want := strings.Fields(s); !equal(words, want) {
				t.Fatalf("%q: got %q, want %q", s, words, want)
			}
		}
		for _, w := range words {
			if w == "" && !strings.ContainsAny(s, `"'`) {
				t.Fatalf("empty word from %q", s)
			}
		}
	})
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// The onboarding's StoreKey and /config make an existing world-readable
// config file private (0600) when they write a key; KeyWarning turns a
// file that cannot be made private into a warning, not a failure.
func TestStoreKeyMakesFilePrivate(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("modes are ACLs on Windows")
	}
	f := newFixture(t, "")
	file := f.c.Runtime().Config.Paths.ConfigFile
	mode := func() os.FileMode {
		fi, err := os.Stat(file)
		require.NoError(t, err)
		return fi.Mode().Perm()
	}
	require.NoError(t, os.Chmod(file, 0o644))
	require.NoError(t, StoreKey(f.c.Runtime(), "groq", "gsk-onboarding-secret"))
	require.Equal(t, os.FileMode(0o600), mode())
	require.NoError(t, os.Chmod(file, 0o644))
	f.mustExec(t, "/config providers.groq.api_key gsk-slash-secret")
	require.Equal(t, os.FileMode(0o600), mode())

	w, err := KeyWarning(fmt.Errorf("wrapped: %w", config.ErrNotPrivate))
	require.NoError(t, err)
	require.Contains(t, w, "private")
	_, err = KeyWarning(errors.New("disk full"))
	require.EqualError(t, err, "disk full")
}

// TestToolsCommandListsTaskTools: /tools lists the engine's own tools too
// (list_tasks and show_task are offered in every session).
func TestToolsCommandListsTaskTools(t *testing.T) {
	f := newFixture(t, "")
	out, _ := f.mustExec(t, "/tools")
	for _, want := range []string{"read_file", "memory", "list_tasks", "show_task", "todo_write"} {
		require.Contains(t, out, "  "+want+" ", want)
	}
}

// /image with no image_provider asks which provider first (the AIdex
// wizard), then that provider's own settings: Enter takes the key-free
// Pollinations, a number or name another preset (its base URL and model
// stored with it) followed by its API key; an unknown name is refused.
func TestImageAsksForProvider(t *testing.T) {
	srv, paths := imageServer(t, pngHeader)
	f := newFixture(t, fmt.Sprintf("image_base_url = %q", srv.URL))
	_, o := f.mustExec(t, "/image a dot -o dot")
	require.Equal(t, ActAskImageKey, o.Action, "no provider set: the terminal asks")
	require.Equal(t, "a dot -o dot", o.Arg)
	rt := f.c.Runtime()
	todo := MissingImageSettings(rt)
	require.Len(t, todo, 1)
	require.Equal(t, "image_provider", todo[0].Key)
	require.Contains(t, todo[0].Hint, "1 pollinations, 2 openai, 3 cloudflare, 4 together")
	require.Contains(t, ImageSettingsNote(todo), "no image provider is set")

	more, _, err := StoreImageSetting(rt, "image_provider", "")
	require.NoError(t, err)
	require.Empty(t, more, "Pollinations needs no key")
	var b bytes.Buffer
	require.NoError(t, RetryImage(context.Background(), f.c, "a dot -o dot", &b))
	require.Contains(t, b.String(), "saved the pollinations image settings in")
	require.Contains(t, b.String(), "saved dot.png")
	require.Len(t, *paths, 1)
	_, o = f.mustExec(t, "/image a cat -o cat")
	require.Empty(t, o.Action, "the choice is remembered")

	rt = newFixture(t, "").c.Runtime()
	_, _, err = StoreImageSetting(rt, "image_provider", "dall-e")
	require.ErrorContains(t, err, `unknown image provider "dall-e": pick one of pollinations, openai, cloudflare, together`)
	more, _, err = StoreImageSetting(rt, "image_provider", "4")
	require.NoError(t, err)
	require.Len(t, more, 1)
	require.Equal(t, "image_api_key", more[0].Key)
	require.True(t, more[0].Secret)
	require.Contains(t, more[0].Hint, "https://api.together.ai/settings/api-keys")
	cfg, err := os.ReadFile(rt.Config.Paths.ConfigFile)
	require.NoError(t, err)
	require.Contains(t, string(cfg), `image_provider = "openai"`)
	require.Contains(t, string(cfg), `image_base_url = "https://api.together.xyz/v1"`)
	more, _, err = StoreImageSetting(rt, "image_provider", "3")
	require.NoError(t, err)
	require.Equal(t, []string{"cloudflare_account_id", "image_api_key"}, []string{more[0].Key, more[1].Key})
}
