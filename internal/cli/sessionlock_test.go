package cli

import (
	"context"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// aidexProcess starts aidex in a child process (the test binary running
// Main) with e's environment and args; the test's end kills it.
func aidexProcess(t *testing.T, e *e2e, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"-w", e.ws}, args...)...)
	cmd.Env = []string{childEnv + "=1"}
	for k, v := range e.env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, io.Discard, io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return cmd
}

// Two `aidex -c` on one session: while the first runs, the second is
// refused at once with a message naming the session and the first one's
// pid, and sends nothing: the conversation never interleaves.
func TestE2ETwoContinuesOnOneSession(t *testing.T) {
	srv := llmtest.NewScript(t, llmtest.Turn{Text: "Started."}, llmtest.Turn{Text: "Working on it", Hang: true})
	e := newE2E(t, srv, "openai", "")
	if r := e.run(context.Background(), "-p", "start"); r.code != 0 {
		t.Fatalf("first run: %d %s", r.code, r.stderr)
	}
	first := aidexProcess(t, e, "-c", "-p", "long task")
	select {
	case <-srv.Started:
	case <-time.After(20 * time.Second):
		t.Fatal("the first aidex -c never reached the model")
	}
	start := time.Now()
	r := e.run(context.Background(), "-c", "-p", "interleaved prompt")
	if r.code != ExitFailure {
		t.Fatalf("second aidex -c: exit %d, want %d; stderr %q", r.code, ExitFailure, r.stderr)
	}
	want := "is in use by another aidex (pid " + strconv.Itoa(first.Process.Pid) + "); wait for it to finish or start a new session"
	if !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "aidex: session ") {
		t.Errorf("stderr %q, want %q", r.stderr, want)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the second aidex waited %s: it must refuse at once", d)
	}
	for _, req := range srv.Requests() {
		if strings.Contains(string(req), "interleaved prompt") {
			t.Error("the refused prompt reached the model")
		}
	}
}
