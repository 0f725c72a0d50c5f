package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/llm/llmtest"
)

const askDB = `{"questions":[{"question":"Which database?","options":[{"label":"Postgres"},{"label":"SQLite"}]},{"question":"Which files?","kind":"files"}]}`

func writeAnswers(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "answers.json")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestHeadlessAnswersFileAnswersAskUser(t *testing.T) {
	srv := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "ask_user", Args: askDB}}},
		llmtest.Turn{Text: "Using SQLite."})
	e := newE2E(t, srv, "openai", "")
	file := writeAnswers(t, `{"Which database?": "SQLite", "Which files?": ["db.go", "schema.sql"]}`)
	r := e.run(context.Background(), "-p", "set up storage", "--answers", file, "--output-format", "stream-json")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	reqs := srv.Requests()
	if !strings.Contains(string(reqs[0]), `"name":"ask_user"`) {
		t.Fatal("ask_user is not offered with --answers")
	}
	if strings.Contains(string(reqs[0]), agent.NoAskerNote) {
		t.Fatal("the model is told no one can answer although --answers can")
	}
	last := string(reqs[len(reqs)-1])
	if !strings.Contains(last, `\"Which database?\": \"SQLite\"`) || !strings.Contains(last, `\"Which files?\": \"db.go\", \"schema.sql\"`) {
		t.Fatalf("the answers are not the tool result: %s", last)
	}
	var asked, answered bool
	for _, ev := range events(t, r.stdout) {
		if ev["type"] != "interaction" {
			continue
		}
		ia := ev["interaction"].(map[string]any)
		if ia["answer"] == nil {
			asked = ia["questions"] != nil && ia["id"] != ""
			continue
		}
		answered = ia["answer"].(map[string]any)["answers"].(map[string]any)["Which database?"] == "SQLite"
	}
	if !asked || !answered {
		t.Fatalf("stream-json lacks the interaction request (%v) or its answer (%v):\n%s", asked, answered, r.stdout)
	}
}

func TestHeadlessWithoutAnswersTellsTheModel(t *testing.T) {
	srv := llmtest.NewScript(t, llmtest.Turn{Text: "I decided myself."})
	e := newE2E(t, srv, "openai", "")
	if r := e.run(context.Background(), "-p", "set up storage"); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	first := string(srv.Requests()[0])
	if strings.Contains(first, `"name":"ask_user"`) {
		t.Fatal("ask_user is offered although no one can answer")
	}
	if !strings.Contains(first, "The user is not available to answer questions during this run") {
		t.Fatal("the system prompt does not tell the model that no one can answer")
	}
}

func TestHeadlessAnswersFileMissingOrWrongDeclines(t *testing.T) {
	for name, content := range map[string]string{
		"missing": `{"Which database?": "SQLite"}`,
		"unknown": `{"Which database?": "Oracle", "Which files?": []}`,
	} {
		t.Run(name, func(t *testing.T) {
			srv := llmtest.NewScript(t,
				llmtest.Turn{Calls: []llmtest.Call{{Name: "ask_user", Args: askDB}}},
				llmtest.Turn{Text: "ok"})
			e := newE2E(t, srv, "openai", "")
			r := e.run(context.Background(), "-p", "go", "--answers", writeAnswers(t, content))
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			want := map[string]string{"missing": `has no answer to "Which files?"`, "unknown": `"Oracle" is not an option`}[name]
			if !strings.Contains(r.stderr, want) {
				t.Fatalf("stderr %q lacks %q", r.stderr, want)
			}
			reqs := srv.Requests()
			if last := string(reqs[len(reqs)-1]); !strings.Contains(last, "Decide yourself") {
				t.Fatalf("the model is not told to decide: %s", last)
			}
		})
	}
}

func TestAnswersFileUsageErrors(t *testing.T) {
	srv := llmtest.NewScript(t)
	e := newE2E(t, srv, "openai", "")
	cases := map[string]string{
		writeAnswers(t, `["SQLite"]`):             "JSON object mapping each question",
		writeAnswers(t, `{}`):                     "has no answers",
		writeAnswers(t, `{"q": 3}`):               "a string or a list of strings",
		filepath.Join(t.TempDir(), "absent.json"): "no such file",
	}
	for file, want := range cases {
		r := e.run(context.Background(), "-p", "go", "--answers", file)
		if r.code != ExitUsage || !strings.Contains(r.stderr, want) {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 and %q", file, r.code, r.stderr, want)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("a bad --answers file still sent %d requests", n)
	}
	if r := e.run(context.Background(), "--plain", "--answers", writeAnswers(t, `{"q":"a"}`)); r.code != ExitUsage || !strings.Contains(r.stderr, "headless") {
		t.Fatalf("--answers in the line mode: exit %d, %q", r.code, r.stderr)
	}
}
