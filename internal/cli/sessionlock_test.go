package cli

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zelvior/aidex/internal/filelock"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/session"
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

// Two `aidex -c` started at the same moment, again and again: each either
// runs or is refused as "in use", never both at once (the stored
// conversation alternates prompt and answer, one answer per run that
// went through), and no lock file remains once they are done.
func TestRacingContinuesNeverShareASessionNorLeaveLockFiles(t *testing.T) {
	var turns []llmtest.Turn
	for range 16 {
		turns = append(turns, llmtest.Turn{Text: "ok"})
	}
	srv := llmtest.NewScript(t, turns...)
	e := newE2E(t, srv, "openai", "")
	if r := e.run(context.Background(), "-p", "start"); r.code != 0 {
		t.Fatalf("first run: %d %s", r.code, r.stderr)
	}
	ran := 1
	for round := range 4 {
		var cmds []*exec.Cmd
		var errs []*strings.Builder
		for _, who := range []string{"A", "B"} {
			cmd := exec.Command(os.Args[0], "-w", e.ws, "-c", "-p", "racer "+strconv.Itoa(round)+who)
			cmd.Env = []string{childEnv + "=1"}
			for k, v := range e.env {
				cmd.Env = append(cmd.Env, k+"="+v)
			}
			var errb strings.Builder
			cmd.Stdout, cmd.Stderr = io.Discard, &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			cmds, errs = append(cmds, cmd), append(errs, &errb)
		}
		for i, cmd := range cmds {
			err := cmd.Wait()
			switch {
			case err == nil:
				ran++
			case cmd.ProcessState.ExitCode() == ExitFailure && strings.Contains(errs[i].String(), "is in use by another aidex"):
			default:
				t.Fatalf("racer: %v; stderr %s", err, errs[i])
			}
		}
	}
	locks := filepath.Join(e.env["XDG_DATA_HOME"], "aidex", "locks")
	if left, _ := os.ReadDir(locks); len(left) > 0 {
		t.Errorf("lock files remain: %v", left)
	}
	store, err := session.Open(context.Background(), filepath.Join(e.env["XDG_DATA_HOME"], "aidex"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	sess, err := store.Latest(context.Background(), e.ws)
	if err != nil {
		t.Fatal(err)
	}
	if len(sess.Messages) != 2*ran {
		t.Errorf("%d messages for %d runs", len(sess.Messages), ran)
	}
	for i, m := range sess.Messages {
		if want := []llm.Role{llm.RoleUser, llm.RoleAssistant}[i%2]; m.Role != want {
			t.Fatalf("message %d is %s, want %s: two runs interleaved", i, m.Role, want)
		}
	}
}

// A lock file left by an aidex that died holding it (or by an aidex from
// before lock files were removed) is removed when a later aidex closes;
// one another aidex holds is kept.
func TestStaleSessionLockFilesAreSwept(t *testing.T) {
	srv := llmtest.NewScript(t, llmtest.Turn{Text: "ok"})
	e := newE2E(t, srv, "openai", "")
	locks := filepath.Join(e.env["XDG_DATA_HOME"], "aidex", "locks")
	if err := os.MkdirAll(locks, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"s_dead1.lock", "s_dead2.lock"} {
		if err := os.WriteFile(filepath.Join(locks, name), []byte("12345\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	held, err := filelock.TryLockRemovable(filepath.Join(locks, "s_live.lock"), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	if r := e.run(context.Background(), "-p", "hello"); r.code != 0 {
		t.Fatalf("run: %d %s", r.code, r.stderr)
	}
	left, _ := os.ReadDir(locks)
	if len(left) != 1 || left[0].Name() != "s_live.lock" {
		t.Errorf("lock files after the run: %v, want only the held s_live.lock", left)
	}
}
