//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// An interactive session is handed to aidex-chat beside aidex, with the
// same command line and environment; without one, aidex says where it
// looked and how to install it, and exits 2.
func TestInteractiveSessionStartsAidexChat(t *testing.T) {
	if testing.Short() {
		t.Skip("builds aidex")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "aidex")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	home, ws := t.TempDir(), t.TempDir()
	env := append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, "config"),
		"XDG_DATA_HOME="+filepath.Join(home, "data"), "XDG_STATE_HOME="+filepath.Join(home, "state"),
		"AIDEX_TEST_MARK=passed-on", "PATH=/usr/bin:/bin")
	run := func(args ...string) (string, string, int) {
		cmd := exec.Command(bin, args...)
		cmd.Env = env
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return stdout.String(), stderr.String(), code
	}

	_, stderr, code := run("-w", ws, "chat", "hello there")
	if code != 2 || !strings.Contains(stderr, "aidex-chat") || !strings.Contains(stderr, "go install ./cmd/...") {
		t.Errorf("without aidex-chat: exit %d, stderr %q; want exit 2 naming aidex-chat and how to install it", code, stderr)
	}

	script := "#!/bin/sh\necho \"chat:$*:$AIDEX_TEST_MARK\"\n"
	if err := os.WriteFile(filepath.Join(dir, "aidex-chat"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"-w", ws, "chat", "hello there"}, {"-w", ws, "--plain"}, {"-w", ws, "-c"}} {
		stdout, stderr, code := run(args...)
		if want := "chat:" + strings.Join(args, " ") + ":passed-on\n"; code != 0 || stdout != want {
			t.Errorf("aidex %q: exit %d, stdout %q, stderr %q; want aidex-chat run with the same arguments and environment: %q",
				args, code, stdout, stderr, want)
		}
	}
	// A headless run and other commands stay in aidex.
	if stdout, _, _ := run("-w", ws, "--version"); strings.Contains(stdout, "chat:") {
		t.Errorf("aidex --version went to aidex-chat: %q", stdout)
	}
}
