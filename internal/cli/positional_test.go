package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// `aidex "PROMPT"` with stdout not a terminal runs headless like -p; so
// does a single word that is no command's typo.
func TestPositionalPromptRunsHeadless(t *testing.T) {
	srv := llmtest.NewScript(t, llmtest.Turn{Text: "It is a CLI."}, llmtest.Turn{Text: "Hi."})
	e := newE2E(t, srv, "openai", "")
	r := e.run(context.Background(), "explain", "this repo")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "It is a CLI." {
		t.Fatalf("exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(string(srv.Requests()[0]), "explain this repo") {
		t.Errorf("the prompt did not reach the model: %s", srv.Requests()[0])
	}
	r = e.run(context.Background(), "hello")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "Hi." {
		t.Fatalf("hello: exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
}

// A single word close to a subcommand is an error suggesting it (exit 2),
// and no model is asked.
func TestPositionalTypoSuggestsCommand(t *testing.T) {
	srv := llmtest.NewScript(t)
	e := newE2E(t, srv, "openai", "")
	for word, want := range map[string]string{"sesions": "sessions", "modles": "models", "tols": "tools"} {
		r := e.run(context.Background(), word)
		if r.code != ExitUsage || !strings.Contains(r.stderr, `unknown command "`+word+`"; did you mean "`+want+`"?`) {
			t.Errorf("%s: exit %d stderr %q", word, r.code, r.stderr)
		}
	}
	r := e.run(context.Background(), "-p", "one", "two")
	if r.code != ExitUsage || !strings.Contains(r.stderr, "two prompts") {
		t.Errorf("-p and a positional prompt: exit %d stderr %q", r.code, r.stderr)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d model requests", n)
	}
}

// `aidex exec PROMPT` is -p; --json is --output-format stream-json.
func TestExecIsHeadless(t *testing.T) {
	srv := llmtest.NewScript(t, llmtest.Turn{Text: "Done."}, llmtest.Turn{Text: "Streamed."})
	e := newE2E(t, srv, "openai", "")
	r := e.run(context.Background(), "exec", "do", "it")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "Done." {
		t.Fatalf("exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	r = e.run(context.Background(), "exec", "--json", "stream it")
	evs := events(t, r.stdout)
	if r.code != 0 || evs[0]["type"] != "session" || evs[len(evs)-1]["type"] != "done" {
		t.Fatalf("exit %d stdout %q", r.code, r.stdout)
	}
	r = e.run(context.Background(), "exec", "--json", "--output-format", "json", "x")
	if r.code != ExitUsage {
		t.Errorf("--json with --output-format json: exit %d", r.code)
	}
	r = e.run(context.Background(), "exec")
	if r.code != ExitUsage || !strings.Contains(r.stderr, "the prompt is empty") {
		t.Errorf("no prompt: exit %d stderr %q", r.code, r.stderr)
	}
}
