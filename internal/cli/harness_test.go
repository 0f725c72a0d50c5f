package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/eval"
	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/tools/file"
)

// verifyTurns write a file, finish, get the failed check, write the file
// the check wants, and finish again.
func verifyTurns() []llmtest.Turn {
	return []llmtest.Turn{
		{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"a.txt","content":"a\n"}`}}},
		{Text: "done"},
		{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"ok.txt","content":"ok\n"}`}}},
		{Text: "fixed"},
	}
}

type verifyJSON struct {
	Result       string `json:"result"`
	Verified     string `json:"verified"`
	VerifyReason string `json:"verify_reason"`
	Harness      struct {
		Verify        bool   `json:"verify"`
		VerifyCommand string `json:"verify_command"`
	} `json:"harness"`
}

// Verify before finishing through the headless JSON: the check
// (verify_command) fails, the model gets it once, fixes the file, and the
// run reports verified true with the setting in its harness record.
func TestHeadlessVerifyBeforeFinishing(t *testing.T) {
	srv := llmtest.NewScript(t, verifyTurns()...)
	e := newE2E(t, srv, "openai", "verify_command = \"test -f ok.txt\"\n"+noSandbox)
	r := e.run(context.Background(), "-p", "write", "--output-format", "json", "--permission-mode", "yolo", "--set", "harness.verify=true")
	var res verifyJSON
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("%v: %s %s", err, r.stdout, r.stderr)
	}
	if r.code != ExitOK || res.Verified != "true" || res.Result != "fixed" || !res.Harness.Verify || res.Harness.VerifyCommand != "test -f ok.txt" {
		t.Fatalf("exit %d: %s", r.code, r.stdout)
	}
	reqs := srv.Requests()
	if len(reqs) != 4 || !strings.Contains(string(reqs[2]), "`test -f ok.txt` on your changes, and it failed (exited 1)") {
		t.Errorf("the third request does not carry the failed check: %d requests", len(reqs))
	}
}

// Off by default: verified none with the reason, the harness record says
// verify false, no check ran (the model's first answer ends the run).
func TestHeadlessVerifyOffByDefault(t *testing.T) {
	srv := llmtest.NewScript(t, verifyTurns()...)
	e := newE2E(t, srv, "openai", "verify_command = \"test -f ok.txt\"\n"+noSandbox)
	r := e.run(context.Background(), "-p", "write", "--output-format", "stream-json", "--permission-mode", "yolo")
	evs := events(t, r.stdout)
	done := evs[len(evs)-1]["done"].(map[string]any)
	h, _ := done["harness"].(map[string]any)
	if r.code != ExitOK || done["verified"] != "none" || !strings.Contains(done["verify_reason"].(string), "off") || h == nil || h["verify"] != false {
		t.Fatalf("exit %d done %v", r.code, done)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
}

// --require-verified: a check that still fails after the one retry exits
// 7 with the reason; the answer is still printed.
func TestRequireVerifiedExitCode(t *testing.T) {
	turns := verifyTurns()
	turns[2].Calls[0].Args = `{"path":"b.txt","content":"b\n"}`
	srv := llmtest.NewScript(t, turns...)
	e := newE2E(t, srv, "openai", "verify_command = \"test -f ok.txt\"\n"+noSandbox)
	r := e.run(context.Background(), "-p", "write", "--output-format", "json", "--permission-mode", "yolo", "--require-verified")
	var res verifyJSON
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("%v: %s", err, r.stdout)
	}
	if r.code != ExitUnverified || res.Verified != "false" || !strings.Contains(r.stderr, "not verified (verified false): `test -f ok.txt` exited 1") {
		t.Fatalf("exit %d: %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
}

// A detected test command the policy would not let the model run is not
// run: verified none, naming the command and the rule to allow it.
func TestVerifyDetectedCommandNeedsThePolicy(t *testing.T) {
	srv := llmtest.NewScript(t, verifyTurns()...)
	e := newE2E(t, srv, "openai", noSandbox)
	e.write("go.mod", "module x\n")
	r := e.run(context.Background(), "-p", "write", "--output-format", "json", "--permission-mode", "auto-edit", "--set", "harness.verify=true")
	var res verifyJSON
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("%v: %s", err, r.stdout)
	}
	if res.Verified != "none" || !strings.Contains(res.VerifyReason, "detected `go test ./...`, but the run's policy would not let the model run it") {
		t.Fatalf("exit %d: %s", r.code, r.stdout)
	}
}

// `aidex eval run --setting harness.verify=true` records the setting in
// force and the outcome in every attempt's results line.
func TestEvalRecordsTheHarness(t *testing.T) {
	e := evalE2E(t)
	suite := filepath.Join(t.TempDir(), "suite")
	writeTree(t, suite, map[string]string{
		"greet/instruction.md":        "Make greet.txt say goodbye.\nFIX: greet.txt := goodbye\\n\n",
		"greet/task.toml":             "version = \"1.0\"\n",
		"greet/environment/greet.txt": "hello\n",
		"greet/tests/test.sh":         "#!/bin/sh\ngrep -qx goodbye greet.txt\n",
	})
	for _, tc := range []struct {
		args   []string
		verify bool
	}{{nil, false}, {[]string{"--setting", "harness.verify=true", "--setting", "harness.time_notes=true"}, true}} {
		r := e.run(context.Background(), append([]string{"eval", "run", suite, "--model", "fake/good"}, tc.args...)...)
		if r.code != 0 {
			t.Fatalf("eval run: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
		}
		rs, err := eval.ReadResults(filepath.Join(e.home, ".local", "state", "aidex", "eval", "runs", runID(t, r.stdout)))
		if err != nil || len(rs) != 1 {
			t.Fatalf("results %v %v", rs, err)
		}
		var h struct {
			Verify    bool
			TimeNotes bool `json:"time_notes"`
		}
		if err := json.Unmarshal(rs[0].Agent.Harness, &h); err != nil || h.Verify != tc.verify || h.TimeNotes != tc.verify || rs[0].Agent.Verified != "none" {
			t.Errorf("%v: harness %s verified %q, want verify %v", tc.args, rs[0].Agent.Harness, rs[0].Agent.Verified, tc.verify)
		}
	}
}

// harness.failure_loops through a headless run: the same failing command
// four times, with reads between, stops the run with exit 6 and stop
// reason loop, and the record shows the setting.
func TestHeadlessFailureLoops(t *testing.T) {
	fail := llmtest.Turn{Calls: []llmtest.Call{{Name: "run_command", Args: `{"command":"exit 3"}`}}}
	read := llmtest.Turn{Calls: []llmtest.Call{{Name: "list_files", Args: `{}`}}}
	srv := llmtest.NewScript(t, fail, read, fail, read, fail, read, fail, llmtest.Turn{Text: "never"})
	e := newE2E(t, srv, "openai", noSandbox)
	r := e.run(context.Background(), "-p", "run", "--output-format", "json", "--permission-mode", "yolo", "--set", "harness.failure_loops=true")
	var res struct {
		StopReason string   `json:"stop_reason"`
		Errors     []string `json:"errors"`
		Harness    struct {
			FailureLoops bool `json:"failure_loops"`
		} `json:"harness"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("%v: %s", err, r.stdout)
	}
	if r.code != ExitLoop || res.StopReason != "loop" || !res.Harness.FailureLoops || len(res.Errors) != 1 ||
		res.Errors[0] != "stopped: the command `exit 3` failed 4 times with the same arguments; the model was nudged after the third" {
		t.Fatalf("exit %d: %s", r.code, r.stdout)
	}
}

// harness.plan_after through a headless run: after 2 calls without a
// plan the model is asked once to write one, and the record shows it.
func TestHeadlessPlanNudge(t *testing.T) {
	read := func(args string) llmtest.Turn {
		return llmtest.Turn{Calls: []llmtest.Call{{Name: "list_files", Args: args}}}
	}
	srv := llmtest.NewScript(t, read(`{}`), read(`{"path":"."}`), read(`{}`), llmtest.Turn{Text: "done"})
	e := newE2E(t, srv, "openai", noSandbox)
	r := e.run(context.Background(), "-p", "look", "--output-format", "json", "--set", "harness.plan_after=2", "--set", "harness.parallel_reads=1")
	var res struct {
		Harness struct {
			PlanAfter     int `json:"plan_after"`
			ParallelReads int `json:"parallel_reads"`
		} `json:"harness"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || r.code != ExitOK || res.Harness.PlanAfter != 2 || res.Harness.ParallelReads != 1 {
		t.Fatalf("exit %d: %s %v", r.code, r.stdout, err)
	}
	const ask = "you have made 2 tool calls without a plan"
	for i, req := range srv.Requests() {
		if got := strings.Count(string(req), ask); got != map[bool]int{true: 1, false: 0}[i >= 2] {
			t.Errorf("request %d carries the ask %d times", i+1, got)
		}
	}
}

// harness.edit_format=hashline: the model is offered edit_lines (not
// edit_file), read_file shows LINE#HASH|text, an anchored edit applies,
// a stale one is refused with the current lines, and the record says
// hashline; the default offers edit_file and records replace.
func TestHeadlessHashlineEdits(t *testing.T) {
	const src = "alpha\nbeta\n"
	edit := func(anchor, content string) llmtest.Turn {
		return llmtest.Turn{Calls: []llmtest.Call{{Name: "edit_lines", Args: `{"path":"a.txt","start":"` + anchor + `","content":"` + content + `"}`}}}
	}
	srv := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"a.txt"}`}}},
		edit("2#"+file.LineHash("beta"), "BETA"),
		edit("2#"+file.LineHash("beta"), "again"), // stale now
		llmtest.Turn{Text: "done"})
	e := newE2E(t, srv, "openai", noSandbox)
	e.write("a.txt", src)
	r := e.run(context.Background(), "-p", "edit", "--output-format", "json", "--permission-mode", "yolo", "--set", "harness.edit_format=hashline")
	var res struct {
		Harness struct {
			EditFormat string `json:"edit_format"`
		} `json:"harness"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || r.code != ExitOK || res.Harness.EditFormat != "hashline" {
		t.Fatalf("exit %d: %s %v", r.code, r.stdout, err)
	}
	if got, _ := os.ReadFile(filepath.Join(e.ws, "a.txt")); string(got) != "alpha\nBETA\n" {
		t.Errorf("a.txt %q", got)
	}
	reqs := srv.Requests()
	first, second, last := string(reqs[0]), string(reqs[1]), string(reqs[3])
	if !strings.Contains(first, `"edit_lines"`) || strings.Contains(first, `"name":"edit_file"`) || !strings.Contains(first, "Edit format: read_file shows each line as LINE#HASH|text") {
		t.Errorf("the tools and prompt of a hashline run: %.400s", first)
	}
	if !strings.Contains(second, "1#"+file.LineHash("alpha")+"|alpha") {
		t.Errorf("read_file did not show hashes")
	}
	if !strings.Contains(last, "is stale: line 2 is now 2#"+file.LineHash("BETA")) {
		t.Errorf("the stale anchor was not refused with the current line")
	}

	srv = llmtest.NewScript(t, llmtest.Turn{Text: "hi"})
	e = newE2E(t, srv, "openai", noSandbox)
	r = e.run(context.Background(), "-p", "hi", "--output-format", "json")
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || res.Harness.EditFormat != "replace" {
		t.Fatalf("default: %s %v", r.stdout, err)
	}
	if req := string(srv.Requests()[0]); !strings.Contains(req, `"name":"edit_file"`) || strings.Contains(req, `"edit_lines"`) || strings.Contains(req, `"apply_patch"`) {
		t.Errorf("the default offers edit_lines or apply_patch, or not edit_file")
	}
}

// harness.edit_format=patch: the model is offered apply_patch (not
// edit_file) and told the format; a patch applies, one that does not
// apply changes nothing and says why, one naming a path outside the
// workspace is refused by the policy before it runs; the record says
// patch.
func TestHeadlessPatchEdits(t *testing.T) {
	patch := func(p string) llmtest.Turn {
		args, _ := json.Marshal(map[string]string{"input": p})
		return llmtest.Turn{Calls: []llmtest.Call{{Name: "apply_patch", Args: string(args)}}}
	}
	srv := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"a.txt"}`}}},
		patch("*** Begin Patch\n*** Update File: a.txt\n@@\n alpha\n-beta\n+BETA\n*** Add File: b.txt\n+new\n*** End Patch"),
		patch("*** Begin Patch\n*** Update File: a.txt\n-beta\n+again\n*** End Patch"), // beta is gone
		patch("*** Begin Patch\n*** Add File: ../outside.txt\n+x\n*** End Patch"),
		llmtest.Turn{Text: "done"})
	e := newE2E(t, srv, "openai", noSandbox)
	e.write("a.txt", "alpha\nbeta\n")
	r := e.run(context.Background(), "-p", "edit", "--output-format", "json", "--permission-mode", "yolo", "--set", "harness.edit_format=patch")
	var res struct {
		Harness struct {
			EditFormat string `json:"edit_format"`
		} `json:"harness"`
		Denials []struct {
			Tool  string   `json:"tool"`
			Paths []string `json:"paths"`
			Rule  string   `json:"rule"`
		} `json:"denials"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || r.code != ExitDenied || res.Harness.EditFormat != "patch" {
		t.Fatalf("exit %d: %s %v", r.code, r.stdout, err)
	}
	if len(res.Denials) != 1 || res.Denials[0].Tool != "apply_patch" || res.Denials[0].Rule != "workspace confinement" ||
		!slices.Equal(res.Denials[0].Paths, []string{"../outside.txt"}) {
		t.Errorf("the escaping patch was not denied by confinement: %+v", res.Denials)
	}
	if got, _ := os.ReadFile(filepath.Join(e.ws, "a.txt")); string(got) != "alpha\nBETA\n" {
		t.Errorf("a.txt %q", got)
	}
	if got, _ := os.ReadFile(filepath.Join(e.ws, "b.txt")); string(got) != "new\n" {
		t.Errorf("b.txt %q", got)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(e.ws), "outside.txt")); err == nil {
		t.Errorf("the patch wrote outside the workspace")
	}
	reqs := srv.Requests()
	first, third, fourth, last := string(reqs[0]), string(reqs[2]), string(reqs[3]), string(reqs[4])
	if !strings.Contains(first, `"name":"apply_patch"`) || strings.Contains(first, `"name":"edit_file"`) || !strings.Contains(first, "Edit format: change files with apply_patch") {
		t.Errorf("the tools and prompt of a patch run: %.400s", first)
	}
	if !strings.Contains(third, `Applied the patch:\nM a.txt\nA b.txt`) {
		t.Errorf("the patch's result: %.2000s", third)
	}
	if !strings.Contains(fourth, "the patch was not applied (nothing was changed): a.txt: chunk at patch line 3: these lines are not in the file") {
		t.Errorf("the stale patch was not refused with the reason: %.3000s", fourth)
	}
	if !strings.Contains(last, "outside") || strings.Contains(last, "Applied the patch:\\nA ../outside.txt") {
		t.Errorf("the escaping patch: %.3000s", last)
	}
}

// harness.output_handles: a command output cut to head and tail is saved
// whole, its result names a handle, the model reads the middle with
// read_output, and the record says so; by default read_output is not
// offered and the cut marker is as before.
func TestHeadlessOutputHandles(t *testing.T) {
	handle := regexp.MustCompile(`read_output \{\\"id\\": \\"(o[0-9a-f]{8})\\", \\"offset\\": (\d+)\}`)
	srv := llmtest.NewScript(t)
	srv.Route = func(body []byte, n int) llmtest.Turn {
		switch m := handle.FindSubmatch(body); {
		case n == 1:
			return llmtest.Turn{Calls: []llmtest.Call{{Name: "run_command", Args: `{"command":"seq 1 100000"}`}}}
		case n == 2 && m != nil:
			return llmtest.Turn{Calls: []llmtest.Call{{Name: "read_output", Args: `{"id":"` + string(m[1]) + `","offset":50000,"limit":2}`}}}
		}
		return llmtest.Turn{Text: "done"}
	}
	e := newE2E(t, srv, "openai", noSandbox)
	r := e.run(context.Background(), "-p", "count", "--output-format", "json", "--permission-mode", "yolo", "--set", "harness.output_handles=true")
	var res struct {
		Harness struct {
			OutputHandles bool `json:"output_handles"`
		} `json:"harness"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || r.code != ExitOK || !res.Harness.OutputHandles {
		t.Fatalf("exit %d: %s %v", r.code, r.stdout, err)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 || !strings.Contains(string(reqs[0]), `"name":"read_output"`) {
		t.Fatalf("%d requests; read_output offered: %v", len(reqs), strings.Contains(string(reqs[0]), `"name":"read_output"`))
	}
	if !strings.Contains(string(reqs[2]), `50000\t50000\n 50001\t50001\n[lines 50000-50001 of 100000`) {
		t.Errorf("read_output did not read the middle of the whole output: %.600s", reqs[2])
	}

	srv = llmtest.NewScript(t, llmtest.Turn{Calls: []llmtest.Call{{Name: "run_command", Args: `{"command":"seq 1 100000"}`}}}, llmtest.Turn{Text: "done"})
	e = newE2E(t, srv, "openai", noSandbox)
	r = e.run(context.Background(), "-p", "count", "--output-format", "json", "--permission-mode", "yolo")
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || r.code != ExitOK || res.Harness.OutputHandles {
		t.Fatalf("default: exit %d: %s %v", r.code, r.stdout, err)
	}
	reqs = srv.Requests()
	if strings.Contains(string(reqs[0]), `"read_output"`) || !strings.Contains(string(reqs[1]), ` characters cut ...]`) || handle.Match(reqs[1]) {
		t.Errorf("the default offers read_output or changed the cut marker")
	}
}

// A model's [providers.NAME.models.MODEL] table chooses its edit format;
// harness.edit_format is over it.
func TestModelTableEditFormat(t *testing.T) {
	for _, c := range []struct{ set, want, tool string }{{"", "patch", "apply_patch"}, {"harness.edit_format=replace", "replace", "edit_file"}} {
		srv := llmtest.NewScript(t, llmtest.Turn{Text: "hi"})
		e := newE2E(t, srv, "openai", noSandbox+"\n[providers.fake.models.scripted]\nedit_format = \"patch\"\n")
		args := []string{"-p", "hi", "--output-format", "json"}
		if c.set != "" {
			args = append(args, "--set", c.set)
		}
		r := e.run(context.Background(), args...)
		var res struct {
			Harness struct {
				EditFormat string `json:"edit_format"`
			} `json:"harness"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || res.Harness.EditFormat != c.want {
			t.Fatalf("%q: exit %d: %s %v", c.set, r.code, r.stdout, err)
		}
		if !strings.Contains(string(srv.Requests()[0]), `"name":"`+c.tool+`"`) {
			t.Errorf("%q: %s is not offered", c.set, c.tool)
		}
	}
}
