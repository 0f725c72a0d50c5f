package release

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// scripts/release.sh refuses, before building anything, what would make a
// release that is not the commit it names: a tree with local changes, no
// version (HEAD untagged), a version with characters that are not a
// version's, a version beside --snapshot, an unknown option.
func TestReleaseShRefuses(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	needShell(t)
	script, err := os.ReadFile(filepath.Join(repoRoot(t), "scripts", "release.sh"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		dirty bool
		args  []string
		want  string
	}{
		{"untagged, no version", false, nil, "HEAD has no tag"},
		{"local changes", true, []string{"v1.2.3"}, "the tree has local changes"},
		{"shell in the version", false, []string{"v1.2.3'$(touch x)"}, "letters, digits and . + _ - only"},
		{"space in the version", false, []string{"v1.2.3 x"}, "letters, digits and . + _ - only"},
		{"version and snapshot", false, []string{"--snapshot", "v1.2.3"}, "--snapshot makes its own version"},
		{"two versions", false, []string{"v1", "v2"}, "one VERSION only"},
		{"unknown option", false, []string{"--publish"}, "unknown option --publish"},
	} {
		t.Run(c.name, func(t *testing.T) {
			repo := t.TempDir()
			git := func(args ...string) {
				cmd := exec.Command("git", args...)
				cmd.Dir = repo
				cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null")
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("git %v: %v\n%s", args, err, out)
				}
			}
			os.MkdirAll(filepath.Join(repo, "scripts"), 0o755)
			os.WriteFile(filepath.Join(repo, "scripts", "release.sh"), script, 0o755)
			git("init", "-q")
			git("add", ".")
			git("commit", "-qm", "x")
			if c.dirty {
				os.WriteFile(filepath.Join(repo, "new.go"), []byte("package x\n"), 0o644)
			}
			cmd := exec.Command("sh", append([]string{filepath.Join(repo, "scripts", "release.sh")}, c.args...)...)
			out, err := cmd.CombinedOutput()
			if err == nil || !strings.Contains(string(out), c.want) {
				t.Errorf("release.sh %q: %v\n%s\nwant it refused: %q", c.args, err, out, c.want)
			}
			if strings.Contains(string(out), "building") {
				t.Errorf("release.sh %q started building before refusing:\n%s", c.args, out)
			}
			if _, err := os.Stat(filepath.Join(repo, "x")); err == nil {
				t.Errorf("release.sh ran the shell in its version")
			}
		})
	}
}
