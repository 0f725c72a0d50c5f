package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/ui/chat"
)

// A headless run reports the checkpoint it took; checkpoints list shows
// it with its prompt and files; rewind to it puts the files back and
// cuts the conversation; an unknown id is bad input (exit 2).
func TestCheckpointsListAndRewind(t *testing.T) {
	srv := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "run_command", Args: `{"command":"rm a.txt && echo new > b.txt"}`}}},
		llmtest.Turn{Text: "done"})
	e := newE2E(t, srv, "openai", "")
	e.write("a.txt", "original\n")
	ctx := context.Background()
	r := e.run(ctx, "-p", "tidy up", "--permission-mode", "yolo", "--output-format", "json")
	if r.code != ExitOK {
		t.Fatalf("run: exit %d stderr %s", r.code, r.stderr)
	}
	var out struct {
		SessionID   string   `json:"session_id"`
		Checkpoints []string `json:"checkpoints"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || len(out.Checkpoints) != 1 {
		t.Fatalf("json output: %v\n%s", err, r.stdout)
	}
	id := out.Checkpoints[0]

	r = e.run(ctx, "checkpoints", "list", "--json", "--session", out.SessionID)
	var cps []struct {
		ID     string   `json:"id"`
		Prompt string   `json:"prompt"`
		Files  []string `json:"files"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &cps); err != nil || r.code != ExitOK {
		t.Fatalf("list --json: exit %d %v\n%s%s", r.code, err, r.stdout, r.stderr)
	}
	if len(cps) != 1 || cps[0].ID != id || cps[0].Prompt != "tidy up" || strings.Join(cps[0].Files, ",") != "a.txt,b.txt" {
		t.Fatalf("list --json = %+v", cps)
	}
	r = e.run(ctx, "checkpoints", "list")
	if r.code != ExitOK || !strings.Contains(r.stdout, id) || !strings.Contains(r.stdout, "tidy up") {
		t.Fatalf("list: exit %d\n%s", r.code, r.stdout)
	}

	if r = e.run(ctx, "rewind", "nosuchid"); r.code != ExitUsage || !strings.Contains(r.stderr, "nosuchid") {
		t.Fatalf("unknown id: exit %d stderr %s", r.code, r.stderr)
	}
	if r = e.run(ctx, "rewind", id, "--code", "--conversation"); r.code != ExitUsage {
		t.Fatalf("two scopes: exit %d stderr %s", r.code, r.stderr)
	}
	rewindElsewhere(t, e, id)
	r = e.run(ctx, "rewind", id)
	if r.code != ExitOK || !strings.Contains(r.stdout, "restored a.txt") || !strings.Contains(r.stdout, "deleted b.txt") ||
		!strings.Contains(r.stdout, "conversation: 0 messages kept") {
		t.Fatalf("rewind: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if e.read("a.txt") != "original\n" {
		t.Fatalf("a.txt = %q", e.read("a.txt"))
	}
	if _, err := os.Stat(filepath.Join(e.ws, "b.txt")); !os.IsNotExist(err) {
		t.Fatalf("b.txt still there: %v", err)
	}
	r = e.run(ctx, "sessions", "export", out.SessionID, "--format", "json")
	var exported struct{ Messages []json.RawMessage }
	if err := json.Unmarshal([]byte(r.stdout), &exported); err != nil || len(exported.Messages) != 0 {
		t.Fatalf("the conversation was not cut (%v):\n%s%s", err, r.stdout, r.stderr)
	}
}

// An empty workspace says how checkpoints come about.
func TestCheckpointsListEmpty(t *testing.T) {
	e := newE2E(t, llmtest.NewScript(t), "openai", "")
	r := e.run(context.Background(), "checkpoints", "list")
	if r.code != ExitOK || !strings.Contains(r.stdout, "no checkpoints yet") {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r = e.run(context.Background(), "checkpoints", "list", "--json"); strings.TrimSpace(r.stdout) != "[]" {
		t.Fatalf("--json: %q", r.stdout)
	}
}

// rewindElsewhere checks that a rewind of checkpoint id from another
// workspace is refused (exit 2) and names the checkpoint's workspace.
func rewindElsewhere(t *testing.T, e *e2e, id string) {
	t.Helper()
	var errb strings.Builder
	code := Main(Process{Chat: chat.Run, Context: context.Background(), Args: []string{"-w", t.TempDir(), "rewind", id}, Stdin: strings.NewReader(""),
		Stdout: &strings.Builder{}, Stderr: &errb, Getenv: func(k string) string { return e.env[k] }})
	if code != ExitUsage || !strings.Contains(errb.String(), "is of workspace "+e.ws) {
		t.Fatalf("rewind from another workspace: exit %d stderr %s", code, errb.String())
	}
}

// aidex undo puts back what a command changed (rm, a new file).
func TestUndoRestoresCommandChanges(t *testing.T) {
	srv := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "run_command", Args: `{"command":"rm a.txt && touch b.txt"}`}}},
		llmtest.Turn{Text: "done"})
	e := newE2E(t, srv, "openai", "")
	e.write("a.txt", "original\n")
	ctx := context.Background()
	if r := e.run(ctx, "-p", "clean", "--permission-mode", "yolo"); r.code != ExitOK {
		t.Fatalf("run: exit %d stderr %s", r.code, r.stderr)
	}
	r := e.run(ctx, "undo")
	want := "restored " + filepath.Join(e.ws, "a.txt")
	if r.code != ExitOK || !strings.Contains(r.stdout, want) || !strings.Contains(r.stdout, "deleted "+filepath.Join(e.ws, "b.txt")) {
		t.Fatalf("undo: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if e.read("a.txt") != "original\n" {
		t.Fatalf("a.txt = %q", e.read("a.txt"))
	}
	if _, err := os.Stat(filepath.Join(e.ws, "b.txt")); !os.IsNotExist(err) {
		t.Fatalf("b.txt still there: %v", err)
	}
}
