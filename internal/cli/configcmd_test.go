package cli

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// `aidex config set providers.X.api_key` into an existing world-readable
// config file makes it private (0600).
func TestConfigSetKeyMakesFilePrivate(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("modes are ACLs on Windows")
	}
	e := newE2E(t, llmtest.NewScript(t), "openai", "")
	file := filepath.Join(e.home, ".config", "aidex", "config.toml")
	if err := os.Chmod(file, 0o644); err != nil {
		t.Fatal(err)
	}
	r := e.run(context.Background(), "config", "set", "providers.groq.api_key", "gsk-test-secret")
	if r.code != 0 || !strings.Contains(r.stdout, "set in") {
		t.Fatalf("config set: %d %q %q", r.code, r.stdout, r.stderr)
	}
	fi, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("config file mode %v after writing a key, want 0600", fi.Mode().Perm())
	}
}

// config set of an unknown key suggests the closest (exit 2).
func TestConfigSetSuggestsKey(t *testing.T) {
	e := newE2E(t, llmtest.NewScript(t), "openai", "")
	r := e.run(context.Background(), "config", "set", "max_turns", "10")
	if r.code != ExitUsage || !strings.Contains(r.stderr, `unknown key "max_turns" (did you mean "max_tool_turns"?)`) {
		t.Fatalf("exit %d stderr %q", r.code, r.stderr)
	}
}
