package proc

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/gitdir"
)

// gitQuickRepo makes a repository in a temp folder with `git init`, its
// config then appended with extra, and returns the work tree.
func gitQuickRepo(t *testing.T, extra string) string {
	t.Helper()
	ws := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", ws).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	if extra != "" {
		f, err := os.OpenFile(filepath.Join(ws, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(extra); err != nil {
			t.Fatal(err)
		}
	}
	return ws
}

// TestRepoGitEnvironQuickAgreesWithGit: for every kind of repository
// config, RepoGitEnviron's answer without git (where it takes it) is the
// one `git config` gives: the same environment, or the same refusal.
func TestRepoGitEnvironQuickAgreesWithGit(t *testing.T) {
	bin, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	home := t.TempDir()
	base := withGitNeutralised(ChildEnviron(append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="), nil, EnvPolicy{}))
	// The quick path is expected wherever the system config is plain.
	system := existingSystemConfigs()
	_, plainSystem := gitdir.ConfigNames(system...)
	expect := knownGit(bin) && plainSystem && len(system) <= 1
	cases := []struct {
		name, extra string
		quick       bool // untrustedConfigFiles and ProgramFree skip git
	}{
		{"git init", "", true},
		{"a clone's remote and branch", "[remote \"origin\"]\n\turl = https://example.com/r.git\n[branch \"main\"]\n\tremote = origin\n", true},
		{"fsmonitor", "[core]\n\tfsmonitor = touch /tmp/x\n", false},
		{"textconv", "[diff \"x\"]\n\ttextconv = touch /tmp/x\n", false},
		{"alias", "[alias]\n\tst = !touch /tmp/x\n", false},
		{"include", "[include]\n\tpath = ../../other\n", false},
		{"gitproxy", "[core]\n\tgitProxy = evil for example.com\n", false},
		{"a continued line", "[user]\n\tname = a\\\n b\n", false},
	}
	if !expect {
		t.Logf("git at %s, system config %v: aidex asks git", bin, system)
	}
	withSystem := slices.DeleteFunc(slices.Clone(base), func(kv string) bool { return strings.HasPrefix(kv, "GIT_CONFIG_NOSYSTEM=") })
	for _, c := range cases {
		ws := gitQuickRepo(t, c.extra)
		sub := filepath.Join(ws, "a", "b")
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, dir := range []string{ws, sub} {
			_, quick := quickRepoGitEnviron(bin, dir, base)
			if expect && quick != c.quick {
				t.Errorf("%s in %s: quick = %v, want %v", c.name, dir, quick, c.quick)
			}
			for _, env := range [][]string{base, withSystem} {
				got, gotErr := RepoGitEnviron(context.Background(), dir, env)
				want, wantErr := askGit(context.Background(), bin, dir, env)
				if (gotErr != nil) != (wantErr != nil) || !slices.Equal(got, want) {
					t.Errorf("%s in %s (system config read: %v): RepoGitEnviron = %q, %v; git says %q, %v", c.name, dir, len(env) != len(base), added(got, env), gotErr, added(want, env), wantErr)
				}
			}
		}
	}
}

func TestUntrustedConfigFiles(t *testing.T) {
	bin := "/usr/bin/git"
	ws := gitQuickRepo(t, "")
	gitDir := filepath.Join(ws, ".git")
	system := existingSystemConfigs()
	if len(system) > 1 {
		t.Skipf("several system config files (%v): aidex asks git", system)
	}
	repoFiles := append(system, filepath.Join(gitDir, "config"), filepath.Join(gitDir, "config.worktree"))

	pointer := t.TempDir()
	if err := os.WriteFile(filepath.Join(pointer, ".git"), []byte("gitdir: "+gitDir+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bare := t.TempDir()
	for _, p := range []string{"objects", "refs"} {
		if err := os.Mkdir(filepath.Join(bare, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(bare, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	linked := gitQuickRepo(t, "")
	if err := os.WriteFile(filepath.Join(linked, ".git", "commondir"), []byte(".."), 0o644); err != nil {
		t.Fatal(err)
	}
	noRepo := t.TempDir()

	cases := []struct {
		name      string
		bin, dir  string
		env       []string
		wantOK    bool
		wantFiles []string
	}{
		{"the work tree", bin, ws, nil, true, repoFiles},
		{"a folder inside it", bin, filepath.Join(ws, "x", "y"), nil, true, repoFiles},
		{"inside the git dir", bin, filepath.Join(gitDir, "hooks"), nil, false, nil},
		{"a .git pointer file", bin, pointer, nil, false, nil},
		{"a bare repository", bin, bare, nil, false, nil},
		{"a linked worktree's git dir", bin, linked, nil, false, nil},
		{"GIT_DIR", bin, noRepo, []string{"GIT_DIR=" + gitDir}, true, repoFiles},
		{"GIT_DIR and GIT_COMMON_DIR", bin, noRepo, []string{"GIT_DIR=" + gitDir, "GIT_COMMON_DIR=" + gitDir}, true, repoFiles},
		{"GIT_DIR to no repository", bin, noRepo, []string{"GIT_DIR=" + noRepo}, false, nil},
		{"GIT_CONFIG", bin, ws, []string{"GIT_CONFIG=/tmp/c"}, false, nil},
		{"GIT_CONFIG_SYSTEM", bin, ws, []string{"GIT_CONFIG_SYSTEM=/tmp/c"}, false, nil},
		{"GIT_CONFIG_PARAMETERS", bin, ws, []string{"GIT_CONFIG_PARAMETERS='include.path'='/tmp/c'"}, false, nil},
		{"a git aidex does not know", "/opt/git/bin/git", ws, nil, false, nil},
		{"GIT_CONFIG_NOSYSTEM", bin, ws, []string{"GIT_CONFIG_NOSYSTEM=1"}, true, repoFiles[len(system):]},
		{"GIT_CONFIG_NOSYSTEM=false", bin, ws, []string{"GIT_CONFIG_NOSYSTEM=false"}, true, repoFiles},
		{"GIT_CONFIG_NOSYSTEM=maybe", bin, ws, []string{"GIT_CONFIG_NOSYSTEM=maybe"}, false, nil},
	}
	for _, c := range cases {
		files, ok := untrustedConfigFiles(c.bin, c.dir, c.env)
		if ok != c.wantOK || ok && !slices.Equal(files, c.wantFiles) {
			t.Errorf("%s: untrustedConfigFiles = %v, %v; want %v, %v", c.name, files, ok, c.wantFiles, c.wantOK)
		}
	}
	// Outside any repository, only the system config counts, unless a
	// parent of the temp folder is one.
	if files, ok := untrustedConfigFiles(bin, noRepo, nil); ok && len(files) != len(system) {
		t.Logf("%s is inside a repository: %v", noRepo, files)
	}
}

// added is what RepoGitEnviron added to env (nil after an error).
func added(got, env []string) []string {
	if len(got) < len(env) {
		return got
	}
	return got[len(env):]
}

func existingSystemConfigs() []string {
	var out []string
	for _, f := range quickSystemConfigs {
		if exists(f) {
			out = append(out, f)
		}
	}
	return out
}

// TestQuickRepoGitEnvironSystemConfig: the system config's program
// settings are neutralised as git's answer would have them, unless the
// user's global config sets one again (git is asked then).
func TestQuickRepoGitEnvironSystemConfig(t *testing.T) {
	dir := t.TempDir()
	sys := filepath.Join(dir, "gitconfig")
	if err := os.WriteFile(sys, []byte("[credential \"https://x.example\"]\n\thelper = gcloud.sh\n[filter \"lfs\"]\n\tprocess = git-lfs\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	names, ok := gitdir.ConfigNames(sys)
	if !ok || !slices.Equal(names, []string{"credential.https://x.example.helper", "filter.lfs.process"}) {
		t.Fatalf("ConfigNames = %v, %v", names, ok)
	}
	for _, c := range []struct {
		n, want string
	}{{"Credential.https://X.example.Helper", "credential.https://X.example.helper"}, {"core.pager", "core.pager"}, {"alias", "alias"}} {
		if got := canonicalGitName(c.n); got != c.want {
			t.Errorf("canonicalGitName(%q) = %q, want %q", c.n, got, c.want)
		}
	}
	home := t.TempDir()
	env := []string{"HOME=" + home}
	if trusted, ok := trustedNames(env); !ok || len(trusted) != 0 {
		t.Errorf("trustedNames without a global config = %v, %v", trusted, ok)
	}
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[credential \"https://x.example\"]\n\thelper = mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if trusted, ok := trustedNames(env); !ok || !trusted["credential.https://x.example.helper"] {
		t.Errorf("trustedNames = %v, %v; want the global helper", trusted, ok)
	}
	if _, ok := trustedNames(nil); ok {
		t.Error("trustedNames without HOME: want ok false")
	}
}

// BenchmarkRepoGitEnviron: the answer for a `git init` repository read
// by aidex (quick) and asked of git.
func BenchmarkRepoGitEnviron(b *testing.B) {
	bin, err := exec.LookPath("git")
	if err != nil {
		b.Skip("git is not installed")
	}
	ws := b.TempDir()
	if out, err := exec.Command("git", "init", "-q", ws).CombinedOutput(); err != nil {
		b.Fatalf("git init: %v %s", err, out)
	}
	env := withGitNeutralised(ChildEnviron(append(os.Environ(), "HOME="+b.TempDir()), nil, EnvPolicy{}))
	b.Run("quick", func(b *testing.B) {
		if _, ok := quickRepoGitEnviron(bin, ws, env); !ok {
			b.Skip("no quick answer on this machine")
		}
		for b.Loop() {
			quickRepoGitEnviron(bin, ws, env)
		}
	})
	b.Run("git", func(b *testing.B) {
		for b.Loop() {
			if _, err := askGit(context.Background(), bin, ws, env); err != nil {
				b.Fatal(err)
			}
		}
	})
}
