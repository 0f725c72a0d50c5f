package main

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// A release build stamped the documented way (docs/development.md: one
// variable, main.build = "VERSION DATE") without version control
// information prints its version, its build date and how to find the
// commit; an unstamped build without it prints "dev" and how to record the
// commit.
func TestVersionOfAStampedBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds aidex twice")
	}
	dir := t.TempDir()
	for _, c := range []struct {
		ldflags, want string
	}{
		{"-X 'main.build=v9.8.7 2026-03-04T05:06:07Z'",
			"aidex v9.8.7 (built 2026-03-04T05:06:07Z; commit not recorded: it is the one tagged v9.8.7, git rev-parse v9.8.7^{commit})\n"},
		{"", "aidex dev (commit not recorded: build aidex with go build in a git checkout, not with go run nor -buildvcs=false)\n"},
	} {
		bin := filepath.Join(dir, "aidex")
		build := exec.Command("go", "build", "-buildvcs=false", "-ldflags", c.ldflags, "-o", bin, ".")
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build -ldflags %q: %v\n%s", c.ldflags, err, out)
		}
		for _, arg := range []string{"--version", "-v"} {
			out, err := exec.Command(bin, arg).Output()
			if err != nil || string(out) != c.want {
				t.Errorf("-ldflags %q: aidex %s printed %q (%v), want %q", c.ldflags, arg, out, err, c.want)
			}
		}
	}
}
