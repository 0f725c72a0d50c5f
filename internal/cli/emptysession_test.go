package cli

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// runChild runs aidex as its own process (the test binary running Main)
// in e's workspace and environment, with stdin, to its end.
func runChild(t *testing.T, e *e2e, stdin string, args ...string) result {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"-w", e.ws}, args...)...)
	cmd.Env = []string{childEnv + "=1"}
	for k, v := range e.env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var out, errb bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(stdin), &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{code, out.String(), errb.String()}
}

// Every way of starting a session and leaving it without a message (the
// terminal UI opened and quit, the web's "+ New chat", a headless run that
// stops on a usage error before any model request) leaves `aidex -c` on
// the real conversation, and `aidex sessions list` shows only it.
func TestContinueSkipsEmptySessions(t *testing.T) {
	for name, leaveEmpty := range map[string]func(t *testing.T, e *e2e){
		"terminal UI opened and quit": func(t *testing.T, e *e2e) {
			// What the terminal UI does at start: a new session.
			svc, err := app.Start(context.Background(), app.StartOptions{Options: app.Options{Workspace: e.ws, Getenv: func(k string) string { return e.env[k] }}})
			if err != nil {
				t.Fatal(err)
			}
			defer svc.Close()
			if _, err := svc.Pick(context.Background(), "", false); err != nil {
				t.Fatal(err)
			}
		},
		"web + New chat": func(t *testing.T, e *e2e) {
			svc, err := app.Start(context.Background(), app.StartOptions{Options: app.Options{Workspace: e.ws, Getenv: func(k string) string { return e.env[k] }}})
			if err != nil {
				t.Fatal(err)
			}
			defer svc.Close()
			rt := svc.Runtime()
			if _, err := svc.Store().Create(context.Background(), rt.Workspace, rt.Provider.Name, rt.Model); err != nil {
				t.Fatal(err)
			}
		},
		"headless usage error (exit 2)": func(t *testing.T, e *e2e) {
			r := runChild(t, e, "", "-p", "look at this", "--attach", "no-such-file.png")
			if r.code != ExitUsage {
				t.Fatalf("exit %d, want %d; stderr %q", r.code, ExitUsage, r.stderr)
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			srv := llmtest.NewScript(t, llmtest.Turn{Text: "The bug is in parse."}, llmtest.Turn{Text: "Fixed."})
			e := newE2E(t, srv, "openai", "")
			if r := runChild(t, e, "", "-p", "find the bug"); r.code != 0 {
				t.Fatalf("first run: exit %d, stderr %q", r.code, r.stderr)
			}
			leaveEmpty(t, e)
			list := runChild(t, e, "", "sessions", "list")
			if list.code != 0 || strings.Count(strings.TrimSpace(list.stdout), "\n") != 1 || !strings.Contains(list.stdout, "find the bug") {
				t.Errorf("sessions list shows more than the real conversation (exit %d):\n%s%s", list.code, list.stdout, list.stderr)
			}
			r := runChild(t, e, "", "-c", "-p", "fix it")
			if r.code != 0 {
				t.Fatalf("aidex -c: exit %d, stderr %q", r.code, r.stderr)
			}
			last := string(srv.Requests()[len(srv.Requests())-1])
			for _, want := range []string{"find the bug", "The bug is in parse.", "fix it"} {
				if !strings.Contains(last, want) {
					t.Errorf("aidex -c resumed an empty session: its request lacks %q", want)
				}
			}
		})
	}
}
