package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// requestOf decodes an OpenAI chat request: the system prompt and the
// messages' text.
type chatReq struct {
	Messages []struct {
		Role    string `json:"role"`
		Content any    `json:"content"`
	} `json:"messages"`
}

func decodeReq(t *testing.T, raw []byte) chatReq {
	t.Helper()
	var r chatReq
	if err := json.Unmarshal(raw, &r); err != nil || len(r.Messages) == 0 {
		t.Fatalf("request %s: %v", raw, err)
	}
	return r
}

func (r chatReq) system() string {
	if r.Messages[0].Role != "system" {
		return ""
	}
	s, _ := json.Marshal(r.Messages[0].Content)
	return string(s)
}

func (r chatReq) lastUser() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			if s, ok := r.Messages[i].Content.(string); ok {
				return s
			}
			s, _ := json.Marshal(r.Messages[i].Content)
			return string(s)
		}
	}
	return ""
}

// Item 1: --steps N runs N assistant turns; a text-only answer does not
// end the run, the next turn gets "continue"; each turn is told
// "Turn X of Y".
func TestAgentStepsRunEveryTurn(t *testing.T) {
	srv := llmtest.NewScript(t, llmtest.Turn{Text: "one"}, llmtest.Turn{Text: "two"}, llmtest.Turn{Text: "three"}, llmtest.Turn{Text: "never"})
	e := newE2E(t, srv, "openai", "")
	r := e.run(context.Background(), "-p", "work", "--steps", "3")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "three" {
		t.Fatalf("exit %d stdout %q stderr %s", r.code, r.stdout, r.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	for i, raw := range reqs {
		req := decodeReq(t, raw)
		if want := "<status>Turn " + string(rune('1'+i)) + " of 3</status>"; !strings.Contains(req.lastUser(), want) {
			t.Errorf("request %d: no %q in %s", i+1, want, req.lastUser())
		}
		if i > 0 && !strings.HasPrefix(req.lastUser(), "continue") {
			t.Errorf("request %d: user turn %s, want continue", i+1, req.lastUser())
		}
		if strings.Contains(req.system(), "Turn ") {
			t.Errorf("request %d: the status is in the system prompt", i+1)
		}
	}
}

// --no-agent-status-tags: no "Turn X of Y".
func TestAgentNoStatusTags(t *testing.T) {
	srv := llmtest.NewScript(t, llmtest.Turn{Text: "one"}, llmtest.Turn{Text: "two"})
	e := newE2E(t, srv, "openai", "")
	if r := e.run(context.Background(), "-p", "work", "--steps", "2", "--no-agent-status-tags"); r.code != 0 {
		t.Fatalf("exit %d %s", r.code, r.stderr)
	}
	for _, raw := range srv.Requests() {
		if strings.Contains(string(raw), "Turn 1 of") || strings.Contains(string(raw), "Turn 2 of") {
			t.Fatal("a status tag was sent")
		}
	}
}

// Item 2: every finish marker ends the run, also in a response with tool
// calls (the calls run first); final output and --raw strip it, full
// keeps it.
func TestAgentMarkersEndRunAfterCalls(t *testing.T) {
	for _, c := range []struct{ marker, output string }{{"%%DONE%%", "final"}, {"%%COMPLETED%%", "final"}, {"%%COMPLETE%%", "full"}, {"%%COMPLETED%%", "raw"}} {
		srv := llmtest.NewScript(t,
			llmtest.Turn{Text: "Finished. " + c.marker, Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"out.txt","content":"x\n"}`}}},
			llmtest.Turn{Text: "never"})
		e := newE2E(t, srv, "openai", "")
		args := []string{"-p", "go", "--steps", "5", "--agent-writes", "allow"}
		if c.output == "raw" {
			args = append(args, "--raw")
		} else {
			args = append(args, "--agent-output", c.output)
		}
		r := e.run(context.Background(), args...)
		if r.code != 0 || len(srv.Requests()) != 1 {
			t.Fatalf("%v: exit %d, %d requests, stderr %s", c, r.code, len(srv.Requests()), r.stderr)
		}
		if e.read("out.txt") != "x\n" {
			t.Errorf("%v: the call did not run", c)
		}
		kept := strings.Contains(r.stdout, c.marker)
		if (c.output == "full") != kept || !strings.Contains(r.stdout, "Finished.") {
			t.Errorf("%v: stdout %q", c, r.stdout)
		}
	}
}

// Item 3: agent mode adds the finish-sentinel instruction to the system
// prompt once, and the write-policy note of deny and dry-run.
func TestAgentSystemPromptNotes(t *testing.T) {
	for _, c := range []struct{ writes, want, not string }{
		{"", "%%DONE%%", "unified diff"},
		{"deny", "unified diff", "dry run"},
		{"dry-run", "writes are shown as diffs, not made", "unified diff"},
	} {
		srv := llmtest.NewScript(t, llmtest.Turn{Text: "a"}, llmtest.Turn{Text: "b %%DONE%%"})
		e := newE2E(t, srv, "openai", "")
		args := []string{"-p", "go", "--steps", "3"}
		if c.writes != "" {
			args = append(args, "--agent-writes", c.writes)
		}
		if r := e.run(context.Background(), args...); r.code != 0 {
			t.Fatalf("%v: exit %d %s", c, r.code, r.stderr)
		}
		for i, raw := range srv.Requests() {
			sys := decodeReq(t, raw).system()
			if strings.Count(sys, "%%DONE%%") != 1 || !strings.Contains(sys, c.want) || strings.Contains(sys, c.not) {
				t.Errorf("%v: request %d system prompt: %s", c, i+1, sys)
			}
		}
	}
}

// Item 4: --agent-writes allow writes without asking in the default ask
// mode (headless: asks would be denied), never in plan mode, and never to
// a protected path; dry-run shows the diff in every mode and writes
// nothing.
func TestAgentWritesAllowAndDryRunInEveryMode(t *testing.T) {
	write := llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"new.txt","content":"hello\n"}`}}}
	srv := llmtest.NewScript(t, write, llmtest.Turn{Text: "ok"})
	e := newE2E(t, srv, "openai", "")
	if r := e.run(context.Background(), "-p", "go", "--agent-writes", "allow"); r.code != 0 || e.read("new.txt") != "hello\n" {
		t.Fatalf("allow in ask mode: exit %d stderr %s", r.code, r.stderr)
	}

	srv = llmtest.NewScript(t, write, llmtest.Turn{Text: "ok"})
	e = newE2E(t, srv, "openai", "")
	if r := e.run(context.Background(), "-p", "go", "--agent-writes", "allow", "--permission-mode", "plan"); r.code != ExitDenied {
		t.Fatalf("allow in plan mode: exit %d stderr %s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "new.txt")); !os.IsNotExist(err) {
		t.Fatal("plan mode wrote the file")
	}

	srv = llmtest.NewScript(t, llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":".aidex/config.toml","content":"permission_mode = \"yolo\"\n"}`}}}, llmtest.Turn{Text: "ok"})
	e = newE2E(t, srv, "openai", "")
	if r := e.run(context.Background(), "-p", "go", "--agent-writes", "allow"); r.code != ExitDenied {
		t.Fatalf("allow to a protected path: exit %d stderr %s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(e.ws, ".aidex", "config.toml")); !os.IsNotExist(err) {
		t.Fatal("a protected path was written")
	}

	for _, mode := range []string{"ask", "plan"} {
		srv = llmtest.NewScript(t, write, llmtest.Turn{Text: "ok"})
		e = newE2E(t, srv, "openai", "")
		r := e.run(context.Background(), "-p", "go", "--agent-writes", "dry-run", "--permission-mode", mode)
		if r.code != 0 || !strings.Contains(r.stderr, "+hello") {
			t.Fatalf("dry-run in %s mode: exit %d stderr %s", mode, r.code, r.stderr)
		}
		if _, err := os.Stat(filepath.Join(e.ws, "new.txt")); !os.IsNotExist(err) {
			t.Fatalf("dry-run in %s mode wrote the file", mode)
		}
	}
}

// Item 5: --raw with streaming prints the whole response, every chunk,
// not only the last one; the finish marker is stripped.
func TestRawPrintsWholeStream(t *testing.T) {
	srv := llmtest.NewScript(t, llmtest.Turn{Text: "alpha beta gamma delta epsilon %%DONE%%"})
	e := newE2E(t, srv, "openai", "")
	r := e.run(context.Background(), "-p", "go", "--steps", "2", "--raw")
	if r.code != 0 {
		t.Fatalf("exit %d %s", r.code, r.stderr)
	}
	var chunks []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &chunks); err != nil || len(chunks) < 3 {
		t.Fatalf("raw output is not the array of chunks: %v\n%s", err, r.stdout)
	}
	var text strings.Builder
	for _, c := range chunks {
		for _, ch := range asSlice(c["choices"]) {
			if d, ok := ch.(map[string]any)["delta"].(map[string]any); ok {
				s, _ := d["content"].(string)
				text.WriteString(s)
			}
		}
	}
	if text.String() != "alpha beta gamma delta epsilon " || strings.Contains(r.stdout, "%%DONE%%") {
		t.Errorf("raw text %q\n%s", text.String(), r.stdout)
	}
}

func asSlice(v any) []any { s, _ := v.([]any); return s }

// Item 6: --agent-output full separates turns (a blank line when stdout
// is not a terminal) and keeps the markers; final collapses runs of blank
// lines and drops leading blanks.
func TestAgentOutputModes(t *testing.T) {
	srv := llmtest.NewScript(t, llmtest.Turn{Text: "one"}, llmtest.Turn{Text: "two %%DONE%%"})
	e := newE2E(t, srv, "openai", "")
	r := e.run(context.Background(), "-p", "go", "--steps", "3", "--agent-output", "full")
	if r.code != 0 || r.stdout != "one\n\ntwo %%DONE%%\n" {
		t.Fatalf("full: exit %d stdout %q", r.code, r.stdout)
	}
	srv = llmtest.NewScript(t, llmtest.Turn{Text: "\n\n  \nfirst\n\n\n\n\nsecond\n \n\t\nthird %%DONE%%\n\n"})
	e = newE2E(t, srv, "openai", "")
	r = e.run(context.Background(), "-p", "go", "--steps", "3")
	if r.code != 0 || r.stdout != "first\n\nsecond\n\nthird\n" {
		t.Fatalf("final: exit %d stdout %q", r.code, r.stdout)
	}
	if got := turnLine(2, 5, true); got != "── turn 2/5 ──\n" {
		t.Errorf("terminal separator %q", got)
	}
}

// Item 7: --verbose in agent mode dumps the system prompt once and the
// provider-visible messages before each turn, on stderr.
func TestAgentVerboseDumpsRequests(t *testing.T) {
	srv := llmtest.NewScript(t, llmtest.Turn{Text: "first answer"}, llmtest.Turn{Text: "second answer"})
	e := newE2E(t, srv, "openai", "")
	r := e.run(context.Background(), "-p", "the task", "--steps", "2", "--verbose")
	if r.code != 0 {
		t.Fatalf("exit %d %s", r.code, r.stderr)
	}
	if n := strings.Count(r.stderr, "── system prompt ──"); n != 1 {
		t.Errorf("system prompt dumped %d times:\n%s", n, r.stderr)
	}
	for _, want := range []string{"messages before turn 1", "[user] the task", "messages before turn 2", "[user] continue"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if strings.Contains(r.stderr, "first answer") {
		t.Errorf("the assistant's text is dumped again:\n%s", r.stderr)
	}
}

// The JSON result strips the finish marker too (stop_reason says it).
func TestAgentJSONResultStripsMarker(t *testing.T) {
	srv := llmtest.NewScript(t, llmtest.Turn{Text: "all good %%DONE%%"})
	e := newE2E(t, srv, "openai", "")
	r := e.run(context.Background(), "-p", "go", "--steps", "2", "--output-format", "json")
	var res struct {
		Result     string `json:"result"`
		StopReason string `json:"stop_reason"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || r.code != 0 {
		t.Fatalf("exit %d %v %s", r.code, err, r.stdout)
	}
	if strings.TrimSpace(res.Result) != "all good" || res.StopReason != "done_marker" {
		t.Errorf("result %+v", res)
	}
}

// -v stays --version (as in Claude Code), not iptic-memex's --verbose.
func TestShortVFlagIsVersion(t *testing.T) {
	srv := llmtest.NewScript(t)
	e := newE2E(t, srv, "openai", "")
	r := e.run(context.Background(), "-v")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "aidex ") || len(srv.Requests()) != 0 {
		t.Fatalf("exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
}
