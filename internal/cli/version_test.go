package cli

import (
	"context"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/ui/chat"
)

// --version names the version, the build date when the build stamped it,
// and the commit with its time and local changes from the build
// information; without them it says how to find the commit. Every kind of
// build: a release stamped through main.build (with and without version
// control information), `go install module@version`, a pseudo-version,
// `go run` or -buildvcs=false.
func TestBuildVersion(t *testing.T) {
	vcs := []debug.BuildSetting{{Key: "vcs.modified", Value: "true"}, {Key: "vcs.time", Value: "2026-01-02T10:00:00Z"},
		{Key: "vcs.revision", Value: "1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b"}, {Key: "vcs", Value: "git"}}
	devel := debug.Module{Version: "(devel)"}
	for _, c := range []struct {
		name  string
		stamp string
		bi    *debug.BuildInfo
		want  string
	}{
		{"pseudo-version with vcs", "", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20260102100000-1a2b3c4d5e6f+dirty"}, Settings: vcs},
			"v0.0.0-20260102100000-1a2b3c4d5e6f+dirty (commit 1a2b3c4d5e6f, 2026-01-02T10:00:00Z, modified)"},
		{"stamped release with vcs", "v1.2.0 2026-03-04T05:06:07Z", &debug.BuildInfo{Main: devel, Settings: vcs},
			"v1.2.0 (built 2026-03-04T05:06:07Z, commit 1a2b3c4d5e6f, 2026-01-02T10:00:00Z, modified)"},
		{"stamped release without vcs", "v1.2.0 2026-03-04T05:06:07Z", &debug.BuildInfo{Main: devel},
			"v1.2.0 (built 2026-03-04T05:06:07Z; commit not recorded: it is the one tagged v1.2.0, git rev-parse v1.2.0^{commit})"},
		{"stamped version alone", "v1.2.0", &debug.BuildInfo{Main: devel},
			"v1.2.0 (commit not recorded: it is the one tagged v1.2.0, git rev-parse v1.2.0^{commit})"},
		{"go install module@version", "", &debug.BuildInfo{Main: debug.Module{Version: "v1.3.0"}},
			"v1.3.0 (commit not recorded: it is the one tagged v1.3.0, git rev-parse v1.3.0^{commit})"},
		{"go install module@commit", "", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.1-0.20260102100000-1a2b3c4d5e6f"}},
			"v1.2.1-0.20260102100000-1a2b3c4d5e6f (commit 1a2b3c4d5e6f)"},
		{"go run or -buildvcs=false", "", &debug.BuildInfo{Main: devel},
			"dev (commit not recorded: build aidex with go build in a git checkout, not with go run nor -buildvcs=false)"},
		{"dev build stamped with a date", " 2026-03-04T05:06:07Z", &debug.BuildInfo{Main: devel},
			"dev (built 2026-03-04T05:06:07Z; commit not recorded: build aidex with go build in a git checkout, not with go run nor -buildvcs=false)"},
		{"no build information", "", nil,
			"dev (commit not recorded: build aidex with go build in a git checkout, not with go run nor -buildvcs=false)"},
	} {
		if got := buildVersion(c.stamp, c.bi); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
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
	for v, want := range map[string]string{"v1.2.0": "v1.2.0", "v1.2.0 2026-03-04T05:06:07Z": "v1.2.0",
		"v0.0.0-20261125065207-699e97e23194": "dev 699e97e", "": "dev"} {
		if got := (Process{Chat: chat.Run, Version: v}).shortVersion(); got != want {
			t.Errorf("shortVersion(%q) = %q, want %q", v, got, want)
		}
	}
}

// `aidex --version` and `aidex -v` print what cobra's version flag prints,
// without building the command tree.
func TestVersionFastPathMatchesCobra(t *testing.T) {
	run := func(args ...string) string {
		var out, errOut strings.Builder
		code := Main(Process{Chat: chat.Run, Args: args, Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut,
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
