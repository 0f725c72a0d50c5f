package file

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/tools"
	"github.com/zelvior/aidex/internal/tools/toolstest"
)

// A path that expects a shell ("$HOME/x", "~/x", "`pwd`/x") is refused
// with a validation error, and nothing named after it appears in the
// workspace; a file by that literal name that exists is used as named.
func TestShellSyntaxPaths(t *testing.T) {
	paths := []string{"$HOME/.bashrc", "${HOME}/.bashrc", "~/.bashrc", "~root/x", "`pwd`/x.txt",
		"$(pwd)/x.txt", "src/$USER.txt", "a/${X}/b", "$HOME"}
	calls := []struct {
		tool string
		args func(p string) m
	}{
		{"write_file", func(p string) m { return m{"path": p, "content": "x"} }},
		{"edit_file", func(p string) m { return m{"path": p, "old_str": "a", "new_str": "b"} }},
		{"read_file", func(p string) m { return m{"path": p} }},
		{"create_directory", func(p string) m { return m{"path": p} }},
	}
	for _, c := range calls {
		for _, p := range paths {
			t.Run(c.tool+" "+p, func(t *testing.T) {
				f := newFixture(t)
				r := f.Fail(c.tool, c.args(p), tools.CategoryValidation)
				require.Contains(t, r.Error, "paths are not shell-expanded; use a path relative to the workspace")
				entries, err := os.ReadDir(f.Root)
				require.NoError(t, err)
				require.Empty(t, entries, "nothing created in the workspace")
			})
		}
	}

	// Literal names that exist are fine: reading, editing and rewriting them.
	f := newFixture(t)
	f.Write("~/notes.txt", "a\n")
	f.Write("build/Outer$Inner.class", "a\n")
	for _, p := range []string{"~/notes.txt", "build/Outer$Inner.class"} {
		f.OK("read_file", m{"path": p})
		f.OK("edit_file", m{"path": p, "old_str": "a", "new_str": "b"})
		f.OK("write_file", m{"path": p, "content": "c\n"})
		b, err := os.ReadFile(filepath.Join(f.Root, filepath.FromSlash(p)))
		require.NoError(t, err)
		require.Equal(t, "c\n", string(b))
	}
	// Ordinary names with '$' or '~' that no shell would expand are fine.
	for _, p := range []string{"backup.txt~", "price$5.txt", "a/~b/c.txt", "cost$.txt", "routes/posts.$postId.tsx", "routes/$slug.tsx", "Outer$Inner.java", "$Post.tsx"} {
		f.OK("write_file", m{"path": p, "content": "x"})
	}
}

func TestShellSyntax(t *testing.T) {
	for p, want := range map[string]string{
		"$HOME/x": "$HOME", "${HOME}/x": "${", "~/x": "~", "~": "~", "~user/x": "~", "`id`": "`",
		"$(id)": "$(", "a/$_X1/b": "$_X1", "a.txt": "", "a~": "", "a/~/b": "", "p$5": "", "$": "", "a$": "", "$.txt": "",
		"a/$TMPDIR": "$TMPDIR", "routes/$postId.tsx": "", "posts.$postId.tsx": "", "Outer$Inner.java": "", "$HOME.txt": "$HOME", "$1/x": "", "$Post.tsx": "", "$USER.txt": "$USER",
	} {
		require.Equal(t, want, tools.ShellSyntax(p), p)
	}
}

// FuzzShellSyntaxPaths: whatever the path, write_file never creates a file
// or folder whose name expects a shell ("$HOME", "~", "`...`", "$(...)"),
// and ShellSyntax flags exactly a leading "~", a backtick, "$(", "${" and
// a path segment that starts with an upper-case variable ("$HOME").
func FuzzShellSyntaxPaths(f *testing.F) {
	for _, s := range []string{"$HOME/.bashrc", "~/.ssh/config", "${XDG_CONFIG_HOME}/x", "`id`", "a/$(id)/b", "ok.txt",
		"a~", "$5", "a/$", "~", "$HOME", "dir/$IFS$9x", "~/../x", "\u202e$HOME"} {
		f.Add(s)
	}
	fx := toolstest.New(f, fileTools()...)
	f.Fuzz(func(t *testing.T, p string) {
		syn := tools.ShellSyntax(p)
		expands := strings.HasPrefix(p, "~") || strings.ContainsAny(p, "`") || strings.Contains(p, "$(") || strings.Contains(p, "${")
		for _, seg := range strings.Split(p, "/") {
			expands = expands || envSegment.MatchString(seg)
		}
		if (syn != "") != expands {
			t.Fatalf("ShellSyntax(%q) = %q, a shell would expand it: %v", p, syn, expands)
		}
		r := fx.Reg.Call(context.Background(), fx.Env, "write_file", mustJSON(t, m{"path": p, "content": "x"}))
		if syn != "" && r.OK {
			t.Fatalf("write_file %q succeeded: %s", p, r.Output)
		}
	})
}

// envSegment is a path segment that starts with an environment variable.
var envSegment = regexp.MustCompile(`^\$[A-Z_][A-Z0-9_]*([^a-zA-Z0-9_]|$)`)

func mustJSON(t *testing.T, v any) json.RawMessage {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}
