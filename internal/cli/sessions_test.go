package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// sessions list says when there is none, and heads its table.
func TestSessionsListHeaderAndEmpty(t *testing.T) {
	srv := llmtest.NewScript(t, llmtest.Turn{Text: "hi"})
	e := newE2E(t, srv, "openai", "")
	r := e.run(context.Background(), "sessions", "list")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "no sessions yet in "+e.ws) {
		t.Fatalf("empty: exit %d stdout %q", r.code, r.stdout)
	}
	if r = e.run(context.Background(), "sessions", "list", "--json"); strings.TrimSpace(r.stdout) != "[]" {
		t.Errorf("empty json: %q", r.stdout)
	}
	if r = e.run(context.Background(), "-p", "hello"); r.code != 0 {
		t.Fatalf("run: exit %d stderr %q", r.code, r.stderr)
	}
	r = e.run(context.Background(), "sessions", "list")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "ID ") || !strings.Contains(lines[0], "MODEL") || !strings.Contains(lines[1], "fake/scripted") {
		t.Errorf("list: %q", r.stdout)
	}
}

// An unknown session id is bad input (exit 2) for show, export, delete
// and undo, as for -r.
func TestSessionsUnknownIDIsUsage(t *testing.T) {
	e := newE2E(t, llmtest.NewScript(t), "openai", "")
	for _, args := range [][]string{{"sessions", "show", "nope"}, {"sessions", "export", "nope"}, {"sessions", "delete", "nope"},
		{"undo", "--session", "nope"}, {"-r", "nope", "-p", "x"}} {
		if r := e.run(context.Background(), args...); r.code != ExitUsage || !strings.Contains(r.stderr, "nope") {
			t.Errorf("%v: exit %d stderr %q", args, r.code, r.stderr)
		}
	}
}

// undo in a workspace with no session says so (not "start one without
// --continue"); undoing a file the turn created says it was deleted.
func TestUndoMessages(t *testing.T) {
	srv := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"new.txt","content":"x\n"}`}}},
		llmtest.Turn{Text: "created"})
	e := newE2E(t, srv, "openai", "")
	r := e.run(context.Background(), "undo")
	if r.code != ExitFailure || !strings.Contains(r.stderr, "nothing to undo: no session in "+e.ws+" yet") || strings.Contains(r.stderr, "--continue") {
		t.Fatalf("no session: exit %d stderr %q", r.code, r.stderr)
	}
	if r = e.run(context.Background(), "-p", "create new.txt", "--allow", "write_file(new.txt)"); r.code != 0 {
		t.Fatalf("run: exit %d stderr %q", r.code, r.stderr)
	}
	r = e.run(context.Background(), "undo")
	if r.code != 0 || !strings.Contains(r.stdout, "deleted ") || !strings.Contains(r.stdout, "new.txt (created in that turn)") || strings.Contains(r.stdout, "restored") {
		t.Fatalf("undo: exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
}
