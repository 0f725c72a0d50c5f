package web

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/ralph"
)

func completeTask(status, summary string) llmtest.Call {
	return llmtest.Call{Name: "complete_task", Args: `{"status":"` + status + `","summary":"` + summary + `"}`}
}

// ralphView is GET /api/ralph as the tests read it.
type ralphView struct {
	Tasks []struct {
		ID, Title, Status, Priority, Result, Description string
		SessionID                                        string   `json:"session_id"`
		TaskType                                         string   `json:"task_type"`
		Criteria                                         []string `json:"acceptance_criteria"`
		DependsOn                                        []string `json:"depends_on"`
		Attempts                                         int
	} `json:"tasks"`
	Running       bool           `json:"running"`
	Paused        bool           `json:"paused"`
	StopRequested bool           `json:"stop_requested"`
	Current       string         `json:"current"`
	Live          bool           `json:"live"`
	Counts        map[string]int `json:"counts"`
	Notices       []string       `json:"notices"`
}

func (e *env) ralph() ralphView {
	e.t.Helper()
	var v ralphView
	if st := e.call(http.MethodGet, "/api/ralph", nil, &v); st != http.StatusOK {
		e.t.Fatalf("GET /api/ralph: %d", st)
	}
	return v
}

// addTask adds a task and returns its id.
func (e *env) addTask(body map[string]any) string {
	e.t.Helper()
	var out struct {
		Task struct{ ID string } `json:"task"`
	}
	if st := e.call(http.MethodPost, "/api/ralph/add", body, &out); st != http.StatusOK || out.Task.ID == "" {
		e.t.Fatalf("add %v: %d %+v", body, st, out)
	}
	return out.Task.ID
}

// stream opens an SSE request; it fails the test unless it answers 200
// with an event stream.
func (e *env) stream(ctx context.Context, method, path string, body any) *http.Response {
	e.t.Helper()
	if method == http.MethodPost && body == nil {
		body = map[string]any{}
	}
	req := e.req(method, path, body).WithContext(ctx)
	resp, err := e.client.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		resp.Body.Close()
		e.t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	return resp
}

// TestRalphEndpoints: the task list through the API, and a run streamed
// as SSE against a scripted model: the P1 task first (done through
// complete_task), then the P3 one (done through the promise tag).
func TestRalphEndpoints(t *testing.T) {
	model := llmtest.NewScript(t,
		llmtest.Turn{Text: "Adding the flag.", Calls: []llmtest.Call{completeTask("done", "added the flag")}},
		llmtest.Turn{Text: "Finished."},
		llmtest.Turn{Text: "Wrote the docs.\n<promise>COMPLETE</promise>"},
	)
	e := newEnv(t, model, "permission_mode = \"auto-edit\"\n")
	checkRalphAddRefused(t, e)
	docs, flag := addRalphTasks(t, e)
	checkRalphWithoutRun(t, e)

	// The run: two tasks (the dependent P0 waits for docs, and
	// max_iterations 2 ends the run before it).
	resp := e.stream(context.Background(), http.MethodPost, "/api/ralph/run", map[string]any{"max_iterations": 2})
	evs := readSSE(t, resp.Body, nil)
	resp.Body.Close()
	checkRalphRunEvents(t, evs, flag, docs)
	checkRalphAfterRun(t, e, model)
	checkRalphResetAndClear(t, e, flag)
}

// checkRalphAddRefused: the list starts empty, and an add without a title
// or with a bad field is 400 with a reason.
func checkRalphAddRefused(t *testing.T, e *env) {
	v := e.ralph()
	if len(v.Tasks) != 0 || v.Running || v.Live || v.Counts["pending"] != 0 || len(v.Notices) != 0 {
		t.Fatalf("empty list: %+v", v)
	}
	for _, bad := range []map[string]any{
		{},
		{"title": "  "},
		{"title": "x", "priority": "P9"},
		{"title": "x", "task_type": "epic"},
		{"title": "x", "depends_on": []string{"T-404"}},
	} {
		var out map[string]string
		if st := e.call(http.MethodPost, "/api/ralph/add", bad, &out); st != http.StatusBadRequest || out["error"] == "" {
			t.Errorf("add %v: %d %v, want 400 with a reason", bad, st, out)
		}
	}
}

// addRalphTasks adds a P3 task (docs), a P1 story (flag) and a P0 task
// depending on docs, checks their ids and fields and that a duplicate id
// is refused, and returns the ids of docs and flag.
func addRalphTasks(t *testing.T, e *env) (docs, flag string) {
	docs = e.addTask(map[string]any{"title": "Low docs", "priority": "P3", "description": "write docs"})
	flag = e.addTask(map[string]any{"title": "Normal flag", "priority": "P1", "acceptance_criteria": []string{"--flag works"}, "task_type": "story"})
	if docs != "T-001" || flag != "US-001" {
		t.Errorf("ids %s %s", docs, flag)
	}
	if st := e.call(http.MethodPost, "/api/ralph/add", map[string]any{"id": "T-001", "title": "again"}, nil); st != http.StatusBadRequest {
		t.Errorf("duplicate id: %d", st)
	}
	e.addTask(map[string]any{"title": "After docs", "depends_on": []string{docs}, "priority": 0})
	v := e.ralph()
	if len(v.Tasks) != 3 || v.Counts["pending"] != 3 || v.Tasks[1].Criteria[0] != "--flag works" || v.Tasks[1].TaskType != "story" || v.Tasks[2].DependsOn[0] != docs || v.Tasks[2].Priority != "P0" {
		t.Fatalf("list: %+v", v)
	}
	return docs, flag
}

// checkRalphWithoutRun: with no run, stop is harmless, pause and resume
// are 409, there are no events to follow, and a run with a negative
// max_iterations is 400.
func checkRalphWithoutRun(t *testing.T, e *env) {
	var stop map[string]any
	if st := e.call(http.MethodPost, "/api/ralph/stop", nil, &stop); st != http.StatusOK || stop["stopped"] != false {
		t.Errorf("stop without a run: %d %v", st, stop)
	}
	for _, op := range []string{"pause", "resume"} {
		if st := e.call(http.MethodPost, "/api/ralph/"+op, nil, nil); st != http.StatusConflict {
			t.Errorf("%s without a run: %d", op, st)
		}
	}
	if st := e.call(http.MethodGet, "/api/ralph/events", nil, nil); st != http.StatusNotFound {
		t.Errorf("events without a run: %d", st)
	}
	if st := e.call(http.MethodPost, "/api/ralph/run", map[string]any{"max_iterations": -1}, nil); st != http.StatusBadRequest {
		t.Errorf("negative max_iterations: %d", st)
	}
}

// checkRalphRunEvents checks the run's stream: flag then docs, each task
// framed by task_start and task_done with its outcome, streamed text, and
// finished last with the summary.
func checkRalphRunEvents(t *testing.T, evs []sseEvent, flag, docs string) {
	got := ralphSequence(evs)
	want := []string{"task_start " + flag, "tool_call", "tool_result", "task_done " + flag, "task_start " + docs, "task_done " + docs, "finished"}
	if !slices.Equal(got, want) {
		t.Fatalf("events %v\nwant %v\nall: %v", got, want, names(evs))
	}
	if !slices.Contains(names(evs), "text") || evs[len(evs)-1].Name != "finished" {
		t.Errorf("no streamed text, or finished is not last: %v", names(evs))
	}
	for _, ev := range evs {
		if ev.Name == "text" && ev.Data["event"].(map[string]any)["text"] == nil {
			t.Errorf("a text event without its text: %v", ev.Data)
		}
		if ev.Name == "task_done" {
			o := ev.Data["outcome"].(map[string]any)
			reason := map[string]string{flag: "reported", docs: "promise"}[ev.Data["task_id"].(string)]
			if o["status"] != "done" || o["reason"] != reason {
				t.Errorf("outcome of %s: %v, want done/%s", ev.Data["task_id"], o, reason)
			}
		}
		if ev.Name == "finished" {
			s := ev.Data["summary"].(map[string]any)
			if s["reason"] != "max_iterations" || s["ran"] != 2.0 || s["done"] != 2.0 {
				t.Errorf("summary %v", s)
			}
		}
	}
}

// ralphSequence returns the task_start and task_done events (with their
// task ids), the tool calls and results, and finished, in order.
func ralphSequence(evs []sseEvent) []string {
	var got []string
	for _, ev := range evs {
		switch ev.Name {
		case "task_start", "task_done":
			got = append(got, ev.Name+" "+ev.Data["task_id"].(string))
		case "tool_call", "tool_result", "finished":
			got = append(got, ev.Name)
		}
	}
	return got
}

// checkRalphAfterRun: two tasks done with their results and sessions, the
// dependent one pending; a task's session opens as a transcript; the
// model was offered complete_task and no shell tools.
func checkRalphAfterRun(t *testing.T, e *env, model *llmtest.Script) {
	v := e.ralph()
	if v.Running || v.Live || v.Counts["done"] != 2 || v.Counts["pending"] != 1 {
		t.Fatalf("after the run: %+v", v)
	}
	for _, tk := range v.Tasks[:2] {
		if tk.Status != "done" || tk.SessionID == "" || tk.Attempts != 1 {
			t.Errorf("task %+v", tk)
		}
	}
	if v.Tasks[1].Result != "added the flag" || v.Tasks[0].Result != "Wrote the docs." {
		t.Errorf("results %q %q", v.Tasks[1].Result, v.Tasks[0].Result)
	}
	// The task's session opens as a transcript.
	var sess SessionView
	if st := e.call(http.MethodGet, "/api/sessions/"+v.Tasks[1].SessionID, nil, &sess); st != http.StatusOK || len(sess.Messages) < 3 {
		t.Fatalf("transcript: %d %d messages", st, len(sess.Messages))
	}
	if !strings.Contains(string(mustJSON(t, sess.Messages[0])), "Normal flag") {
		t.Errorf("the transcript does not start with the task prompt: %s", mustJSON(t, sess.Messages[0]))
	}
	// The model got complete_task and no shell tools (web gating).
	reqs := model.Requests()
	if len(reqs) == 0 || !strings.Contains(string(reqs[0]), `"complete_task"`) || strings.Contains(string(reqs[0]), `"name":"run_command"`) {
		t.Error("the Ralph run's tools are not the web ones")
	}
}

// checkRalphResetAndClear: reset takes an id in any case (404 unknown,
// 400 without one) and makes the task pending; clear empties the list.
func checkRalphResetAndClear(t *testing.T, e *env, flag string) {
	var reset struct {
		Task struct{ ID, Status string } `json:"task"`
	}
	if st := e.call(http.MethodPost, "/api/ralph/reset", map[string]any{"id": strings.ToLower(flag)}, &reset); st != http.StatusOK || reset.Task.Status != "pending" || reset.Task.ID != flag {
		t.Errorf("reset: %d %+v", st, reset)
	}
	if st := e.call(http.MethodPost, "/api/ralph/reset", map[string]any{"id": "T-404"}, nil); st != http.StatusNotFound {
		t.Errorf("reset of an unknown task: %d", st)
	}
	if st := e.call(http.MethodPost, "/api/ralph/reset", nil, nil); st != http.StatusBadRequest {
		t.Errorf("reset without id: %d", st)
	}
	var cleared map[string]int
	if st := e.call(http.MethodPost, "/api/ralph/clear", nil, &cleared); st != http.StatusOK || cleared["cleared"] != 3 {
		t.Errorf("clear: %d %v", st, cleared)
	}
	if v := e.ralph(); len(v.Tasks) != 0 {
		t.Errorf("after clear: %+v", v)
	}
}

// TestRalphRunConflictsAndStop: while a run works (the model hangs): a
// second run, clear and a reset of the current task are 409; the run
// survives its stream being closed; another stream attaches and sees the
// current task; pause and resume work; stop {now} cancels the task, which
// goes back to pending, and the streams end.
func TestRalphRunConflictsAndStop(t *testing.T) {
	model := llmtest.NewScript(t, llmtest.Turn{Text: "working on it", Hang: true})
	e := newEnv(t, model, "")
	id := e.addTask(map[string]any{"title": "Long task"})

	ctx, closeTab := context.WithCancel(context.Background())
	defer closeTab()
	first := e.stream(ctx, http.MethodPost, "/api/ralph/run", nil)
	select {
	case <-model.Started:
	case <-time.After(20 * time.Second):
		t.Fatal("the model was never asked")
	}
	checkRalphBusy(t, e, id)

	// Closing the tab that started the run does not stop it.
	closeTab()
	first.Body.Close()
	checkRalphOutlivesStream(t, e)

	// Another tab follows the run from the current task's start.
	second := e.stream(context.Background(), http.MethodGet, "/api/ralph/events", nil)
	defer second.Body.Close()
	evc := followRalph(t, second)

	for _, op := range []string{"pause", "resume"} {
		if st := e.call(http.MethodPost, "/api/ralph/"+op, nil, nil); st != http.StatusOK {
			t.Errorf("%s: %d", op, st)
		}
	}
	var stop map[string]bool
	if st := e.call(http.MethodPost, "/api/ralph/stop", map[string]any{"now": true}, &stop); st != http.StatusOK || !stop["stopped"] || !stop["cancelled"] {
		t.Fatalf("stop now: %d %v", st, stop)
	}
	checkRalphInterrupted(t, evc)
	waitRalphIdle(t, e)
	if v := e.ralph(); v.Tasks[0].Status != "pending" {
		t.Errorf("the interrupted task is %s, want pending", v.Tasks[0].Status)
	}
	// A new run can start now; clear works again.
	if st := e.call(http.MethodPost, "/api/ralph/clear", nil, nil); st != http.StatusOK {
		t.Errorf("clear after the run: %d", st)
	}
}

// checkRalphBusy: while task id runs, a second run, clear and a reset of
// the task are 409, the list shows the run (with a notice about the ask
// permission mode).
func checkRalphBusy(t *testing.T, e *env, id string) {
	var msg map[string]string
	if st := e.call(http.MethodPost, "/api/ralph/run", nil, &msg); st != http.StatusConflict || !strings.Contains(msg["error"], "stop it first") {
		t.Errorf("second run: %d %v", st, msg)
	}
	if st := e.call(http.MethodPost, "/api/ralph/clear", nil, nil); st != http.StatusConflict {
		t.Errorf("clear while running: %d", st)
	}
	if st := e.call(http.MethodPost, "/api/ralph/reset", map[string]any{"id": id}, nil); st != http.StatusConflict {
		t.Errorf("reset of the running task: %d", st)
	}
	v := e.ralph()
	if !v.Running || !v.Live || v.Current != id || v.Tasks[0].Status != "in_progress" {
		t.Fatalf("while running: %+v", v)
	}
	if len(v.Notices) == 0 || !strings.Contains(v.Notices[0], "ask") {
		t.Errorf("no notice about the ask permission mode: %v", v.Notices)
	}
}

// checkRalphOutlivesStream is called after the only stream following the
// run was closed: it waits (20 s) until the server has dropped that
// stream, then checks that the run stays live for a while.
func checkRalphOutlivesStream(t *testing.T, e *env) {
	deadline := time.Now().Add(20 * time.Second)
	for e.ralphStreams() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the server still follows the closed stream")
		}
		time.Sleep(20 * time.Millisecond)
	}
	for end := time.Now().Add(200 * time.Millisecond); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if v := e.ralph(); !v.Running || !v.Live {
			t.Fatalf("the run ended with its stream: %+v", v)
		}
	}
}

// ralphStreams returns how many event streams follow the server's run.
func (e *env) ralphStreams() int {
	h := &e.srv.ralphAPI.ralphHub
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs)
}

// followRalph reads resp's events in the background until they start the
// current task and stream its text (20 s each); the channel gets all the
// events once the stream ends.
func followRalph(t *testing.T, resp *http.Response) <-chan []sseEvent {
	t.Helper()
	evc := make(chan []sseEvent, 1)
	seen := make(chan string, 64)
	go func() {
		evc <- readSSE(t, resp.Body, func(ev sseEvent) {
			select {
			case seen <- ev.Name:
			default:
			}
		})
	}()
	waitFor(t, seen, "task_start")
	waitFor(t, seen, "text")
	return evc
}

// checkRalphInterrupted waits (20 s) for the stream of a run stopped now
// to end, and checks that it ended with task_done and finished
// (interrupted).
func checkRalphInterrupted(t *testing.T, evc <-chan []sseEvent) {
	var evs []sseEvent
	select {
	case evs = <-evc:
	case <-time.After(20 * time.Second):
		t.Fatal("the event stream did not end after stop")
	}
	n := names(evs)
	if len(n) < 2 || n[len(n)-1] != "finished" || !slices.Contains(n, "task_done") {
		t.Fatalf("events %v", n)
	}
	for _, ev := range evs {
		if ev.Name == "finished" && ev.Data["summary"].(map[string]any)["reason"] != "interrupted" {
			t.Errorf("finished %v", ev.Data)
		}
	}
}

// TestRalphRunEndsWithServer: closing the server cancels its run and the
// task goes back to pending.
func TestRalphRunEndsWithServer(t *testing.T) {
	model := llmtest.NewScript(t, llmtest.Turn{Text: "working", Hang: true})
	e := newEnv(t, model, "")
	e.addTask(map[string]any{"title": "Long task"})
	resp := e.stream(context.Background(), http.MethodPost, "/api/ralph/run", nil)
	defer resp.Body.Close()
	select {
	case <-model.Started:
	case <-time.After(20 * time.Second):
		t.Fatal("the model was never asked")
	}
	done := make(chan []sseEvent, 1)
	go func() { done <- readSSE(t, resp.Body, nil) }()
	if err := e.srv.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case evs := <-done:
		if n := names(evs); n[len(n)-1] != "finished" {
			t.Errorf("events %v", n)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the stream did not end when the server closed")
	}
	data, err := os.ReadFile(filepath.Join(e.ws, "ralph_tasks.json"))
	if err != nil || !strings.Contains(string(data), `"status": "pending"`) {
		t.Errorf("task file after close: %v\n%s", err, data)
	}
}

// TestRalphRunIsWebConfined: with permission_mode yolo a Ralph run in the
// web UI still gets no shell tools, and a call to one does nothing.
func TestRalphRunIsWebConfined(t *testing.T) {
	model := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "run_command", Args: `{"command":"touch pwned"}`}, {Name: "write_file", Args: `{"path":"../outside.txt","content":"x"}`}}},
		llmtest.Turn{Calls: []llmtest.Call{completeTask("failed", "no shell")}},
		llmtest.Turn{Text: "ok"})
	e := newEnv(t, model, "permission_mode = \"yolo\"\nconfine = false\n")
	e.addTask(map[string]any{"title": "Try the shell"})
	resp := e.stream(context.Background(), http.MethodPost, "/api/ralph/run", nil)
	evs := readSSE(t, resp.Body, nil)
	resp.Body.Close()
	for _, ev := range evs {
		if ev.Name != "tool_result" {
			continue
		}
		res := ev.Data["event"].(map[string]any)["tool_result"].(map[string]any)
		if res["name"] != "complete_task" && res["ok"] == true {
			t.Errorf("a refused tool ran: %v", res)
		}
	}
	if _, err := os.Stat(filepath.Join(e.ws, "pwned")); err == nil {
		t.Error("a shell command ran")
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(e.ws), "outside.txt")); err == nil {
		t.Error("a file was written outside the workspace")
	}
	if reqs := model.Requests(); len(reqs) == 0 || strings.Contains(string(reqs[0]), `"name":"run_command"`) {
		t.Error("run_command was offered to the model")
	}
	if v := e.ralph(); v.Tasks[0].Status != "failed" {
		t.Errorf("task %+v", v.Tasks[0])
	}
}

func waitFor(t *testing.T, seen <-chan string, name string) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case n := <-seen:
			if n == name {
				return
			}
		case <-deadline:
			t.Fatalf("no %s event", name)
		}
	}
}

func waitRalphIdle(t *testing.T, e *env) {
	t.Helper()
	for i := 0; i < 200; i++ {
		if v := e.ralph(); !v.Running {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("the run did not end")
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// A stream whose last events and close arrive together (one wake-up for
// both) still ends: before, it waited for a second wake-up that never came.
func TestRalphStreamEndsWhenCloseComesWithEvents(t *testing.T) {
	s := &Server{}
	q := newRalphSub()
	q.push(ralph.Event{Type: ralph.EventFinished})
	q.close() // its poke is dropped: the wake channel already holds one
	<-q.wake  // the stream woke for both: the one wake-up is spent
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, "/api/v1/ralph/events", nil)
	ended := make(chan struct{})
	go func() {
		(&ralphAPI{Server: s}).streamRalph(rec, req, q)
		close(ended)
	}()
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the stream never ended after its close")
	}
	if !strings.Contains(rec.Body.String(), string(ralph.EventFinished)) {
		t.Fatalf("the last event was not written: %q", rec.Body.String())
	}
}
