package cli

import (
	"context"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// --version names the version, the commit, its time and local changes
// from the build information.
func TestBuildVersion(t *testing.T) {
	bi := &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20260102100000-1a2b3c4d5e6f+dirty"}, Settings: []debug.BuildSetting{
		{Key: "vcs.modified", Value: "true"}, {Key: "vcs.time", Value: "2026-01-02T10:00:00Z"},
		{Key: "vcs.revision", Value: "1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b"}, {Key: "vcs", Value: "git"}}}
	if got, want := buildVersion("", bi), "v0.0.0-20260102100000-1a2b3c4d5e6f+dirty (commit 1a2b3c4d5e6f, 2026-01-02T10:00:00Z, modified)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	bi.Main.Version = "(devel)"
	if got := buildVersion("v1.2.0", bi); !strings.HasPrefix(got, "v1.2.0 (commit 1a2b3c4d5e6f, ") {
		t.Errorf("ldflags version: %q", got)
	}
	if got := buildVersion("", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}); !strings.HasPrefix(got, "dev (built without version control information") {
		t.Errorf("no vcs: %q", got)
	}
}

// --help shows examples and the exit codes (the root's help only).
func TestHelpShowsExamplesAndExitCodes(t *testing.T) {
	e := newE2E(t, llmtest.NewScript(t), "openai", "")
	r := e.run(context.Background(), "--help")
	for _, want := range []string{"Examples:", `aidex "explain this repository"`, "Exit codes:", "  3    a call was denied", "  6    stopped: the model repeated", "  10   aidex permissions check"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("--help lacks %q", want)
		}
	}
	if r = e.run(context.Background(), "sessions", "--help"); strings.Contains(r.stdout, "Exit codes:") {
		t.Errorf("subcommand help repeats the exit codes")
	}
}

// Banners show a short version; --version keeps the whole story.
func TestShortVersion(t *testing.T) {
	for v, want := range map[string]string{"v1.2.0": "v1.2.0", "v0.0.0-20261125065207-699e97e23194": "dev 699e97e", "": "dev"} {
		if got := (Process{Version: v}).shortVersion(); got != want {
			t.Errorf("shortVersion(%q) = %q, want %q", v, got, want)
		}
	}
}

// `aidex --version` and `aidex -v` print what cobra's version flag prints,
// without building the command tree.
func TestVersionFastPathMatchesCobra(t *testing.T) {
	run := func(args ...string) string {
		var out, errOut strings.Builder
		code := Main(Process{Args: args, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut,
			Getenv: func(string) string { return "" }, Version: "v1.2.3"})
		if code != ExitOK || errOut.Len() > 0 {
			t.Fatalf("aidex %v: exit %d, stderr %q", args, code, errOut.String())
		}
		return out.String()
	}
	cobra := run("--version=true") // not the fast path: cobra parses it
	if !strings.HasPrefix(cobra, "aidex v1.2.3") || !strings.HasSuffix(cobra, "\n") {
		t.Fatalf("cobra's --version printed %q", cobra)
	}
	for _, arg := range []string{"--version", "-v"} {
		if got := run(arg); got != cobra {
			t.Errorf("aidex %s printed %q, cobra prints %q", arg, got, cobra)
		}
	}
}
