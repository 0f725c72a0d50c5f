package cli

import (
	"context"
	"testing"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// twentyStepTask is a scripted model's side of a 20-step task in the
// fixed workspace (fixedWorkspace plus test.sh): look, read, grep, edit,
// test, fix, test again, then answer.
func twentyStepTask() []llmtest.Turn {
	call := func(name, args string) llmtest.Turn {
		return llmtest.Turn{Calls: []llmtest.Call{{Name: name, Args: args}}}
	}
	return []llmtest.Turn{
		call("list_directory", `{"path":"."}`),
		call("read_file", `{"path":"AGENTS.md"}`),
		call("grep", `{"pattern":"func Add"}`),
		call("read_file", `{"path":"calc.go"}`),
		call("read_file", `{"path":"calc_test.go"}`),
		call("run_command", `{"command":"sh test.sh"}`),
		call("grep", `{"pattern":"Add\\("}`),
		call("edit_file", `{"path":"calc.go","old_string":"return a - b","new_string":"return a * b"}`),
		call("run_command", `{"command":"sh test.sh"}`),
		call("read_file", `{"path":"calc.go"}`),
		call("edit_file", `{"path":"calc.go","old_string":"return a * b","new_string":"return a + b"}`),
		call("run_command", `{"command":"sh test.sh"}`),
		call("read_file", `{"path":"cmd/calc/main.go"}`),
		call("edit_file", `{"path":"cmd/calc/main.go","old_string":"fmt.Println(1)","new_string":"fmt.Println(1 + 2)"}`),
		call("grep", `{"pattern":"Println"}`),
		call("edit_file", `{"path":"calc.go","old_string":"// Add adds.","new_string":"// Add returns a + b."}`),
		call("run_command", `{"command":"sh test.sh"}`),
		call("read_file", `{"path":"calc.go"}`),
		call("run_command", `{"command":"git diff --stat"}`),
		{Text: "Fixed Add (it subtracted); the test passes."},
	}
}

// BenchmarkTwentyStepTask runs the 20-step task headless (an
// OpenAI-compatible local provider, the default tool profile) and reports
// what aidex sent: requests, bytes of the first and of all requests, and
// estimated tokens (bytes / 4, as ../shared/bench/server.py estimates).
// The figures are sizes, not times: one run is enough.
func BenchmarkTwentyStepTask(b *testing.B) {
	var first, total, last, n int
	for b.Loop() {
		srv := llmtest.NewScript(b, twentyStepTask()...)
		e := newE2E(b, srv, "openai", "")
		fixedWorkspace(e)
		e.write("test.sh", "grep -q 'return a + b' calc.go && echo PASS || { echo FAIL; exit 1; }\n")
		if r := e.run(context.Background(), "-p", "Fix the failing test.", "--permission-mode", "auto-edit", "--allow", "run_command(sh test.sh)",
			"--allow", "run_command(git diff --stat)"); r.code != 0 {
			b.Fatalf("exit %d: %s%s", r.code, r.stdout, r.stderr)
		}
		reqs := srv.Requests()
		n, first, total, last = len(reqs), len(reqs[0]), 0, len(reqs[len(reqs)-1])
		for _, r := range reqs {
			total += len(r)
		}
	}
	if n != 20 {
		b.Fatalf("%d requests, want 20", n)
	}
	b.ReportMetric(float64(n), "requests")
	b.ReportMetric(float64(first), "first-bytes")
	b.ReportMetric(float64(last), "last-bytes")
	b.ReportMetric(float64(total), "total-bytes")
	b.ReportMetric(float64(total/4), "est-tokens")
}
