package permission

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixture builds <tmp>/ws (the workspace), <tmp>/ws_sibling, <tmp>/outside,
// <tmp>/extra (granted) and <tmp>/home with a .ssh dir.
type fixture struct {
	tmp, root, sibling, outside, extra, home string
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := fixture{
		tmp: tmp, root: filepath.Join(tmp, "ws"), sibling: filepath.Join(tmp, "ws_sibling"),
		outside: filepath.Join(tmp, "outside"), extra: filepath.Join(tmp, "extra"), home: filepath.Join(tmp, "home"),
	}
	for _, d := range []string{f.root, f.sibling, f.outside, f.extra, filepath.Join(f.home, ".ssh"),
		filepath.Join(f.root, "sub", "deep"), filepath.Join(f.root, ".git")} {
		mustMkdir(t, d)
	}
	mustWrite(t, filepath.Join(f.outside, "secret.txt"), "s")
	mustWrite(t, filepath.Join(f.root, "inside.txt"), "i")
	mustWrite(t, filepath.Join(f.home, ".ssh", "id_rsa"), "k")
	mustWrite(t, filepath.Join(f.extra, "e.txt"), "e")
	return f
}

func mustMkdir(t *testing.T, d string) {
	t.Helper()
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
}

func mustWrite(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustSymlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("symlinks not available: %v", err)
	}
}

func (f fixture) ws(t *testing.T, opts WorkspaceOptions) *Workspace {
	t.Helper()
	if opts.Home == "" {
		opts.Home = f.home
	}
	w, err := NewWorkspace(f.root, opts)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func TestResolve(t *testing.T) {
	f := newFixture(t)
	mustSymlink(t, filepath.Join(f.outside, "secret.txt"), filepath.Join(f.root, "link_file"))
	mustSymlink(t, f.outside, filepath.Join(f.root, "link_dir"))
	mustSymlink(t, "link_dir", filepath.Join(f.root, "chain1")) // chain1 -> link_dir -> outside
	mustSymlink(t, "chain1", filepath.Join(f.root, "chain2"))   // chain2 -> chain1
	mustSymlink(t, filepath.Join(f.outside, "nope"), filepath.Join(f.root, "dangling_out"))
	mustSymlink(t, "sub/new.txt", filepath.Join(f.root, "dangling_in")) // target inside, missing
	mustSymlink(t, "sub", filepath.Join(f.root, "link_in"))
	mustSymlink(t, "..", filepath.Join(f.root, "sub", "up"))                  // sub/up -> ws
	mustSymlink(t, "../..", filepath.Join(f.root, "sub", "up2"))              // sub/up2 -> tmp
	mustSymlink(t, "/", filepath.Join(f.root, "rootlink"))                    // ws/rootlink -> /
	mustSymlink(t, "loop2", filepath.Join(f.root, "loop1"))                   // loop
	mustSymlink(t, "loop1", filepath.Join(f.root, "loop2"))                   // loop
	mustSymlink(t, filepath.Join(f.extra), filepath.Join(f.root, "to_extra")) // into a granted dir

	w := f.ws(t, WorkspaceOptions{ExtraDirs: []string{f.extra}})
	j := func(p ...string) string { return filepath.Join(append([]string{f.root}, p...)...) }
	cases := []struct {
		name, in string
		want     string // resolved path when ok
		err      error  // sentinel when refused
	}{
		{"relative file", "inside.txt", j("inside.txt"), nil},
		{"root dot", ".", f.root, nil},
		{"new file", "sub/new/file.go", j("sub", "new", "file.go"), nil},
		{"dotdot", "../outside/secret.txt", "", ErrOutsideWorkspace},
		{"dot slash dotdot", "./../outside.txt", "", ErrOutsideWorkspace},
		{"double slashes", "sub//..//..//outside.txt", "", ErrOutsideWorkspace},
		{"dotdot back in", "sub/../inside.txt", j("inside.txt"), nil},
		{"absolute inside", j("sub", "deep"), j("sub", "deep"), nil},
		{"absolute outside", filepath.Join(f.outside, "secret.txt"), "", ErrOutsideWorkspace},
		{"absolute etc", "/etc/hosts", "", ErrOutsideWorkspace},
		{"sibling prefix", filepath.Join(f.sibling, "pwned.txt"), "", ErrOutsideWorkspace},
		{"sibling via dotdot", "../ws_sibling/x", "", ErrOutsideWorkspace},
		{"symlink file out", "link_file", "", ErrOutsideWorkspace},
		{"symlink dir out", "link_dir/secret.txt", "", ErrOutsideWorkspace},
		{"symlink dir out new file", "link_dir/new.txt", "", ErrOutsideWorkspace},
		{"chained symlink out", "chain2/secret.txt", "", ErrOutsideWorkspace},
		{"dangling out", "dangling_out", "", ErrOutsideWorkspace},
		{"dangling in", "dangling_in", j("sub", "new.txt"), nil},
		{"symlink inside", "link_in/deep", j("sub", "deep"), nil},
		{"symlink up to root", "sub/up/inside.txt", j("inside.txt"), nil},
		{"symlink up out", "sub/up2/outside/secret.txt", "", ErrOutsideWorkspace},
		{"symlink to /", "rootlink/etc/passwd", "", ErrOutsideWorkspace},
		{"symlink loop", "loop1/x", "", ErrInvalidPath},
		{"symlink to granted dir", "to_extra/e.txt", filepath.Join(f.extra, "e.txt"), nil},
		{"granted extra dir", filepath.Join(f.extra, "e.txt"), filepath.Join(f.extra, "e.txt"), nil},
		{"percent encoded literal", "%2e%2e/%2e%2e/etc/hosts", j("%2e%2e", "%2e%2e", "etc", "hosts"), nil},
		{"tilde literal", "~/.bashrc", j("~", ".bashrc"), nil},
		{"dollar home literal", "$HOME/.bashrc", j("$HOME", ".bashrc"), nil},
		{"NUL", "sub/\x00/../../x", "", ErrInvalidPath},
		{"empty", "", "", ErrInvalidPath},
		{"ADS", "README.md:hidden", "", ErrInvalidPath},
		{"trailing dot", ".git./config", "", ErrInvalidPath},
		{"trailing space", "a /b", "", ErrInvalidPath},
		{"device CON", "CON", "", ErrInvalidPath},
		{"device nul.txt", "sub/nul.txt", "", ErrInvalidPath},
		{"device COM1", "com1", "", ErrInvalidPath},
		{"RTLO", "src/\u202etxt.exe", "", ErrInvalidPath},
		{"proc self", "/proc/self/environ", "", ErrProtected},
		{"proc pid environ", "/proc/1/environ", "", ErrProtected},
		{"proc self cwd", "/proc/self/cwd/../../", "", ErrOutsideWorkspace}, // cleaned to /proc
		{"home ssh", filepath.Join(f.home, ".ssh", "id_rsa"), "", ErrProtected},
		{"home ssh case", filepath.Join(f.home, ".SSH", "id_rsa"), "", ErrProtected},
		{"home aws", filepath.Join(f.home, ".aws", "credentials"), "", ErrProtected},
		{"shadow", "/etc/shadow", "", ErrProtected},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := w.Resolve(tc.in)
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("Resolve(%q) = %q, %v; want error %v", tc.in, got, err, tc.err)
				}
				var pe *PathError
				if !errors.As(err, &pe) || pe.Path != tc.in || pe.Rule == "" {
					t.Fatalf("error %v is not a *PathError with Path and Rule", err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("Resolve(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
		})
	}
}

func TestResolveErrorMessage(t *testing.T) {
	f := newFixture(t)
	w := f.ws(t, WorkspaceOptions{})
	_, err := w.Resolve("../x")
	want := `"../x" is outside the workspace ` + f.root + `: file tools are confined to the workspace; ask the user to add a directory with --add-dir`
	if err == nil || err.Error() != want {
		t.Fatalf("got %v\nwant %s", err, want)
	}
	mustSymlink(t, f.outside, filepath.Join(f.root, "out"))
	_, err = w.Resolve("out/secret.txt")
	if err == nil || !strings.Contains(err.Error(), "symlink out") || !strings.Contains(err.Error(), f.outside) {
		t.Fatalf("symlink error does not name the link and target: %v", err)
	}
	_, err = w.Resolve(filepath.Join(f.home, ".ssh", "id_rsa"))
	if err == nil || !strings.Contains(err.Error(), "protected") || !strings.Contains(err.Error(), "--add-dir") {
		t.Fatalf("protected error: %v", err)
	}
}

func TestResolveUnconfined(t *testing.T) {
	f := newFixture(t)
	w := f.ws(t, WorkspaceOptions{Unconfined: true})
	if got, err := w.Resolve(filepath.Join(f.outside, "secret.txt")); err != nil || got != filepath.Join(f.outside, "secret.txt") {
		t.Fatalf("unconfined outside: %q %v", got, err)
	}
	for _, p := range []string{"/proc/self/environ", filepath.Join(f.home, ".ssh", "id_rsa"), filepath.Join(f.outside, ".env"), filepath.Join(f.outside, "server.pem")} {
		if _, err := w.Resolve(p); !errors.Is(err, ErrProtected) {
			t.Errorf("unconfined %s: want ErrProtected, got %v", p, err)
		}
	}
	if !w.Contains("/anything") {
		t.Error("unconfined Contains should be true")
	}
}

func TestResolveGrantedProtected(t *testing.T) {
	f := newFixture(t)
	// Granting the home dir does not grant ~/.ssh; granting ~/.ssh does.
	w := f.ws(t, WorkspaceOptions{ExtraDirs: []string{f.home}})
	if _, err := w.Resolve(filepath.Join(f.home, ".ssh", "id_rsa")); !errors.Is(err, ErrProtected) {
		t.Fatalf("granted home should not expose .ssh: %v", err)
	}
	w = f.ws(t, WorkspaceOptions{ExtraDirs: []string{filepath.Join(f.home, ".ssh")}})
	if _, err := w.Resolve(filepath.Join(f.home, ".ssh", "id_rsa")); err != nil {
		t.Fatalf("explicitly granted .ssh: %v", err)
	}
	// .env inside the workspace resolves (the policy asks before reading it).
	if _, err := w.Resolve(".env"); err != nil {
		t.Fatalf(".env inside: %v", err)
	}
}

func TestNewWorkspaceErrors(t *testing.T) {
	f := newFixture(t)
	if _, err := NewWorkspace(filepath.Join(f.tmp, "missing"), WorkspaceOptions{}); err == nil {
		t.Error("missing root accepted")
	}
	if _, err := NewWorkspace(filepath.Join(f.root, "inside.txt"), WorkspaceOptions{}); err == nil {
		t.Error("file root accepted")
	}
	if _, err := NewWorkspace(f.root, WorkspaceOptions{ExtraDirs: []string{filepath.Join(f.tmp, "nope")}}); err == nil || !strings.Contains(err.Error(), "--add-dir") {
		t.Errorf("missing extra dir: %v", err)
	}
	if _, err := NewWorkspace("", WorkspaceOptions{}); err == nil {
		t.Error("empty root accepted")
	}
}

func TestRootResolvesSymlinks(t *testing.T) {
	f := newFixture(t)
	link := filepath.Join(f.tmp, "wslink")
	mustSymlink(t, f.root, link)
	w, err := NewWorkspace(link, WorkspaceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if w.Root() != f.root {
		t.Fatalf("Root() = %q, want %q", w.Root(), f.root)
	}
	if got, err := w.Resolve(filepath.Join(link, "inside.txt")); err != nil || got != filepath.Join(f.root, "inside.txt") {
		t.Fatalf("absolute path through the root's symlink: %q %v", got, err)
	}
}

func TestRelContains(t *testing.T) {
	f := newFixture(t)
	w := f.ws(t, WorkspaceOptions{ExtraDirs: []string{f.extra}})
	for in, want := range map[string]string{
		f.root:                          ".",
		filepath.Join(f.root, "a", "b"): "a/b",
		f.sibling:                       f.sibling,
		"/etc/hosts":                    "/etc/hosts",
	} {
		if got := w.Rel(in); got != want {
			t.Errorf("Rel(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]bool{
		f.root: true, filepath.Join(f.root, "x"): true, f.sibling: false, f.tmp: false,
		filepath.Join(f.extra, "e.txt"): true, filepath.Join(f.root, "..", "outside"): false,
	} {
		if got := w.Contains(in); got != want {
			t.Errorf("Contains(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestIsProtectedWrite(t *testing.T) {
	f := newFixture(t)
	cfg := filepath.Join(f.home, ".config", "aidex", "config.toml")
	w := f.ws(t, WorkspaceOptions{ConfigFiles: []string{cfg}})
	j := func(p string) string { return filepath.Join(f.root, filepath.FromSlash(p)) }
	for in, want := range map[string]bool{
		j(".git/hooks/pre-commit"):    true,
		j(".Git/hooks/pre-commit"):    true,
		j(".git./config"):             true,
		j(".git /config"):             true,
		j("GIT~1/config"):             true,
		j("sub/.git/config"):          true,
		j(".aidex/config.toml"):       true,
		j(".AIDEX/config.toml"):       true,
		j(".vscode/settings.json"):    true,
		j(".gitignore"):               false,
		j("src/main.go"):              false,
		j("git/x"):                    false,
		cfg:                           true,
		j(".github/workflows/ci.yml"): false,
	} {
		if got := w.IsProtectedWrite(in); got != want {
			t.Errorf("IsProtectedWrite(%q) = %v, want %v", in, got, want)
		}
	}
	// A .git file pointing elsewhere protects the real git dir too.
	f2 := newFixture(t)
	if err := os.RemoveAll(filepath.Join(f2.root, ".git")); err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(f2.root, "real.git")
	mustMkdir(t, filepath.Join(real, "hooks"))
	mustWrite(t, filepath.Join(f2.root, ".git"), "gitdir: real.git\n")
	w2 := f2.ws(t, WorkspaceOptions{})
	if !w2.IsProtectedWrite(filepath.Join(real, "hooks", "post-checkout")) {
		t.Error("gitdir target not protected")
	}
}
