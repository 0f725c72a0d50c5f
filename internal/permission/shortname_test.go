package permission

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/ospath"
)

// fakeShortNames gives the entries of dir the 8.3 short names Windows
// would: GIT~1 for .git, AIDEX~1 for .aidex, a hashed _GIT~IBP form too
// (as GetLongPathName resolves them). Wine and Linux have no short names,
// so the logic is tested through this fake.
func fakeShortNames(dir string) func(string) (string, error) {
	short := map[string]string{"GIT~1": ".git", "_GIT~IBP": ".git", "AIDEX~1": ".aidex", "SUB~1": "sub"}
	return func(p string) (string, error) {
		if long, ok := short[strings.ToUpper(filepath.Base(p))]; ok {
			return filepath.Join(filepath.Dir(p), long), nil
		}
		return p, nil
	}
}

// TestShortNamesResolveToLongNames: a protected folder reached through
// its 8.3 short name is judged as that folder, by the file tools and by
// the shell analysis; an unreadable long name of a '~' component is
// refused.
func TestShortNamesResolveToLongNames(t *testing.T) {
	f := newFixture(t)
	mustMkdir(t, filepath.Join(f.root, ".git", "hooks"))
	ws := f.ws(t, WorkspaceOptions{})
	ws.longName = fakeShortNames(f.root)
	for _, p := range []string{"GIT~1/hooks/pre-commit", "git~1/config", "_GIT~IBP/hooks/x", "sub/../GIT~1/config"} {
		res, err := ws.Resolve(p)
		if err != nil {
			t.Fatalf("Resolve(%q): %v", p, err)
		}
		if !ws.IsProtectedWrite(res) {
			t.Errorf("Resolve(%q) = %s, not a protected write (it is .git)", p, res)
		}
	}
	pol, err := NewPolicy(PolicyConfig{Mode: ModeAutoEdit, Workspace: ws, CanAsk: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []Request{
		{Tool: "write_file", Kind: kind.Write, Paths: []string{"GIT~1/hooks/pre-commit"}},
		execReq("echo x > GIT~1/hooks/pre-commit"),
		execReq("cp evil GIT~1/hooks/pre-commit"),
	} {
		if v := pol.Check(c); v.Decision == Allow {
			t.Errorf("%s %v %q allowed in auto-edit mode; a write into .git must ask: %s", c.Tool, c.Paths, c.Command, v.Reason)
		}
	}
	ws.longName = func(string) (string, error) { return "", errors.New("access denied") }
	mustMkdir(t, filepath.Join(f.root, "ODD~1"))
	if _, err := ws.Resolve("ODD~1/x"); !errors.Is(err, ErrInvalidPath) {
		t.Errorf("an existing ~ component whose long name cannot be read: err %v, want ErrInvalidPath", err)
	}
	if _, err := ws.Resolve("NEW~1/x"); err != nil {
		t.Errorf("a missing ~ component is a plain new name: %v", err)
	}
}

// TestJoinRootWindowsForms: a path rooted without a drive is on the
// workspace's drive, a drive-relative one below that drive's root, never
// below the workspace (where it would be confined to the wrong folder).
func TestJoinRootWindowsForms(t *testing.T) {
	w := ospath.Windows
	root := `C:\code\proj`
	for _, c := range []struct{ in, want string }{
		{`src\a.go`, `C:\code\proj\src\a.go`},
		{`\code\outside\x`, `C:\code\outside\x`},
		{`/code/outside/x`, `C:\code\outside\x`},
		{`D:x`, `D:\x`},
		{`C:..\x`, `C:\x`},
		{`D:\x`, `D:\x`},
		{`\\srv\share\x`, `\\srv\share\x`},
	} {
		if got := w.Clean(joinRoot(w, root, c.in)); got != c.want {
			t.Errorf("joinRoot(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := w.Clean(joinRoot(w, `\\srv\share\proj`, `\x`)); got != `\\srv\share\x` {
		t.Errorf(`\x from a UNC root = %q`, got)
	}
	if got := joinRoot(ospath.Unix, "/ws", `\code\x`); got != `/ws/\code\x` {
		t.Errorf("on Unix a backslash is a name character: %q", got)
	}
}
