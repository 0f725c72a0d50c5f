//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// chatFixture is an aidex built into its own folder, where a test puts
// what stands for aidex-chat, and a runner with its own HOME.
type chatFixture struct {
	t             *testing.T
	bin, chat, ws string
	env           []string
}

func newChatFixture(t *testing.T) *chatFixture {
	if testing.Short() {
		t.Skip("builds aidex")
	}
	dir := t.TempDir()
	f := &chatFixture{t: t, bin: filepath.Join(dir, "aidex"), chat: filepath.Join(dir, "aidex-chat"), ws: t.TempDir()}
	if out, err := exec.Command("go", "build", "-o", f.bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	home := t.TempDir()
	f.env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, "config"),
		"XDG_DATA_HOME="+filepath.Join(home, "data"), "XDG_STATE_HOME="+filepath.Join(home, "state"),
		"AIDEX_TEST_MARK=passed-on", "PATH=/usr/bin:/bin")
	return f
}

// run runs aidex -w WS args... and returns its stdout, stderr and exit code.
func (f *chatFixture) run(args ...string) (string, string, int) {
	cmd := exec.Command(f.bin, append([]string{"-w", f.ws}, args...)...)
	cmd.Env = f.env
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return stdout.String(), stderr.String(), ee.ExitCode()
	} else if err != nil {
		f.t.Fatal(err)
	}
	return stdout.String(), stderr.String(), 0
}

// An interactive session is handed to aidex-chat beside aidex, with the
// same command line and environment and aidex's version; without one,
// aidex says where it looked and how to install it, and exits 2.
func TestInteractiveSessionStartsAidexChat(t *testing.T) {
	f := newChatFixture(t)
	_, stderr, code := f.run("chat", "hello there")
	if code != 2 || !strings.Contains(stderr, "aidex-chat") || !strings.Contains(stderr, "go install ./cmd/...") {
		t.Errorf("without aidex-chat: exit %d, stderr %q; want exit 2 naming aidex-chat and how to install it", code, stderr)
	}
	script := "#!/bin/sh\necho \"chat:$*:$AIDEX_TEST_MARK:${AIDEX_CHAT_HANDOFF%% *}\"\n"
	if err := os.WriteFile(f.chat, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"chat", "hello there"}, {"--plain"}, {"-c"}} {
		stdout, stderr, code := f.run(args...)
		if want := "chat:-w " + f.ws + " " + strings.Join(args, " ") + ":passed-on:dev\n"; code != 0 || stdout != want {
			t.Errorf("aidex %q: exit %d, stdout %q, stderr %q; want aidex-chat run with the same arguments and environment: %q",
				args, code, stdout, stderr, want)
		}
	}
	// A headless run and other commands stay in aidex.
	if stdout, _, _ := f.run("--version"); strings.Contains(stdout, "chat:") {
		t.Errorf("aidex --version went to aidex-chat: %q", stdout)
	}
}

// A link or a copy of aidex under the chat's name is not taken for it (no
// hand-over loop), and an aidex-chat of another build refuses the session.
func TestAidexChatMustBeTheChatOfTheSameBuild(t *testing.T) {
	f := newChatFixture(t)
	if err := os.Symlink(f.bin, f.chat); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := f.run("--plain"); code != 2 || !strings.Contains(stderr, "there is none beside") {
		t.Errorf("aidex-chat a link to aidex: exit %d, stderr %q; want exit 2, not found", code, stderr)
	}
	os.Remove(f.chat)
	data, err := os.ReadFile(f.bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.chat, data, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := f.run("--plain"); code != 2 || !strings.Contains(stderr, "is aidex itself") {
		t.Errorf("aidex-chat a copy of aidex: exit %d, stderr %q; want exit 2 saying it is aidex itself", code, stderr)
	}
	os.Remove(f.chat)
	if out, err := exec.Command("go", "build", "-ldflags", "-X 'main.build=v9.9.9'", "-o", f.chat, "../aidex-chat").CombinedOutput(); err != nil {
		t.Fatalf("go build aidex-chat: %v\n%s", err, out)
	}
	if _, stderr, code := f.run("--plain"); code != 2 || !strings.Contains(stderr, "is aidex-chat v9.9.9, but the aidex that started it is dev:") {
		t.Errorf("aidex-chat of another build: exit %d, stderr %q; want exit 2 naming both versions", code, stderr)
	}
}
