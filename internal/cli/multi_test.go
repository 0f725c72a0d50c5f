package cli

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// A headless parallel turn (--models, --multi) asks both models, labels
// their events, and keeps the first answer in list order; --keep all
// keeps both. A bad --multi or --keep is a usage error.
func TestHeadlessParallelKeepsFirstUnlessKeepAll(t *testing.T) {
	srv := llmtest.NewScript(t)
	e := newE2E(t, srv, "openai", "")
	ctx := context.Background()
	r := e.run(ctx, "-p", "q", "--models", "fake/a,fake/b", "--multi", "parallel", "--output-format", "stream-json")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	evs := events(t, r.stdout)
	byModel := map[string]int{}
	var sessionID string
	for _, ev := range evs {
		if ev["type"] == "text" {
			byModel[ev["model"].(string)]++
		}
		if ev["type"] == "session" {
			sessionID = ev["session_id"].(string)
		}
	}
	if byModel["fake/a"] == 0 || byModel["fake/b"] == 0 || evs[len(evs)-1]["type"] != "done" {
		t.Fatalf("text events by model %v, last %v", byModel, evs[len(evs)-1]["type"])
	}
	if got := keptModels(t, e, sessionID); len(got) != 1 || got[0] != "fake/a" {
		t.Fatalf("kept %v, want the first in list order, fake/a", got)
	}
	r = e.run(ctx, "-c", "-p", "q2", "--models", "fake/a,fake/b", "--multi", "parallel", "--keep", "all")
	if r.code != 0 {
		t.Fatalf("--keep all: exit %d: %s", r.code, r.stderr)
	}
	if got := keptModels(t, e, sessionID); len(got) != 3 || got[1] != "fake/a" || got[2] != "fake/b" {
		t.Fatalf("after --keep all: %v, want fake/a then fake/a, fake/b", got)
	}
	for _, bad := range [][]string{{"--multi", "zigzag"}, {"--keep", "some"}, {"--models", "fake/a effort=extreme"}} {
		if r := e.run(ctx, append([]string{"-p", "q"}, bad...)...); r.code != ExitUsage {
			t.Errorf("%v: exit %d, want %d (%s)", bad, r.code, ExitUsage, r.stderr)
		}
	}
}

// keptModels returns the models of the session's assistant messages.
func keptModels(t *testing.T, e *e2e, id string) []string {
	t.Helper()
	r := e.run(context.Background(), "sessions", "export", id, "--format", "json")
	if r.code != 0 {
		t.Fatalf("export: exit %d: %s", r.code, r.stderr)
	}
	var doc struct {
		Messages []struct {
			Role  string `json:"role"`
			Model string `json:"model"`
		} `json:"messages"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("export: %v\n%s", err, r.stdout)
	}
	var out []string
	for _, m := range doc.Messages {
		if m.Role == "assistant" {
			out = append(out, m.Model)
		}
	}
	return out
}

// `-c` comes back on the conversation mode and active models the session
// last used (issue 30 item 10); flags win.
func TestContinueRestoresConversationMode(t *testing.T) {
	srv := llmtest.NewScript(t)
	e := newE2E(t, srv, "openai", "")
	ctx := context.Background()
	if r := e.run(ctx, "-p", "q", "--models", "fake/a,fake/b", "--multi", "parallel"); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	asked := func(args ...string) map[string]int {
		t.Helper()
		r := e.run(ctx, append(args, "--output-format", "stream-json")...)
		if r.code != 0 {
			t.Fatalf("%v: exit %d: %s", args, r.code, r.stderr)
		}
		by := map[string]int{}
		for _, ev := range events(t, r.stdout) {
			if ev["type"] == "waiting" {
				m, _ := ev["model"].(string)
				by[m]++
			}
		}
		return by
	}
	if by := asked("-c", "-p", "q2"); by["fake/a"] == 0 || by["fake/b"] == 0 {
		t.Fatalf("-c asked %v, want both active models (parallel, as the session last ran)", by)
	}
	if by := asked("-c", "-p", "q3", "--multi", "single"); by["fake/b"] != 0 || len(by) != 1 {
		t.Fatalf("-c --multi single asked %v, want the model alone (flags win)", by)
	}
	if by := asked("-c", "-p", "q4"); by["fake/b"] != 0 || len(by) != 1 {
		t.Fatalf("-c after a single turn asked %v, want the model alone (the mode last used)", by)
	}
}
