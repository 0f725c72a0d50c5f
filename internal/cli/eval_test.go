package cli

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/eval"
	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// evalModel is a scripted model per model name: "good" writes each
// task's fix (the FIX: line of the instruction names the file and its
// content), "bad" only talks.
func evalModel(body []byte, _ int) llmtest.Turn {
	var req matrixRequest
	_ = json.Unmarshal(body, &req)
	role, _ := req.last()
	var fix []string
	for _, msg := range req.Messages {
		if m := regexp.MustCompile(`FIX: (\S+) := (.*?)(\\n)?"?$`).FindStringSubmatch(contentText(msg.Content)); msg.Role == "user" && m != nil {
			fix = m
		}
	}
	switch {
	case len(req.Tools) == 0:
		return llmtest.Turn{Text: "a title"}
	case req.Model == "bad":
		return llmtest.Turn{Text: "I would rather not."}
	case fix == nil || req.called("write_file"):
		return llmtest.Turn{Text: "done"}
	case role == "tool": // read it: now write the fix
		args, _ := json.Marshal(map[string]string{"path": fix[1], "content": strings.ReplaceAll(fix[2], `\n`, "\n") + "\n"})
		return llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: string(args)}}}
	}
	args, _ := json.Marshal(map[string]string{"path": fix[1]})
	return llmtest.Turn{Calls: []llmtest.Call{{Name: "read_file", Args: string(args)}}}
}

// evalE2E is a user setup with the good and bad scripted models, priced.
func evalE2E(t *testing.T) *e2e {
	srv := llmtest.NewScript(t)
	srv.Route = evalModel
	e := newE2E(t, srv, "openai", "")
	cfg := filepath.Join(e.home, ".config", "aidex", "config.toml")
	data, _ := os.ReadFile(cfg)
	prices := "\n[providers.fake.models.good]\ninput_price = 1.0\noutput_price = 2.0\n[providers.fake.models.bad]\ninput_price = 1.0\noutput_price = 2.0\n"
	if err := os.WriteFile(cfg, append(data, prices...), 0o600); err != nil {
		t.Fatal(err)
	}
	return e
}

// writeTree writes files (slash paths under root).
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// runID returns the run id `aidex eval run` printed.
func runID(t *testing.T, out string) string {
	t.Helper()
	m := regexp.MustCompile(`run: (run-\S+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no run id in:\n%s", out)
	}
	return m[1]
}

// A suite in the Harbor layout runs with a good and a bad model: the
// good one's attempts pass, the bad one's fail, a task that needs a
// container is skipped; the tests are not in the workspace while the
// agent works; report, HTML and compare show it.
func TestEvalRunReportCompare(t *testing.T) {
	e := evalE2E(t)
	suite := filepath.Join(t.TempDir(), "suite")
	writeTree(t, suite, map[string]string{
		"greet/instruction.md":         "Make greet.txt say goodbye.\nFIX: greet.txt := goodbye\\n\n",
		"greet/task.toml":              "version = \"1.0\"\n[metadata]\ntags = [\"shell\"]\n[agent]\ntimeout_sec = 120\n[verifier]\ntimeout_sec = 60\n[environment]\ndocker_image = \"ignored\"\n",
		"greet/environment/greet.txt":  "hello\n",
		"greet/environment/Dockerfile": "FROM debian\n",
		"greet/tests/test.sh":          "#!/bin/sh\n[ ! -e tests ] || { echo tests leaked; exit 3; }\ngrep -qx goodbye greet.txt\n",
		"greet/solution/solve.sh":      "#!/bin/sh\necho goodbye > greet.txt\n",
		"boxed/instruction.md":         "Anything.\n",
		"boxed/environment/Dockerfile": "FROM debian\n",
		"boxed/tests/test.sh":          "#!/bin/sh\nexit 0\n",
		"notatask/readme.txt":          "ignored\n",
	})
	ctx := context.Background()
	r := e.run(ctx, "eval", "run", suite, "--model", "fake/good", "--model", "fake/bad", "--attempts", "2", "--parallel", "2")
	if r.code != 0 {
		t.Fatalf("eval run: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	id := runID(t, r.stdout)

	rep := evalReport(t, e, id)
	want := map[string]float64{"aidex fake/good": 1, "aidex fake/bad": 0}
	for _, row := range rep.Rows {
		if p, ok := want[row.Config]; !ok || row.Pass1 != p || row.Attempts != 2 || row.Skipped != 2 {
			t.Errorf("row %+v, want pass@1 %v over 2 attempts, 2 skipped; the run printed:\n%s\n%s", row, p, r.stdout, r.stderr)
		}
		if row.MeanCost <= 0 || !row.CostKnown || row.InputTokens <= 0 {
			t.Errorf("row %s: cost %v (known %v), input tokens %v: want the attempts' usage", row.Config, row.MeanCost, row.CostKnown, row.InputTokens)
		}
	}
	if len(rep.Rows) != 2 || len(rep.Tasks) != 2 || rep.Tasks[0].Outcomes["*"] != "skipped" {
		t.Fatalf("report %+v", rep)
	}
	html := filepath.Join(t.TempDir(), "r.html")
	if r := e.run(ctx, "eval", "report", id, "--html", html); r.code != 0 || !strings.Contains(r.stdout, "PASS@1") {
		t.Fatalf("eval report: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	page, _ := os.ReadFile(html)
	for _, w := range []string{`<svg id="chart"`, `class="point"`, `<table id="summary">`, "aidex fake/good", "100%"} {
		if !strings.Contains(string(page), w) {
			t.Errorf("HTML report lacks %q", w)
		}
	}
	if strings.Contains(string(page), "<script") || strings.Contains(string(page), "http://") && !strings.Contains(string(page), "http://www.w3.org/2000/svg") {
		t.Errorf("the HTML report is not self-contained")
	}
	// compare: a good-only run against a bad-only run flips greet.
	a := runID(t, e.run(ctx, "eval", "run", suite, "--model", "fake/good").stdout)
	b := runID(t, e.run(ctx, "eval", "run", suite, "--model", "fake/bad").stdout)
	if r := e.run(ctx, "eval", "compare", a, b); r.code != 0 || !strings.Contains(r.stdout, "- greet  aidex fake/good → aidex fake/bad: 1/1 → 0/1") {
		t.Fatalf("eval compare: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// evalReport reads `aidex eval report RUN --json`.
func evalReport(t *testing.T, e *e2e, id string) eval.Report {
	t.Helper()
	r := e.run(context.Background(), "eval", "report", id, "--json")
	var rep eval.Report
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &rep) != nil {
		t.Fatalf("eval report --json: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	return rep
}

// A scripted stand-in for another agent's headless command (claude -p
// --output-format json) runs the same tasks, in the attempt's workspace,
// and its reported cost and tokens are recorded.
func TestEvalOtherAgentBaseline(t *testing.T) {
	e := evalE2E(t)
	bin := t.TempDir()
	writeTree(t, bin, map[string]string{"claude": `#!/bin/sh
case "$*" in *--dangerously-skip-permissions*) ;; *) echo "not unattended" >&2; exit 9 ;; esac
echo goodbye > greet.txt
echo '{"type":"result","subtype":"success","is_error":false,"result":"done","session_id":"s-1","num_turns":2,"total_cost_usd":0.25,"usage":{"input_tokens":100,"cache_read_input_tokens":40,"output_tokens":7}}'
`})
	e.env["PATH"] = bin + string(os.PathListSeparator) + e.env["PATH"]
	suite := filepath.Join(t.TempDir(), "greet")
	writeTree(t, suite, map[string]string{
		"instruction.md":        "Make greet.txt say goodbye.\n",
		"environment/greet.txt": "hello\n",
		"tests/test.sh":         "#!/bin/sh\ngrep -qx goodbye greet.txt\n",
	})
	t.Setenv("PATH", e.env["PATH"]) // the harness looks the agent up on this process's PATH
	r := e.run(context.Background(), "eval", "run", suite, "--agent", "claude")
	if r.code != 0 {
		t.Fatalf("eval run --agent claude: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	rep := evalReport(t, e, runID(t, r.stdout))
	if len(rep.Rows) != 1 || rep.Rows[0].Pass1 != 1 || rep.Rows[0].MeanCost != 0.25 || rep.Rows[0].CachedTokens != 40 {
		t.Fatalf("report %+v", rep.Rows)
	}
	if r := e.run(context.Background(), "eval", "run", suite, "--agent", "nope"); r.code != 2 || !strings.Contains(r.stderr, "claude, codex, gemini, opencode") {
		t.Errorf("unknown agent: exit %d %s", r.code, r.stderr)
	}
}

// commitAll commits every change in dir with message msg.
func commitAll(t *testing.T, dir, msg string) {
	t.Helper()
	gitIn(t, dir, "add", "-A")
	gitIn(t, dir, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", msg)
}

// A Go and a Python repository with real history: mine finds exactly the
// fixing commits (not one whose tests passed before, nor one without
// tests, nor a test-only one), leaves the working tree and its
// uncommitted change untouched, and the mined tasks pass with the good
// model and fail with the bad one.
func TestEvalMineGoAndPython(t *testing.T) {
	for _, lang := range []struct {
		name, testCmd   string
		start, bugTest  map[string]string
		fix, fixedTests map[string]string
	}{
		// The sandboxed verifier reads the user's Go build cache through
		// (GOCACHEPROG), as a user's warm cache would be: the test's own.
		{name: "go", start: map[string]string{"go.mod": "module calc\n\ngo 1.22\n", "calc.go": "package calc\n\nfunc Add(a, b int) int { return a - b }\n",
			"calc_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestZero(t *testing.T) {\n\tif Add(0, 0) != 0 {\n\t\tt.Fatal(\"zero\")\n\t}\n}\n"},
			fix:        map[string]string{"calc.go": "package calc\n\nfunc Add(a, b int) int { return a + b }\n"},
			fixedTests: map[string]string{"add_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Fatal(Add(2, 3))\n\t}\n}\n"}},
		{name: "python", testCmd: "python3 -m unittest discover -q", start: map[string]string{"calc.py": "def add(a, b):\n    return a - b\n",
			"test_zero.py": "import unittest\nfrom calc import add\n\nclass Zero(unittest.TestCase):\n    def test_zero(self):\n        self.assertEqual(add(0, 0), 0)\n"},
			fix:        map[string]string{"calc.py": "def add(a, b):\n    return a + b\n"},
			fixedTests: map[string]string{"test_add.py": "import unittest\nfrom calc import add\n\nclass Add(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n"}},
	} {
		t.Run(lang.name, func(t *testing.T) {
			tool := map[string]string{"go": "go", "python": "python3"}[lang.name]
			if _, err := exec.LookPath(tool); err != nil {
				t.Skip(tool + " is not installed")
			}
			e := evalE2E(t)
			if lang.name == "go" {
				e.env["GOCACHE"] = goEnv(t, "GOCACHE")
			}
			writeTree(t, e.ws, lang.start)
			commitAll(t, e.ws, "start")
			writeTree(t, e.ws, map[string]string{"README.md": "docs\n"})
			commitAll(t, e.ws, "docs only")
			for name, content := range lang.fix {
				writeTree(t, e.ws, map[string]string{name: content})
			}
			writeTree(t, e.ws, lang.fixedTests)
			commitAll(t, e.ws, "Fix add: it subtracted\n\nFIX: "+firstKey(lang.fix)+" := "+strings.TrimSuffix(strings.ReplaceAll(lang.fix[firstKey(lang.fix)], "\n", `\n`), `\n`))
			writeTree(t, e.ws, map[string]string{"extra_test.go.txt": "x\n"})
			writeTree(t, e.ws, map[string]string{"NOTES.md": "uncommitted\n"})
			before := gitIn(t, e.ws, "status", "--porcelain")
			out := filepath.Join(t.TempDir(), "mined")
			args := []string{"eval", "mine", "--out", out}
			if lang.testCmd != "" {
				args = append(args, "--test-command", lang.testCmd)
			}
			r := e.run(context.Background(), args...)
			if r.code != 0 || !strings.Contains(r.stdout, "1 tasks in") {
				t.Fatalf("eval mine: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			if after := gitIn(t, e.ws, "status", "--porcelain"); after != before {
				t.Fatalf("mine changed the working tree:\nbefore %q\nafter %q", before, after)
			}
			tasks, err := eval.LoadSuite(out)
			if err != nil || len(tasks) != 1 || !strings.HasPrefix(tasks[0].Instruction, "Fix add") {
				t.Fatalf("mined %+v %v", tasks, err)
			}
			r = e.run(context.Background(), "eval", "run", out, "--model", "fake/good", "--model", "fake/bad")
			if r.code != 0 {
				t.Fatalf("eval run: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			rep := evalReport(t, e, runID(t, r.stdout))
			if len(rep.Rows) != 2 || rep.Rows[0].Pass1 != 1 || rep.Rows[1].Pass1 != 0 {
				t.Fatalf("mined task report %+v\n%s", rep.Rows, r.stderr)
			}
		})
	}
}

// firstKey is the only key of m.
func firstKey(m map[string]string) string {
	for k := range m {
		return k
	}
	return ""
}

// goEnv is the value of go env name for the test's own toolchain.
func goEnv(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Fatalf("go env %s: %v", name, err)
	}
	return strings.TrimSpace(string(out))
}
