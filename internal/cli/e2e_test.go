package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/ui/chat"
)

// e2e is a temp home and git workspace with a config pointing provider
// "fake" at a scripted model server.
type e2e struct {
	t    testing.TB
	home string
	ws   string
	env  map[string]string
}

func newE2E(t testing.TB, srv *llmtest.Script, wire string, extraConfig string) *e2e {
	t.Helper()
	root := t.TempDir()
	e := &e2e{t: t, home: filepath.Join(root, "home"), ws: filepath.Join(root, "ws")}
	for _, d := range []string{e.home, e.ws, filepath.Join(e.home, ".config", "aidex")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	base := srv.URL
	if wire == "openai" {
		base += "/v1"
	}
	cfg := "provider = \"fake\"\nmodel = \"scripted\"\nmax_retries = 0\n" + extraConfig +
		"\n[providers.fake]\ntype = \"" + wire + "\"\nbase_url = \"" + base + "\"\napi_key = \"test-key\"\n"
	if err := os.WriteFile(filepath.Join(e.home, ".config", "aidex", "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	e.env = map[string]string{
		"HOME": e.home, "XDG_CONFIG_HOME": filepath.Join(e.home, ".config"), "XDG_DATA_HOME": filepath.Join(e.home, ".local", "share"),
		"XDG_STATE_HOME": filepath.Join(e.home, ".local", "state"), "XDG_CACHE_HOME": filepath.Join(e.home, ".cache"),
		"PATH": os.Getenv("PATH"),
	}
	e.git("init", "-q")
	return e
}

func (e *e2e) git(args ...string) {
	e.t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.email=t@t", "-c", "user.name=t"}, args...)...)
	cmd.Dir = e.ws
	if out, err := cmd.CombinedOutput(); err != nil {
		e.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func (e *e2e) write(name, content string) {
	e.t.Helper()
	p := filepath.Join(e.ws, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

func (e *e2e) read(name string) string {
	e.t.Helper()
	data, err := os.ReadFile(filepath.Join(e.ws, name))
	if err != nil {
		e.t.Fatal(err)
	}
	return string(data)
}

type result struct {
	code           int
	stdout, stderr string
}

// run runs aidex in-process in the workspace.
func (e *e2e) run(ctx context.Context, args ...string) result {
	e.t.Helper()
	var out, errb bytes.Buffer
	code := Main(Process{Chat: chat.Run, Context: ctx, Args: append([]string{"-w", e.ws}, args...), Stdin: strings.NewReader(""),
		Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return e.env[k] }})
	return result{code, out.String(), errb.String()}
}

// events decodes stream-json output.
func events(t *testing.T, out string) []map[string]any {
	t.Helper()
	var evs []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("bad stream-json line %q: %v", line, err)
		}
		evs = append(evs, m)
	}
	return evs
}

func eventTypes(evs []map[string]any) string {
	var types []string
	for _, e := range evs {
		if e["type"] != "usage" {
			types = append(types, e["type"].(string))
		}
	}
	return strings.Join(types, ",")
}

// bugFixScript is a multi-step task: list, grep, read, edit, run the tests.
func bugFixScript() []llmtest.Turn {
	return []llmtest.Turn{
		{Text: "Let me look around.", Calls: []llmtest.Call{{Name: "list_directory", Args: `{"path":"."}`}}},
		{Calls: []llmtest.Call{{Name: "grep", Args: `{"pattern":"return a - b"}`}}},
		{Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"calc.sh"}`}}},
		{Calls: []llmtest.Call{{Name: "edit_file", Args: `{"path":"calc.sh","old_string":"return a - b","new_string":"return a + b"}`}}},
		{Calls: []llmtest.Call{{Name: "run_command", Args: `{"command":"sh test.sh"}`}}},
		{Text: "Fixed the sign in calc.sh; the tests pass."},
	}
}

func seedBug(e *e2e) {
	e.write("calc.sh", "# add two numbers\nadd() { echo $(( $1 + $2 )); } # return a - b\n")
	e.write("test.sh", "grep -q 'return a + b' calc.sh && echo PASS || { echo FAIL; exit 1; }\n")
	e.git("add", ".")
	e.git("commit", "-qm", "init")
}

func TestE2EBugFix(t *testing.T) {
	for _, tc := range []struct {
		wire, config string
	}{
		{"openai", ""},
		{"openai", "stream = false"},
		{"anthropic", ""},
		{"anthropic", "stream = false"},
	} {
		t.Run(tc.wire+"/"+tc.config, func(t *testing.T) {
			srv := llmtest.NewScript(t, bugFixScript()...)
			e := newE2E(t, srv, tc.wire, tc.config)
			seedBug(e)
			r := e.run(context.Background(), "-p", "fix the add function", "--output-format", "stream-json",
				"--permission-mode", "auto-edit", "--allow", "run_command(sh test.sh)")
			if r.code != 0 {
				t.Fatalf("exit %d\nstderr: %s\nstdout: %s", r.code, r.stderr, r.stdout)
			}
			if got := e.read("calc.sh"); !strings.Contains(got, "return a + b") {
				t.Fatalf("calc.sh not fixed:\n%s", got)
			}
			evs := events(t, r.stdout)
			types := eventTypes(evs)
			if !strings.HasPrefix(types, "session,") || !strings.HasSuffix(types, ",done") || strings.Count(types, "tool_result") != 5 {
				t.Fatalf("events: %s", types)
			}
			for _, ev := range evs {
				if ev["type"] == "tool_result" {
					tr := ev["tool_result"].(map[string]any)
					if tr["ok"] != true {
						t.Errorf("tool %v failed: %v", tr["name"], tr["error"])
					}
					if tr["name"] == "run_command" && !strings.Contains(tr["output"].(string), "PASS") {
						t.Errorf("tests did not pass: %v", tr["output"])
					}
					if tr["name"] == "edit_file" && !strings.Contains(string(mustJSON(tr["metadata"])), "+add()") {
						t.Errorf("edit has no diff: %v", tr["metadata"])
					}
				}
			}
			done := evs[len(evs)-1]["done"].(map[string]any)
			if done["stop_reason"] != "done" || done["turns"].(float64) != 6 || !strings.Contains(done["result"].(string), "tests pass") {
				t.Errorf("done: %v", done)
			}
			if n := len(srv.Requests()); n != 6 {
				t.Errorf("%d model requests, want 6", n)
			}
		})
	}
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

func TestE2ETextOutputAndJSON(t *testing.T) {
	srv := llmtest.NewScript(t, llmtest.Turn{Text: "The answer is 42."}, llmtest.Turn{Text: "Again 42."})
	e := newE2E(t, srv, "openai", "")
	r := e.run(context.Background(), "-p", "question")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "The answer is 42." {
		t.Fatalf("exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	r = e.run(context.Background(), "-p", "again", "--output-format", "json")
	var res map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || res["result"] != "Again 42." || res["stop_reason"] != "done" {
		t.Fatalf("json output %q: %v", r.stdout, err)
	}
	for _, k := range []string{"session_id", "turns", "usage", "tool_calls", "errors"} {
		if _, ok := res[k]; !ok {
			t.Errorf("json output lacks %s", k)
		}
	}
}

func TestE2ELoopStopped(t *testing.T) {
	same := llmtest.Turn{Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"a.txt"}`}}}
	srv := llmtest.NewScript(t, same, same, same, same)
	e := newE2E(t, srv, "openai", "")
	e.write("a.txt", "x\n")
	r := e.run(context.Background(), "-p", "read it", "--output-format", "json")
	if r.code != ExitLoop || !strings.Contains(r.stdout, `"stop_reason": "loop"`) || !strings.Contains(r.stdout, "read_file") {
		t.Fatalf("exit %d stdout %s", r.code, r.stdout)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Errorf("%d requests, want 3", n)
	}
}

func TestE2ETurnLimit(t *testing.T) {
	var turns []llmtest.Turn
	for i := 0; i < 5; i++ {
		turns = append(turns, llmtest.Turn{Calls: []llmtest.Call{{Name: "list_directory", Args: `{"depth":` + string(rune('1'+i)) + `}`}}})
	}
	srv := llmtest.NewScript(t, turns...)
	e := newE2E(t, srv, "anthropic", "")
	r := e.run(context.Background(), "-p", "explore", "--max-turns", "2")
	if r.code != ExitLimit {
		t.Fatalf("exit %d, want %d; stderr %s", r.code, ExitLimit, r.stderr)
	}
}

func TestE2EDeniedCommand(t *testing.T) {
	srv := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "run_command", Args: `{"command":"rm -rf build"}`}}},
		llmtest.Turn{Text: "I could not run it."})
	e := newE2E(t, srv, "openai", "")
	e.write("build/x", "keep")
	r := e.run(context.Background(), "-p", "clean", "--output-format", "stream-json")
	if r.code != ExitDenied {
		t.Fatalf("exit %d, want %d; stderr %s", r.code, ExitDenied, r.stderr)
	}
	if e.read("build/x") != "keep" {
		t.Fatal("the denied command ran")
	}
	var denial string
	for _, ev := range events(t, r.stdout) {
		if ev["type"] == "tool_result" {
			denial = ev["tool_result"].(map[string]any)["error"].(string)
		}
	}
	if !strings.Contains(denial, "run_command") && !strings.Contains(denial, "rule") {
		t.Errorf("denial does not name the rule: %q", denial)
	}
	// The model was told: its second request carries the denial.
	reqs := srv.Requests()
	if len(reqs) != 2 || !strings.Contains(string(reqs[1]), "denied") {
		t.Errorf("the model was not told of the denial")
	}
}

func TestE2ECancelKeepsPartialAndContinue(t *testing.T) {
	srv := llmtest.NewScript(t, llmtest.Turn{Text: "Partial answer before Ctrl+C", Hang: true}, llmtest.Turn{Text: "Continued."})
	e := newE2E(t, srv, "openai", "")
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		select {
		case <-srv.Started:
			time.Sleep(50 * time.Millisecond) // let the client read the text
		case <-time.After(20 * time.Second):
		}
		cancel()
	}()
	r := e.run(ctx, "-p", "long task")
	if r.code != ExitInterrupted {
		t.Fatalf("exit %d, want %d; stderr %s", r.code, ExitInterrupted, r.stderr)
	}
	// The partial text is in the session: -c sends it back to the model.
	r = e.run(context.Background(), "-c", "-p", "go on")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "Continued." {
		t.Fatalf("continue: exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	last := string(srv.Requests()[1])
	for _, want := range []string{"long task", "Partial answer before Ctrl+C", "go on"} {
		if !strings.Contains(last, want) {
			t.Errorf("resumed request lacks %q", want)
		}
	}
}

// A provider timeout is a failure (exit 1, "timed out after N s"), not
// the user's interruption (exit 130), though the timer stops the request
// the way Ctrl+C does.
func TestE2ETimeoutIsFailureNotInterrupt(t *testing.T) {
	srv := llmtest.NewScript(t, llmtest.Turn{Text: "Partial answer before the model went silent", Hang: true})
	e := newE2E(t, srv, "openai", "stream_idle_timeout = 1\n")
	r := e.run(context.Background(), "-p", "long task")
	if r.code != ExitFailure {
		t.Fatalf("exit %d, want %d; stderr %s", r.code, ExitFailure, r.stderr)
	}
	if !strings.Contains(r.stderr, "timed out after 1 s") || strings.Contains(r.stderr, "interrupted") {
		t.Errorf("stderr %q: want the timeout, not an interruption", r.stderr)
	}
}

func TestE2ECompactionOnSmallWindow(t *testing.T) {
	big := strings.Repeat("data line for the model to read\n", 200)
	srv := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"big1.txt"}`}}},
		llmtest.Turn{Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"big2.txt"}`}}},
		llmtest.Turn{Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"big3.txt"}`}}},
		llmtest.Turn{Text: "SUMMARY: read three big files."},
		llmtest.Turn{Text: "All read."})
	e := newE2E(t, srv, "openai", "context_window = 6000")
	for _, n := range []string{"big1.txt", "big2.txt", "big3.txt"} {
		e.write(n, big)
	}
	r := e.run(context.Background(), "-p", "read the big files", "--output-format", "json")
	if r.code != 0 || !strings.Contains(r.stdout, "All read.") {
		t.Fatalf("exit %d stdout %s stderr %s", r.code, r.stdout, r.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d requests, want 5 (3 tool turns, the summary, the answer)", len(reqs))
	}
	if !strings.Contains(string(reqs[3]), "Summarise the conversation") {
		t.Errorf("the fourth request is not the summary request")
	}
	last := string(reqs[4])
	full := 3 * strings.Count(big, "\n")
	if !strings.Contains(last, "SUMMARY: read three big files.") || strings.Count(last, "data line") >= full {
		t.Errorf("the last request was not compacted (%d bytes, %d lines of data)", len(last), strings.Count(last, "data line"))
	}
	if !strings.Contains(last, "read the big files") {
		t.Errorf("the compacted request lost the original task")
	}
}

func TestE2EProviderErrorKeepsSession(t *testing.T) {
	srv := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "list_directory", Args: `{}`}}},
		llmtest.Turn{Status: 400, ErrorBody: `{"error":{"message":"invalid request: boom","type":"invalid_request_error"}}`})
	e := newE2E(t, srv, "openai", "")
	r := e.run(context.Background(), "-p", "explore", "--output-format", "json")
	if r.code != ExitFailure || !strings.Contains(r.stderr, "boom") {
		t.Fatalf("exit %d stderr %s", r.code, r.stderr)
	}
	var res map[string]any
	_ = json.Unmarshal([]byte(r.stdout), &res)
	id, _ := res["session_id"].(string)
	r = e.run(context.Background(), "sessions", "export", id, "--format", "json")
	if r.code != 0 || !strings.Contains(r.stdout, "list_directory") || !strings.Contains(r.stdout, "explore") {
		t.Fatalf("session not intact: exit %d %s %s", r.code, r.stdout, r.stderr)
	}
}

func TestE2EPipedStdinIsPrompt(t *testing.T) {
	srv := llmtest.NewScript(t, llmtest.Turn{Text: "ok"})
	e := newE2E(t, srv, "openai", "")
	var out, errb bytes.Buffer
	code := Main(Process{Chat: chat.Run, Args: []string{"-w", e.ws, "-p", "summarise"}, Stdin: strings.NewReader("piped context text"),
		Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return e.env[k] }})
	if code != 0 {
		t.Fatalf("exit %d %s", code, errb.String())
	}
	body := string(srv.Requests()[0])
	if !strings.Contains(body, "piped context text") || !strings.Contains(body, "summarise") {
		t.Errorf("request lacks stdin context: %s", body)
	}
}

func TestE2EUsageErrors(t *testing.T) {
	srv := llmtest.NewScript(t)
	e := newE2E(t, srv, "openai", "")
	for _, args := range [][]string{
		{"-p", "x", "--output-format", "yaml"},
		{"--bogus"},
		{"sesions"}, // a typo of a command ("nope" would be a prompt)
		{"-p", "x", "--model", "nosuchprovider/m", "--provider", "nosuch"},
	} {
		if r := e.run(context.Background(), args...); r.code != ExitUsage || r.stderr == "" {
			t.Errorf("%v: exit %d stderr %q", args, r.code, r.stderr)
		}
	}
}

func TestE2EAgentModeDryRunAndMarkers(t *testing.T) {
	srv := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"new.txt","content":"hello\n"}`}}},
		llmtest.Turn{Text: "Wrote it. %%DONE%%"},
		llmtest.Turn{Text: "never reached"})
	e := newE2E(t, srv, "openai", "")
	r := e.run(context.Background(), "-p", "create new.txt", "--steps", "5", "--agent-writes", "dry-run", "--permission-mode", "auto-edit")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "Wrote it." {
		t.Fatalf("exit %d stdout %q stderr %s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "new.txt")); !os.IsNotExist(err) {
		t.Fatal("dry run wrote the file")
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || !strings.Contains(string(reqs[1]), "+hello") || !strings.Contains(string(reqs[0]), "Turn 1 of 5") {
		t.Errorf("the model did not get the dry-run diff or the step note")
	}
}

func TestE2EAgentWritesDeny(t *testing.T) {
	srv := llmtest.NewScript(t, llmtest.Turn{Text: "--- a/x\n+++ b/x\n"})
	e := newE2E(t, srv, "openai", "")
	r := e.run(context.Background(), "-p", "change x", "--agent-writes", "deny")
	if r.code != 0 {
		t.Fatalf("exit %d %s", r.code, r.stderr)
	}
	body := string(srv.Requests()[0])
	if strings.Contains(body, `"write_file"`) || strings.Contains(body, `"edit_file"`) || !strings.Contains(body, "unified diff") {
		t.Errorf("write tools offered or no diff instruction")
	}
}

func TestE2EPinnedMemoryReachesSystemPrompt(t *testing.T) {
	srv := llmtest.NewScript(t, llmtest.Turn{Text: "ok"})
	e := newE2E(t, srv, "openai", "")
	if r := e.run(context.Background(), "memory", "add", "Always indent with tabs", "--scope", "global", "--pin"); r.code != 0 {
		t.Fatalf("memory add: %d %s", r.code, r.stderr)
	}
	if r := e.run(context.Background(), "memory", "add", "An unpinned fact", "--scope", "global"); r.code != 0 {
		t.Fatalf("memory add: %d %s", r.code, r.stderr)
	}
	if r := e.run(context.Background(), "-p", "hi"); r.code != 0 {
		t.Fatalf("run: %d %s", r.code, r.stderr)
	}
	var req struct {
		Messages []struct {
			Role    string `json:"role"`
			Content any    `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(srv.Requests()[0], &req); err != nil || len(req.Messages) == 0 {
		t.Fatalf("request: %v", err)
	}
	system, _ := json.Marshal(req.Messages[0])
	if req.Messages[0].Role != "system" || !strings.Contains(string(system), "Always indent with tabs") || strings.Contains(string(system), "An unpinned fact") {
		t.Errorf("system prompt: %s", system)
	}
}

func TestE2EContinueWithAnotherModelRecordsIt(t *testing.T) {
	srv := llmtest.NewScript(t, llmtest.Turn{Text: "one"}, llmtest.Turn{Text: "two"})
	e := newE2E(t, srv, "openai", "")
	if r := e.run(context.Background(), "-p", "first"); r.code != 0 {
		t.Fatalf("first: %d %s", r.code, r.stderr)
	}
	if r := e.run(context.Background(), "-c", "-m", "other-model", "-p", "second"); r.code != 0 {
		t.Fatalf("continue: %d %s", r.code, r.stderr)
	}
	r := e.run(context.Background(), "sessions", "list", "--json")
	var list []struct {
		Model    string `json:"model"`
		Messages int    `json:"messages"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil || len(list) != 1 {
		t.Fatalf("sessions list: %v %s %s", err, r.stdout, r.stderr)
	}
	if list[0].Model != "other-model" || list[0].Messages != 4 {
		t.Errorf("session after -c -m: %+v", list[0])
	}
}
