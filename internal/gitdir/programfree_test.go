package gitdir

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// programFreeCases are config files and whether ProgramFree may answer
// true for them: plain files without program settings only.
var programFreeCases = []struct {
	name, text string
	free       bool
}{
	{"git init", "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n", true},
	{"clone", "[core]\n\tbare = false\n[remote \"origin\"]\n\turl = https://example.com/r.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n", true},
	{"comments and blanks", "# a comment\n; another\n\n[user] # who\n  name = A B ; trailing\n\temail=a@b\n\tflag\n", true},
	{"empty", "", true},
	{"fsmonitor", "[core]\n\tfsmonitor = ./evil\n", false},
	{"upper-case key", "[Core]\n\tFsMonitor = ./evil\n", false},
	{"textconv", "[diff \"x\"]\n\ttextconv = ./evil\n", false},
	{"alias", "[alias]\n\tst = !./evil\n", false},
	{"filter process", "[filter \"lfs\"]\n\tprocess = ./evil\n", false},
	{"pager section", "[pager]\n\tlog = ./evil\n", false},
	{"include", "[include]\n\tpath = other\n", false},
	{"includeIf", "[includeIf \"gitdir:/\"]\n\tpath = other\n", false},
	{"legacy subsection", "[diff.x]\n\ttextconv = ./evil\n", false},
	{"key on the header's line", "[core] fsmonitor = ./evil\n", false},
	{"harmless key on the header's line", "[user] name = x\n", false},
	{"continued value", "[user]\n\tname = a \\\n[core]\n", false},
	{"continued into a key", "[user]\n\tname = a\\\n\tfsmonitor = ./evil\n", false},
	{"key before a section", "fsmonitor = ./evil\n", false},
	{"CRLF", "[core]\r\n\tbare = false\r\n", false},
	{"NUL", "[core]\n\tbare = false\x00\n", false},
	{"quote in subsection", "[diff \"a\\\"b\"]\n\tx = y\n", false},
	{"space in the header", "[ core ]\n\tbare = false\n", false},
	{"sshCommand", "[core]\n\tsshCommand = ./evil\n", false},
	{"credential helper", "[credential \"https://x\"]\n\thelper = ./evil\n", false},
	{"harmless subsection key", "[diff \"x\"]\n\tbinary = true\n", true},
}

func TestProgramFree(t *testing.T) {
	dir := t.TempDir()
	for _, c := range programFreeCases {
		p := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-"))
		if err := os.WriteFile(p, []byte(c.text), 0o600); err != nil {
			t.Fatal(err)
		}
		if got := ProgramFree(p); got != c.free {
			t.Errorf("%s: ProgramFree = %v, want %v", c.name, got, c.free)
		}
		if got := ProgramFree(filepath.Join(dir, "absent"), p); got != c.free {
			t.Errorf("%s after an absent file: ProgramFree = %v, want %v", c.name, got, c.free)
		}
	}
	if ProgramFree(dir) {
		t.Error("a folder as a config file: want false (git's own reading decides)")
	}
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, []byte("[user]\n"+strings.Repeat("# x\n", maxConfigSize/4+1)), 0o600); err != nil {
		t.Fatal(err)
	}
	if ProgramFree(big) {
		t.Error("a config file over 1 MiB: want false")
	}
}

// TestProgramFreeAgreesWithGit reads every case, and the fuzz corpus's
// seeds, with git itself: where ProgramFree answers true, git must list
// no program setting and no include.
func TestProgramFreeAgreesWithGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	for i, c := range programFreeCases {
		checkWithGit(t, filepath.Join(dir, strings.Repeat("c", i+1)), []byte(c.text))
	}
}

func FuzzProgramFree(f *testing.F) {
	for _, c := range programFreeCases {
		f.Add([]byte(c.text))
	}
	_, err := exec.LookPath("git")
	hasGit := err == nil
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 4096 {
			return
		}
		if hasGit {
			checkWithGit(t, filepath.Join(t.TempDir(), "config"), b)
			return
		}
		programFreeText(b)
	})
}

// checkWithGit writes b to p and, when ProgramFree(p), fails if
// `git config --file p --list` shows a program setting or an include.
func checkWithGit(t *testing.T, p string, b []byte) {
	t.Helper()
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if !ProgramFree(p) {
		return
	}
	cmd := exec.Command("git", "config", "--file", p, "--null", "--name-only", "--list")
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.Output()
	if err != nil {
		return // git refuses the file: every git there fails the same way
	}
	for _, name := range strings.Split(string(out), "\x00") {
		if name == "" {
			continue
		}
		low := strings.ToLower(name)
		if _, ok := LookupProgramKey(name); ok || strings.HasPrefix(low, "include.") || strings.HasPrefix(low, "includeif.") {
			t.Errorf("ProgramFree(%q) = true, but git reads %s from it", b, name)
		}
	}
}
