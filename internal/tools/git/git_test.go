//go:build unix

package git

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/zelvior/aidex/internal/tools"
)

// plainGit runs git for test setup (no aidex safety flags).
func plainGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %v: %s", args, out)
	return string(out)
}

// newGitFixture returns a workspace holding a repository with one commit
// and a hostile config: hooks, fsmonitor, pager, external diff, a filter
// driver and signature checking that would each create a marker file in
// the outside directory if git ran them.
func newGitFixture(t *testing.T) (*fixture, func() []string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	f := newFixture(t)
	plainGit(t, f.Root, "init", "-q", "-b", "main")
	plainGit(t, f.Root, "config", "user.name", "Test")
	plainGit(t, f.Root, "config", "user.email", "test@example.com")
	f.Write("a.txt", "one\n")
	plainGit(t, f.Root, "add", "a.txt")
	plainGit(t, f.Root, "commit", "-q", "-m", "first")

	marker := func(name string) string { return filepath.Join(f.Outside, name) }
	hook := func(dir, name string) {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.WriteFile(p, []byte("#!/bin/sh\ntouch '"+marker("hook-"+name)+"'\n"), 0o755))
	}
	for _, h := range []string{"pre-commit", "commit-msg", "post-commit", "post-checkout", "prepare-commit-msg", "pre-auto-gc", "post-index-change"} {
		hook(filepath.Join(f.Root, ".git", "hooks"), h)
	}
	cfg := map[string]string{
		"core.fsmonitor":       "touch '" + marker("fsmonitor") + "'; false",
		"core.pager":           "touch '" + marker("pager") + "'; cat",
		"pager.log":            "touch '" + marker("pager-log") + "'; cat",
		"diff.external":        filepath.Join(f.Outside, "extdiff.sh"),
		"filter.evil.clean":    "touch '" + marker("filter-clean") + "'; cat",
		"filter.evil.smudge":   "touch '" + marker("filter-smudge") + "'; cat",
		"filter.evil.required": "true",
		"filter.p.q.clean":     "touch '" + marker("filter-dotted") + "'; cat",
		"log.showSignature":    "true",
		"gpg.program":          filepath.Join(f.Outside, "gpg.sh"),
		"commit.gpgSign":       "true",
		"diff.evil.textconv":   "touch '" + marker("textconv") + "'; cat",
		"core.sshCommand":      "touch '" + marker("ssh") + "'",
		"gc.auto":              "1",
	}
	for k, v := range cfg {
		plainGit(t, f.Root, "config", k, v)
	}
	for _, s := range []string{"extdiff.sh", "gpg.sh"} {
		require.NoError(t, os.WriteFile(filepath.Join(f.Outside, s),
			[]byte("#!/bin/sh\ntouch '"+marker(s)+"'\n"), 0o755))
	}
	f.Write(".gitattributes", "*.txt filter=evil diff=evil\n*.md filter=p.q\n")
	markers := func() []string {
		entries, err := os.ReadDir(f.Outside)
		require.NoError(t, err)
		var found []string
		for _, e := range entries {
			if !strings.HasSuffix(e.Name(), ".sh") {
				found = append(found, e.Name())
			}
		}
		return found
	}
	return f, markers
}

func TestGitToolsDoNotRunRepoPrograms(t *testing.T) {
	f, markers := newGitFixture(t)

	r := f.OK("git_status", jobj{})
	require.Contains(t, r.Output, "## main")
	require.Contains(t, r.Output, "?? .gitattributes")

	f.Write("a.txt", "one\ntwo\n")
	f.Write("notes.md", "# notes\n")
	r = f.OK("git_diff", jobj{})
	require.Contains(t, r.Output, "+two")
	require.Contains(t, r.Output, "a.txt | 1 +")
	require.Contains(t, r.Meta.Diff, "+two")
	r = f.OK("git_diff", jobj{"path": "a.txt"})
	require.Contains(t, r.Output, "+two")

	r = f.OK("git_add", jobj{"paths": []string{"a.txt", ".gitattributes", "notes.md"}})
	require.Contains(t, r.Output, "add 'a.txt'")
	r = f.OK("git_diff", jobj{"staged": true})
	require.Contains(t, r.Output, "+two")
	r = f.OK("git_diff", jobj{})
	require.Contains(t, r.Output, "No unstaged changes")

	r = f.OK("git_commit", jobj{"message": "-m second\n\nbody with $(touch x) and `backticks`"})
	require.Contains(t, r.Output, "second")
	r = f.OK("git_log", jobj{})
	require.Contains(t, r.Output, "Test\t-m second")
	require.Contains(t, r.Output, "Test\tfirst")
	r = f.OK("git_log", jobj{"max_count": 1, "path": "a.txt"})
	require.Equal(t, 1, strings.Count(strings.TrimSpace(r.Output), "\n")+1, r.Output)
	f.Fail("git_commit", jobj{"message": "nothing staged"}, tools.CategoryValidation)

	r = f.OK("git_branch", jobj{"name": "feature/x"})
	require.Contains(t, r.Output, "Created branch feature/x")
	r = f.OK("git_branch", jobj{})
	require.Contains(t, r.Output, "feature/x")
	require.Contains(t, r.Output, "* main")
	f.OK("git_checkout", jobj{"ref": "feature/x"})
	require.Contains(t, f.OK("git_status", jobj{}).Output, "## feature/x")
	f.OK("git_checkout", jobj{"ref": "topic", "create": true})
	require.Contains(t, f.OK("git_status", jobj{}).Output, "## topic")
	f.OK("git_checkout", jobj{"ref": "HEAD~1"})
	f.OK("git_checkout", jobj{"ref": "main"})

	require.Empty(t, markers(), "git ran a program from the repository config")
	_, err := os.Stat(filepath.Join(f.Root, "x"))
	require.ErrorIs(t, err, os.ErrNotExist, "the commit message went through a shell")
}

func TestGitRefAndPathValidation(t *testing.T) {
	f, markers := newGitFixture(t)
	f.Write("a.txt", "changed\n")
	for _, args := range []jobj{
		{"ref": "--orphan=x"},
		{"ref": "-f"},
		{"ref": "main; touch x"},
		{"ref": "a b"},
		{"ref": "x\ny"},
		{"ref": "--", "create": true},
		{"ref": "bad..name", "create": true},
		{"ref": "-b", "create": true},
	} {
		f.Fail("git_checkout", args, tools.CategoryValidation)
	}
	f.Fail("git_branch", jobj{"name": "-D"}, tools.CategoryValidation)
	f.Fail("git_branch", jobj{"name": "--delete"}, tools.CategoryValidation)
	f.Fail("git_branch", jobj{"name": "has space"}, tools.CategoryValidation)
	f.Fail("git_add", jobj{"paths": []string{"../outside/x"}}, tools.CategorySecurity)
	f.Fail("git_add", jobj{"paths": []string{"/etc/passwd"}}, tools.CategorySecurity)
	f.Fail("git_add", jobj{"paths": []string{}}, tools.CategoryValidation)
	f.Fail("git_diff", jobj{"path": "../outside"}, tools.CategorySecurity)
	f.Fail("git_log", jobj{"path": "../../"}, tools.CategorySecurity)
	f.Fail("git_log", jobj{"max_count": -1}, tools.CategoryValidation)
	f.Fail("git_commit", jobj{"message": " "}, tools.CategoryValidation)

	// A path named like an option is a path (after "--"), not an option.
	f.Write("-rf", "x\n")
	r := f.OK("git_add", jobj{"paths": []string{"-rf"}})
	require.Contains(t, r.Output, "add '-rf'")

	// A ref that names a file is never read as "restore this file".
	f.Fail("git_checkout", jobj{"ref": "a.txt"}, tools.CategoryExecution)
	data, err := os.ReadFile(filepath.Join(f.Root, "a.txt"))
	require.NoError(t, err)
	require.Equal(t, "changed\n", string(data), "local changes must survive")
	require.Empty(t, markers())
	_, err = os.Stat(filepath.Join(f.Root, "x"))
	require.ErrorIs(t, err, os.ErrNotExist)
}

func TestGitInitAndNoRepo(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	f := newFixture(t)
	if out, err := exec.Command("git", "-C", f.Root, "rev-parse", "--git-dir").CombinedOutput(); err == nil {
		t.Skipf("the temp dir is inside a git repository: %s", out)
	}
	r := f.Fail("git_status", jobj{}, tools.CategoryNotFound)
	require.Contains(t, r.Error, "git_init")
	f.Fail("git_commit", jobj{"message": "x"}, tools.CategoryNotFound)

	r = f.OK("git_init", jobj{})
	require.DirExists(t, filepath.Join(f.Root, ".git"))
	r = f.OK("git_log", jobj{})
	require.Contains(t, r.Output, "No commits yet")
	r = f.OK("git_init", jobj{})
	require.Contains(t, r.Output, "already a Git repository")
}

func TestCheckRef(t *testing.T) {
	for ref, ok := range map[string]bool{
		"main": true, "feature/x": true, "v1.2.3": true, "HEAD~2": true, "origin/main": true, "abc123": true,
		"": false, "-x": false, "--orphan": false, "a b": false, "a\tb": false, "a\x00": false,
		strings.Repeat("a", 300): false, "ref*": false, `a\b`: false,
	} {
		require.Equal(t, ok, checkRef("ref", ref) == nil, "%q", ref)
	}
}

func FuzzCheckRef(f *testing.F) {
	for _, s := range []string{"main", "-x", "--", "HEAD~1", "a b", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, ref string) {
		if checkRef("ref", ref) == nil {
			require.False(t, strings.HasPrefix(ref, "-"), "an option-like ref passed: %q", ref)
			require.NotContains(t, ref, "\n")
			require.NotEmpty(t, strings.TrimSpace(ref))
		}
	})
}

// git_init inside a folder that is itself in a repository creates the
// workspace's own repository with aidex's neutral git: the outer one is
// neither reinitialised nor its programs run (issue 42).
func TestGitInitInsideAnotherRepository(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	f := newFixture(t)
	parent := filepath.Dir(f.Root)
	marker := filepath.Join(f.Outside, "ran")
	for _, args := range [][]string{{"init", "-q"}, {"config", "core.fsmonitor", "sh -c 'touch " + marker + "'"},
		{"config", "alias.init", "!touch " + marker}} {
		out, err := exec.Command("git", append([]string{"-C", parent}, args...)...).CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	hook := filepath.Join(parent, ".git", "hooks", "post-index-change")
	require.NoError(t, os.WriteFile(hook, []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755))
	before, err := os.ReadFile(filepath.Join(parent, ".git", "config"))
	require.NoError(t, err)
	r := f.OK("git_init", jobj{})
	require.Contains(t, r.Output, filepath.Join(f.Root, ".git"))
	require.DirExists(t, filepath.Join(f.Root, ".git", "objects"))
	after, err := os.ReadFile(filepath.Join(parent, ".git", "config"))
	require.NoError(t, err)
	require.Equal(t, string(before), string(after), "the outer repository was reinitialised")
	require.NoFileExists(t, marker)
	require.Contains(t, f.OK("git_init", jobj{}).Output, "already a Git repository")
}
