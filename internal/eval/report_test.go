package eval

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// sampleResults: config A passes task x twice of 2 and y once of 2; B
// fails x, passes y once of 2; z is skipped for both.
func sampleResults() []Result {
	a, b := Config{Agent: "aidex", Model: "p/a"}, Config{Agent: "aidex", Model: "p/b", Settings: []string{"k=v"}}
	r := func(task string, c Config, n int, pass bool, cost float64) Result {
		return Result{Task: task, Config: c, Attempt: n, Pass: pass, Seconds: 2,
			Agent: AgentResult{CostUSD: cost, CostKnown: true, InputTokens: 100, CachedTokens: 10, OutputTokens: 5, TokensKnown: true}}
	}
	return []Result{
		r("x", a, 1, true, 0.10), r("x", a, 2, true, 0.10), r("y", a, 1, true, 0.20), r("y", a, 2, false, 0.20),
		r("x", b, 1, false, 0.01), r("x", b, 2, false, 0.01), r("y", b, 1, false, 0.02), r("y", b, 2, true, 0.02),
		{Task: "z", Config: a, Attempt: 1, Skipped: "needs a container"}, {Task: "z", Config: b, Attempt: 1, Skipped: "needs a container"},
	}
}

func TestSummarize(t *testing.T) {
	rep := Summarize(sampleResults())
	if len(rep.Rows) != 2 {
		t.Fatalf("rows %+v", rep.Rows)
	}
	a, b := rep.Rows[0], rep.Rows[1]
	near := func(x, y float64) bool { return x-y < 1e-9 && y-x < 1e-9 }
	if a.Config != "aidex p/a" || !near(a.Pass1, 0.75) || !near(a.PassK, 1) || a.K != 2 || !near(a.MeanCost, 0.15) || !near(a.CostPerSolved, 0.2) || a.Skipped != 1 {
		t.Errorf("row A %+v", a)
	}
	if b.Config != "aidex p/b k=v" || !near(b.Pass1, 0.25) || !near(b.PassK, 0.5) || !near(b.CostPerSolved, 0.06) || !near(b.InputTokens, 100) {
		t.Errorf("row B %+v", b)
	}
	want := map[string]map[string]string{"x": {"aidex p/a": "2/2", "aidex p/b k=v": "0/2"}, "y": {"aidex p/a": "1/2", "aidex p/b k=v": "1/2"}, "z": {"*": "skipped"}}
	for _, tr := range rep.Tasks {
		for k, v := range want[tr.Task] {
			if tr.Outcomes[k] != v {
				t.Errorf("task %s %s: %q, want %q", tr.Task, k, tr.Outcomes[k], v)
			}
		}
	}
	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil || !strings.Contains(text.String(), "75%") || !strings.Contains(text.String(), "skipped") {
		t.Errorf("text report:\n%s", text.String())
	}
}

func TestCompareFlips(t *testing.T) {
	rs := sampleResults()
	var a, b []Result
	for _, r := range rs {
		if r.Config.Model == "p/a" {
			a = append(a, r)
		} else {
			b = append(b, r)
		}
	}
	flips := Compare(a, b)
	if len(flips) != 1 || flips[0].Task != "x" || flips[0].Gained || flips[0].A != "2/2" || flips[0].B != "0/2" {
		t.Fatalf("flips %+v, want x lost (y passes half in both: not a flip)", flips)
	}
	if back := Compare(b, a); len(back) != 1 || !back[0].Gained {
		t.Fatalf("reverse flips %+v", back)
	}
}

func TestLoadTask(t *testing.T) {
	root := t.TempDir()
	write := func(rel, content string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a/instruction.md", "  Do a.  \n")
	write("a/task.toml", "version = \"1.0\"\n[metadata]\nid = \"task-a\"\ntags = [\"go\"]\nauthor_name = \"x\"\n[agent]\ntimeout_sec = 30.5\n[environment]\ncpus = 2\n")
	write("a/tests/test.sh", "exit 0\n")
	write("b/instruction.md", "b\n")
	write("b/task.toml", "[metadata\n")
	write("b/tests/test.sh", "exit 0\n")
	ta, err := LoadTask(filepath.Join(root, "a"))
	if err != nil || ta.ID != "task-a" || ta.Instruction != "Do a." || ta.AgentTimeout != 30500*time.Millisecond || ta.VerifierTimeout != DefaultVerifierTimeout || ta.Skip != "" {
		t.Fatalf("task a %+v %v", ta, err)
	}
	if _, err := LoadTask(filepath.Join(root, "b")); err == nil || !strings.Contains(err.Error(), "task.toml") {
		t.Errorf("bad task.toml: %v, want an error naming the file", err)
	}
	if _, err := LoadSuite(filepath.Join(root, "a")); err != nil {
		t.Errorf("a task folder is a suite of one: %v", err)
	}
	if _, err := LoadSuite(t.TempDir()); err == nil || !strings.Contains(err.Error(), "holds no task") {
		t.Errorf("empty suite: %v", err)
	}
}

func TestIsTestFile(t *testing.T) {
	for p, want := range map[string]bool{"calc_test.go": true, "pkg/x_test.go": true, "test_calc.py": true, "calc_test.py": true,
		"src/a.test.ts": true, "a.spec.js": true, "tests/data.json": true, "__tests__/x.js": true, "calc.go": false, "latest.py": false,
		"contest/a.go": false, "testdata.go": false} {
		if IsTestFile(p) != want {
			t.Errorf("IsTestFile(%q) = %v", p, !want)
		}
	}
}

func TestHideRefusesPathsOutside(t *testing.T) {
	for _, p := range []string{"../x", "/etc/passwd", "a/../../x"} {
		if err := hide(context.Background(), t.TempDir(), []string{p}); err == nil || !strings.Contains(err.Error(), "not a path inside") {
			t.Errorf("hide %q: %v", p, err)
		}
	}
}

func FuzzParseReport(f *testing.F) {
	f.Add("claude", `{"result":"x","total_cost_usd":1,"usage":{"input_tokens":1}}`)
	f.Add("codex", "{\"type\":\"turn.completed\",\"usage\":{\"input_tokens\":3}}\nnot json\n")
	f.Add("gemini", `{"response":"r","stats":{"models":{"m":{"tokens":{"prompt":2}}}}}`)
	f.Fuzz(func(t *testing.T, agent, out string) {
		// Never a panic; tokens only where the agent reported them; a
		// cost only from the agent that reports one.
		res := ParseReport(agent, []byte(out))
		if !res.TokensKnown && res.InputTokens|res.CachedTokens|res.OutputTokens != 0 {
			t.Fatalf("%s: tokens %+v without TokensKnown", agent, res)
		}
		if res.CostKnown && agent != "claude" {
			t.Fatalf("%s: a cost it does not report", agent)
		}
	})
}
