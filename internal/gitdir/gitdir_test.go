package gitdir

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestParsePointer(t *testing.T) {
	for _, c := range []struct {
		in, want string
		ok       bool
	}{
		{"gitdir: /a/b\n", "/a/b", true},
		{"gitdir: ../x/.git/worktrees/w\r\n", "../x/.git/worktrees/w", true},
		{"gitdir:/a", "/a", true},
		{"gitdir: a b \n\n", "a b", true},
		{"gitdir:\n", "", false},
		{"ref: refs/heads/main\n", "", false},
		{"gitdir: /a\ngitdir: /b\n", "", false},
		{"gitdir: /a\x00b", "", false},
		{"gitdir: /a\x1b[31m", "", false},
		{"gitdir: \xff\xfe", "", false},
		{"gitdir: " + strings.Repeat("a", MaxPointerSize), "", false},
	} {
		got, err := ParsePointer([]byte(c.in))
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParsePointer(%q) = %q, %v; want %q ok=%v", c.in, got, err, c.want, c.ok)
		}
		if err != nil && !errors.Is(err, ErrNotPointer) {
			t.Errorf("ParsePointer(%q): %v does not wrap ErrNotPointer", c.in, err)
		}
	}
}

func FuzzParsePointer(f *testing.F) {
	for _, s := range []string{"gitdir: /a\n", "gitdir: ../b", "gitdir:", "x", "gitdir: a\nb", "gitdir: \x00"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := ParsePointer(b)
		if err != nil {
			if p != "" || !errors.Is(err, ErrNotPointer) {
				t.Fatalf("error %v with path %q", err, p)
			}
			return
		}
		if p == "" || strings.ContainsAny(p, "\x00\n\r") || p != strings.TrimSpace(p) {
			t.Fatalf("bad path %q from %q", p, b)
		}
		if len(b) > MaxPointerSize {
			t.Fatalf("accepted %d bytes", len(b))
		}
		// What it returns, written back, reads the same.
		if q, err := ParsePointer([]byte("gitdir: " + p + "\n")); err != nil || q != p {
			t.Fatalf("round trip of %q: %q %v", p, q, err)
		}
	})
}

func gitCmd(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v %s", args, err, out)
	}
}

func needGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
}

func realTemp(t *testing.T) string {
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestFindRepository(t *testing.T) {
	needGit(t)
	root := realTemp(t)
	main := filepath.Join(root, "main")
	os.MkdirAll(main, 0o755)
	gitCmd(t, main, "init", "-q")
	gitCmd(t, main, "commit", "-q", "--allow-empty", "-m", "x")
	r := Find(main)
	if r.GitDir != filepath.Join(main, ".git") || r.CommonDir != r.GitDir || r.Linked || r.Refused != "" {
		t.Fatalf("plain repository: %+v", r)
	}
	wt := filepath.Join(root, "wt")
	gitCmd(t, main, "worktree", "add", "-q", wt)
	r = Find(wt)
	if r.GitDir != filepath.Join(main, ".git", "worktrees", "wt") || r.CommonDir != filepath.Join(main, ".git") || !r.Linked ||
		r.Pointer != filepath.Join(wt, ".git") {
		t.Fatalf("linked worktree: %+v", r)
	}
	// A submodule-shaped git dir: core.worktree points back.
	sub := filepath.Join(main, "sub")
	mod := filepath.Join(main, ".git", "modules", "sub")
	os.MkdirAll(sub, 0o755)
	os.MkdirAll(filepath.Dir(mod), 0o755)
	gitCmd(t, root, "init", "-q", "--separate-git-dir", mod, sub)
	gitCmd(t, mod, "config", "core.worktree", "../../../sub")
	if r := Find(sub); r.GitDir != mod || r.CommonDir != mod || r.Refused != "" {
		t.Fatalf("submodule: %+v", r)
	}
}

// TestFindRefusesPlantedPointer is the class of a ".git" pointer file a
// command plants to make a folder outside the workspace its repository
// (then writable in the sandbox): without a back-pointer it is refused.
func TestFindRefusesPlantedPointer(t *testing.T) {
	needGit(t)
	root := realTemp(t)
	outside := filepath.Join(root, "outside")
	gitCmd(t, root, "init", "-q", outside)
	other := filepath.Join(root, "other")
	gitCmd(t, root, "init", "-q", other)
	gitCmd(t, other, "commit", "-q", "--allow-empty", "-m", "x")
	gitCmd(t, other, "worktree", "add", "-q", filepath.Join(root, "otherwt"))
	ws := filepath.Join(root, "ws")
	os.MkdirAll(ws, 0o755)
	for _, target := range []string{
		filepath.Join(outside, ".git"), // a plain git dir: no gitdir file, no core.worktree
		outside,                        // any folder
		filepath.Join(other, ".git", "worktrees", "otherwt"), // another worktree's git dir: points elsewhere
		"../outside/.git",              // relative
		filepath.Join(root, "missing"), // nothing there
	} {
		os.WriteFile(filepath.Join(ws, ".git"), []byte("gitdir: "+target+"\n"), 0o644)
		r := Find(ws)
		if r.Exists() || r.Refused == "" || !strings.Contains(r.Note, "does not point back") {
			t.Errorf("pointer to %s: %+v", target, r)
		}
	}
	os.WriteFile(filepath.Join(ws, ".git"), []byte("not a pointer"), 0o644)
	if r := Find(ws); r.Exists() || r.Refused == "" {
		t.Errorf("garbage .git: %+v", r)
	}
	os.Remove(filepath.Join(ws, ".git"))
	os.Symlink(filepath.Join(outside, ".git"), filepath.Join(ws, ".git"))
	if r := Find(ws); r.Exists() || r.Refused == "" {
		t.Errorf(".git symlink: %+v", r)
	}
}

func TestFindHooksPathAndIncludes(t *testing.T) {
	needGit(t)
	ws := realTemp(t)
	gitCmd(t, ws, "init", "-q")
	gitCmd(t, ws, "config", "core.hooksPath", ".husky")
	gitCmd(t, ws, "config", "include.path", "../extra.cfg")
	os.WriteFile(filepath.Join(ws, "extra.cfg"), []byte("[core]\n\thooksPath = \"tools/hooks\" # comment\n[includeIf \"gitdir:/x/\"]\n path = more.cfg\n"), 0o644)
	r := Find(ws)
	if r.HooksPath != filepath.Join(ws, "tools", "hooks") {
		t.Errorf("hooksPath from the include: %q", r.HooksPath)
	}
	want := []string{filepath.Join(ws, "extra.cfg"), filepath.Join(ws, "more.cfg")}
	if strings.Join(r.Includes, ",") != strings.Join(want, ",") {
		t.Errorf("includes %v, want %v", r.Includes, want)
	}
}

func TestClassify(t *testing.T) {
	for rel, want := range map[string]bool{
		"config": true, "CONFIG": true, "config.worktree": true, "config.extra": true, "commondir": true, "gitdir": true,
		"hooks": true, "hooks/pre-commit": true, "info/attributes": true, "modules/x/config": true, "worktrees/w/gitdir": true,
		"objects/info/alternates": true,
		"objects/ab/cdef":         false, "refs/heads/main": false, "HEAD": false, "index": false, "index.lock": false, "config.lock": false,
		"packed-refs": false, "logs/HEAD": false, "COMMIT_EDITMSG": false, "ORIG_HEAD": false, "hooksx": false, "objects/info/packs": false,
	} {
		if _, got := Classify(rel); got != want {
			t.Errorf("Classify(%q) = %v, want %v", rel, got, want)
		}
	}
}

func TestTreeFindsNewNestedRepositories(t *testing.T) {
	for _, watched := range []bool{true, false} {
		testTree(t, watched)
	}
}

func testTree(t *testing.T, watched bool) {
	ws := realTemp(t)
	os.MkdirAll(filepath.Join(ws, "a", "old", ".git"), 0o755)
	os.MkdirAll(filepath.Join(ws, "b", "c"), 0o755)
	tr := ScanTree(ws, 0)
	if !watched {
		tr.w = nil // stat every folder
	}
	if got := tr.Nested(); len(got) != 1 || got[0] != filepath.Join(ws, "a", "old") {
		t.Fatalf("Nested = %v", got)
	}
	if got := tr.Update(); len(got) != 0 {
		t.Fatalf("nothing changed, Update = %v", got)
	}
	os.MkdirAll(filepath.Join(ws, "b", "c", "new", ".git"), 0o755)
	os.WriteFile(filepath.Join(ws, "b", ".git"), []byte("gitdir: /x"), 0o644)
	os.MkdirAll(filepath.Join(ws, ".git"), 0o755)
	got := tr.Update()
	want := []string{ws, filepath.Join(ws, "b"), filepath.Join(ws, "b", "c", "new")}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("Update = %v, want %v", got, want)
	}
}

// runsSomething is what the last part of a git setting's name says when
// its value is a program: the names `git help --config` prints that
// match it must be in ProgramKeys or ReviewedExceptions.
var runsSomething = regexp.MustCompile(`(?i)(command|cmd|program|helper|driver|textconv|hook|tunnel)$|^(clean|smudge|process|uploadpack|receivepack|sshcommand|editor|pager|askpass|fsmonitor|hookspath|gitproxy|proxycommand|proxy|browser|tool|guitool|path|exec|update|external)$`)

// TestProgramKeysCoverGitsOwnList fails when git documents a setting
// whose name says it runs something and the table neither neutralises it
// nor lists it as a reviewed exception.
func TestProgramKeysCoverGitsOwnList(t *testing.T) {
	needGit(t)
	out, err := exec.Command("git", "help", "--config").Output()
	if err != nil {
		t.Skipf("git help --config: %v", err)
	}
	seen := 0
	for _, name := range strings.Fields(string(out)) {
		if !strings.Contains(name, ".") {
			continue
		}
		last := name[strings.LastIndexByte(name, '.')+1:]
		section, _, _ := strings.Cut(strings.ToLower(name), ".")
		if !runsSomething.MatchString(last) && section != "alias" && section != "pager" {
			continue
		}
		seen++
		lower := strings.ToLower(name)
		if slices.Contains(ReviewedExceptions[:], lower) {
			continue
		}
		// Placeholders (<driver>, <name>, *) stand for any subsection.
		probe := regexp.MustCompile(`<[^>]*>|\*`).ReplaceAllString(lower, "x")
		if _, ok := LookupProgramKey(probe); !ok {
			t.Errorf("git documents %s, which runs something by its name: add it to ProgramKeys (with a neutral value) or, "+
				"if its value never runs a program, to ReviewedExceptions with a comment", name)
		}
	}
	if seen < 20 {
		t.Fatalf("only %d program-like names in git help --config: the list's shape changed", seen)
	}
}

func TestLookupProgramKey(t *testing.T) {
	for name, want := range map[string]bool{
		"core.fsmonitor": true, "CORE.FSMONITOR": true, "diff.Evil.textconv": true, "filter.a.b.clean": true,
		"alias.lg": true, "credential.https://x.helper": true, "remote.origin.uploadpack": true,
		"core.bare": false, "user.name": false, "remote.origin.url": false, "diff.renames": false,
	} {
		if _, got := LookupProgramKey(name); got != want {
			t.Errorf("LookupProgramKey(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestGitlinks(t *testing.T) {
	needGit(t)
	for _, version := range []string{"2", "3", "4"} {
		ws := realTemp(t)
		gitCmd(t, ws, "init", "-q")
		gitCmd(t, ws, "config", "index.version", version)
		os.MkdirAll(filepath.Join(ws, "dir", "deep"), 0o755)
		os.WriteFile(filepath.Join(ws, "dir", "deep", "a-long-file-name.txt"), []byte("a"), 0o644)
		os.WriteFile(filepath.Join(ws, "b.txt"), []byte("b"), 0o644)
		gitCmd(t, ws, "add", "-A")
		gitCmd(t, ws, "update-index", "--add", "--cacheinfo", "160000,"+strings.Repeat("1", 40)+",dir/deep/sub")
		gitCmd(t, ws, "update-index", "--add", "--cacheinfo", "160000,"+strings.Repeat("2", 40)+",z")
		links, err := Find(ws).Gitlinks()
		if err != nil || strings.Join(links, ",") != "dir/deep/sub,z" {
			t.Errorf("index version %s: %v %v", version, links, err)
		}
	}
}

func FuzzParseGitlinks(f *testing.F) {
	f.Add([]byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x01"))
	f.Add([]byte("DIRC\x00\x00\x00\x04\x00\x00\x00\x02" + strings.Repeat("\x00", 80)))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = parseGitlinks(b, 20) // no panic, bounded
	})
}

// LookupProgramKey compares plain names as strings and tries a pattern's
// regular expression only on names starting with one of its sections
// (issue 40: no regular expression compiled at start): it must match
// exactly the names the full expressions match.
func TestProgramKeyMatchersAgreeWithPatterns(t *testing.T) {
	words := map[string]bool{"x": true, "https://h/p": true}
	for _, k := range ProgramKeys {
		for _, w := range regexp.MustCompile(`[a-z]+`).FindAllString(k.Pattern, -1) {
			words[w] = true
		}
		for _, sec := range patternSections(k.Pattern) {
			if !regexp.MustCompile(`^[a-z]+$`).MatchString(sec) {
				t.Errorf("pattern %s: section %q is not a plain word, so the prefix filter may skip names it matches", k.Pattern, sec)
			}
		}
	}
	var probes []string
	for _, k := range ProgramKeys { // an instance of each pattern, first and last alternatives
		for _, alt := range []string{"$1", "$2"} {
			p := regexp.MustCompile(`\(\.\+\\\.\)\?|\([a-z]+\)\?`).ReplaceAllString(k.Pattern, "")
			p = regexp.MustCompile(`\(([a-z]+)(?:\|[a-z]+)*?(?:\|([a-z]+))?\)`).ReplaceAllString(p, alt)
			p = strings.NewReplacer(`.+`, "sub", `\.`, ".").Replace(p)
			probes = append(probes, p)
		}
	}
	for a := range words {
		probes = append(probes, a)
		for b := range words {
			probes = append(probes, a+"."+b, a+".x."+b, a+".x.y."+b, a+b+".x."+b, a+"."+b+"x")
		}
	}
	matchers := programKeyMatchers()
	for i, k := range ProgramKeys {
		re := regexp.MustCompile(`^(?:` + k.Pattern + `)$`)
		hits := 0
		for _, p := range probes {
			want := re.MatchString(p)
			if got := matchers[i].match(p); got != want {
				t.Errorf("pattern %s on %q: matcher says %v, expression %v", k.Pattern, p, got, want)
			}
			if want {
				hits++
			}
		}
		if hits == 0 {
			t.Errorf("pattern %s: no probe matches it, so the test does not exercise it", k.Pattern)
		}
	}
}
