package cli

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// deniedGoTest is a run whose command the ask mode cannot ask about
// headless: the denial goes back to the model and the run goes on.
func deniedGoTest() []llmtest.Turn {
	return []llmtest.Turn{
		{Calls: []llmtest.Call{{Name: "run_command", Args: `{"command":"go test ./..."}`}}},
		{Text: "I could not run the tests."},
	}
}

// noSandbox keeps the stderr of these tests free of the start warning a
// machine that cannot sandbox commands prints (the command is denied
// before it would run anyway).
const noSandbox = "[sandbox]\nmode = \"off\"\n"

// A headless text run that had a denial says so on stderr (not a
// terminal here), with the narrowest rule that allows it, and exits 3;
// the answer still goes to stdout.
func TestStopDeniedTextLine(t *testing.T) {
	srv := llmtest.NewScript(t, deniedGoTest()...)
	e := newE2E(t, srv, "openai", noSandbox)
	r := e.run(context.Background(), "-p", "run the tests")
	if r.code != ExitDenied || strings.TrimSpace(r.stdout) != "I could not run the tests." {
		t.Fatalf("exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	want := `aidex: stopped: run_command "go test ./..." was denied by the policy (mode ask); allow it with --allow 'run_command(go test *)'` + "\n"
	if r.stderr != want {
		t.Errorf("stderr %q, want %q", r.stderr, want)
	}
	if strings.Contains(r.stderr, "--allow 'run_command'") {
		t.Errorf("suggests a bare run_command rule: %q", r.stderr)
	}
}

// --output-format json: stop_reason "denied", exit 3, and denials lists
// each refused call with its rule; stream-json's done event agrees.
func TestStopDeniedJSON(t *testing.T) {
	srv := llmtest.NewScript(t, append(deniedGoTest(), deniedGoTest()...)...)
	e := newE2E(t, srv, "openai", noSandbox)
	r := e.run(context.Background(), "-p", "run the tests", "--output-format", "json")
	var res struct {
		StopReason string `json:"stop_reason"`
		Result     string `json:"result"`
		Denials    []struct {
			Tool, Command, Decision, Rule, Source string
			Allow                                 string `json:"allow_rule"`
		} `json:"denials"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("%v: %s", err, r.stdout)
	}
	if r.code != ExitDenied || res.StopReason != "denied" || res.Result != "I could not run the tests." {
		t.Fatalf("exit %d: %s", r.code, r.stdout)
	}
	if len(res.Denials) != 1 || res.Denials[0].Tool != "run_command" || res.Denials[0].Command != "go test ./..." ||
		res.Denials[0].Decision != "ask" || res.Denials[0].Rule != "mode ask" || res.Denials[0].Source != "built-in" ||
		res.Denials[0].Allow != "run_command(go test *)" {
		t.Errorf("denials %+v", res.Denials)
	}
	if r.stderr != "" {
		t.Errorf("json mode printed on stderr: %q", r.stderr)
	}
	r = e.run(context.Background(), "-p", "again", "--output-format", "stream-json")
	evs := events(t, r.stdout)
	done := evs[len(evs)-1]["done"].(map[string]any)
	if r.code != ExitDenied || done["stop_reason"] != "denied" {
		t.Errorf("stream-json: exit %d done %v", r.code, done)
	}
}

// A deny rule's denial names the rule and suggests no --allow (deny beats
// allow).
func TestStopDenyRuleLine(t *testing.T) {
	srv := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "run_command", Args: `{"command":"git push origin main"}`}}},
		llmtest.Turn{Text: "Not pushed."})
	e := newE2E(t, srv, "openai", "")
	r := e.run(context.Background(), "-p", "push", "--deny", "run_command(git push *)")
	if r.code != ExitDenied {
		t.Fatalf("exit %d stderr %q", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, `run_command "git push origin main" was denied by the policy (rule run_command(git push *)`) ||
		strings.Contains(r.stderr, "--allow") {
		t.Errorf("stderr %q", r.stderr)
	}
}

// The turn limit is one stderr line naming the flag, exit 4; json says
// max_turns.
func TestStopMaxTurnsLine(t *testing.T) {
	var turns []llmtest.Turn
	for i := 0; i < 6; i++ {
		turns = append(turns, llmtest.Turn{Calls: []llmtest.Call{{Name: "list_directory", Args: `{"depth":` + string(rune('1'+i%3)) + `}`}}})
	}
	srv := llmtest.NewScript(t, turns...)
	e := newE2E(t, srv, "openai", "")
	r := e.run(context.Background(), "-p", "explore", "--max-turns", "3")
	if r.code != ExitLimit || !strings.Contains(r.stderr, "aidex: stopped after 3 model responses (--max-turns 3)\n") {
		t.Fatalf("exit %d stderr %q", r.code, r.stderr)
	}
	r = e.run(context.Background(), "-p", "explore", "--max-turns", "3", "--output-format", "json")
	if r.code != ExitLimit || !strings.Contains(r.stdout, `"stop_reason": "max_turns"`) {
		t.Fatalf("exit %d stdout %s", r.code, r.stdout)
	}
}

// The repeated-call stop is a stop reason on stderr with exit 6, never
// printed on stdout as if it were the answer.
func TestStopLoopOnStderr(t *testing.T) {
	same := llmtest.Turn{Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"a.txt"}`}}}
	srv := llmtest.NewScript(t, same, same, same, same)
	e := newE2E(t, srv, "openai", "")
	e.write("a.txt", "x\n")
	r := e.run(context.Background(), "-p", "read it")
	if r.code != ExitLoop || strings.TrimSpace(r.stdout) != "" {
		t.Fatalf("exit %d stdout %q", r.code, r.stdout)
	}
	if !strings.Contains(r.stderr, "aidex: stopped: the model called read_file with the same arguments 3 times in a row") {
		t.Errorf("stderr %q", r.stderr)
	}
}

// A call no allow rule can let run (a path outside the workspace) gets no
// --allow suggestion, and never a bare run_command rule.
func TestStopDeniedUnfixableLine(t *testing.T) {
	srv := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "run_command", Args: `{"command":"cat ../outside.txt"}`}}},
		llmtest.Turn{Text: "Could not read it."})
	e := newE2E(t, srv, "openai", "")
	r := e.run(context.Background(), "-p", "read it")
	if r.code != ExitDenied || !strings.Contains(r.stderr, `run_command "cat ../outside.txt" was denied by the policy`) ||
		!strings.Contains(r.stderr, "no --allow rule can allow it") || strings.Contains(r.stderr, "--allow '") {
		t.Fatalf("exit %d stderr %q", r.code, r.stderr)
	}
}
