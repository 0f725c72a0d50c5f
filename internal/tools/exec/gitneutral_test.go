//go:build unix

package exec

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// gitSetup runs git for test setup, without aidex's environment.
func gitSetup(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %v: %s", args, out)
}

// TestRunCommandGitRunsNoConfiguredProgram is hole 3 of issue 22: a
// repository's config, hooks and a workspace written to look like a git
// directory must not make a read-only git command (nor any other) run a
// program, while everyday git commands keep working.
func TestRunCommandGitRunsNoConfiguredProgram(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	global := filepath.Join(t.TempDir(), "gitconfig")
	require.NoError(t, os.WriteFile(global, []byte("[user]\n\tname = T\n\temail = t@example.com\n[core]\n\tsshCommand = ssh -o UserKnownHostsFile=/dev/null\n"), 0o644))
	f := newExecFixture(t, Options{Environ: append(os.Environ(), "GIT_CONFIG_GLOBAL="+global, "GIT_EXTERNAL_DIFF=touch /tmp/never")})
	ws := f.Root
	marker := func(name string) string { return filepath.Join(f.Outside, name) }
	touch := func(name string) string { return "touch '" + marker(name) + "'" }
	gitSetup(t, ws, "init", "-q", "-b", "main")
	f.Write("a.txt", "one\n")
	gitSetup(t, ws, "add", "a.txt")
	gitSetup(t, ws, "-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "-m", "first")
	for _, h := range []string{"post-index-change", "reference-transaction", "post-checkout", "pre-commit"} {
		p := filepath.Join(ws, ".git", "hooks", h)
		require.NoError(t, os.WriteFile(p, []byte("#!/bin/sh\n"+touch("hook-"+h)+"\n"), 0o755))
	}
	for k, v := range map[string]string{
		"core.fsmonitor": touch("fsmonitor") + "; false", "core.pager": touch("pager") + "; cat",
		"diff.external": touch("diff-external"), "diff.evil.textconv": touch("textconv") + "; cat",
		"diff.evil.command": touch("diff-command"), "filter.evil.clean": touch("filter") + "; cat",
		"alias.lg": "!" + touch("alias"), "log.showSignature": "true", "gpg.program": touch("gpg"),
		"core.sshCommand": touch("ssh"), "core.attributesFile": filepath.Join(f.Outside, "attrs"),
	} {
		gitSetup(t, ws, "config", k, v)
	}
	require.NoError(t, os.WriteFile(filepath.Join(f.Outside, "attrs"), []byte("*.md diff=evil\n"), 0o644))
	f.Write(".gitattributes", "*.txt diff=evil filter=evil\n")
	f.Write("a.txt", "one\ntwo\n")
	// A subdirectory written to look like a bare repository with its own config.
	f.Write("fake/HEAD", "ref: refs/heads/main\n")
	f.Write("fake/config", "[core]\n\tbare = true\n\tpager = "+touch("bare-pager")+"\n[alias]\n\tst = !"+touch("bare-alias")+"\n")
	require.NoError(t, os.MkdirAll(filepath.Join(ws, "fake", "objects"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(ws, "fake", "refs"), 0o755))

	for _, c := range []struct{ cmd, want string }{
		{"git status", "a.txt"},
		{"git diff", "external diff"}, // the repository's diff.external fails closed
		{"git diff --no-ext-diff", "+two"},
		{"git diff --stat", "a.txt"},
		{"git log --oneline -5", "first"},
		{"git log -p -1", "+one"},
		{"git show HEAD --stat", "first"},
		{"git show HEAD", "+one"},
		{"git blame a.txt", "one"},
		{"git grep -n one", "a.txt"},
		{"git lg", ""},
		{"cd fake && git log", ""},
		{"cd fake && git st", ""},
		{"git diff --no-index a.txt .gitattributes", ""},
		{"git config --get core.sshCommand", "UserKnownHostsFile"},
	} {
		r := f.Call("run_command", jobj{"command": c.cmd})
		require.Contains(t, r.Output, c.want, "%s: %s %s", c.cmd, r.Error, r.Output)
		entries, err := os.ReadDir(f.Outside)
		require.NoError(t, err)
		for _, e := range entries {
			if e.Name() != "attrs" {
				t.Fatalf("%q ran a configured program (%s): %s", c.cmd, e.Name(), r.Output)
			}
		}
	}
}
