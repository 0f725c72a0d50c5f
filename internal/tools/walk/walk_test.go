package walk

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/stretchr/testify/require"
)

func TestGlob(t *testing.T) {
	for _, c := range []struct {
		pattern, rel string
		want         bool
	}{
		{"*.go", "a/b/c.go", true},
		{"*.go", "a/b/c.txt", false},
		{"cmd/**/*.go", "cmd/x/main.go", true},
		{"cmd/**/*.go", "pkg/main.go", false},
		{"!*_test.go", "a/x_test.go", false},
		{"!*_test.go", "a/x.go", true},
		{"./src/*.ts", "src/a.ts", true},
	} {
		g, ok := NewGlob(c.pattern)
		require.True(t, ok, c.pattern)
		require.Equal(t, c.want, g.Match(c.rel), "%s %s", c.pattern, c.rel)
	}
	_, ok := NewGlob("[")
	require.False(t, ok)
	_, ok = NewGlob("")
	require.False(t, ok)
	require.True(t, (*Glob)(nil).Match("anything"), "a nil Glob matches everything")
	require.False(t, NewPathGlob("*.go").Match("a/b.go"), "a path glob matches the whole path")
}

func TestTreeHonoursGitignore(t *testing.T) {
	root := t.TempDir()
	for f, c := range map[string]string{
		".gitignore": "*.log\nbuild/\n", "a.go": "", "debug.log": "", "build/out.go": "",
		"sub/.gitignore": "local.txt\n", "sub/local.txt": "", "sub/b.go": "", ".git/config": "",
	} {
		p := filepath.Join(root, filepath.FromSlash(f))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(c), 0o644))
	}
	var mu sync.Mutex
	var got []string
	err := Tree(context.Background(), root, 0, func(abs, rel string, d fs.DirEntry) error {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, rel)
		return nil
	})
	require.NoError(t, err)
	slices.Sort(got)
	require.Equal(t, []string{".gitignore", "a.go", "sub", "sub/.gitignore", "sub/b.go"}, got)

	err = Tree(context.Background(), root, 0, func(_, _ string, d fs.DirEntry) error {
		if d.IsDir() {
			return ErrStop
		}
		return nil
	})
	require.ErrorIs(t, err, ErrStop, "ErrStop for a directory stops the walk")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dirOnly := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dirOnly, "d"), 0o755))
	require.ErrorIs(t, Tree(ctx, dirOnly, 0, func(string, string, fs.DirEntry) error { return nil }), context.Canceled)
}

func TestGlobSuffixFastPathAgreesWithDoublestar(t *testing.T) {
	require.Equal(t, ".go", globSuffix("**/*.go", false))
	require.Equal(t, "_test.go", globSuffix("*_test.go", true))
	require.Empty(t, globSuffix("*.go", false), "a path glob's * stops at a slash")
	for _, p := range []string{"*.{go,ts}", "**/a*.go", "src/*.go", "*", "*.g?", `*\*`, "**/*"} {
		require.Empty(t, globSuffix(p, true), p)
		require.Empty(t, globSuffix(p, false), p)
	}
	rels := []string{"a.go", ".go", "x/.go", "a/b/c.go", "a.go/b", "a.gox", "ago", "a/b_test.go", "b_test.go"}
	for _, pat := range []string{"*.go", "**/*.go", "*_test.go", "!*.go"} {
		g, ok := NewGlob(pat)
		require.True(t, ok)
		slow := &Glob{pattern: g.pattern, base: g.base, neg: g.neg}
		for _, rel := range rels {
			require.Equal(t, slow.Match(rel), g.Match(rel), "%s %s", pat, rel)
		}
	}
	pg := NewPathGlob("**/*.go")
	for _, rel := range rels {
		ok, _ := doublestar.Match("**/*.go", rel)
		require.Equal(t, ok, pg.Match(rel), rel)
	}
}

func TestIgnoredLiteralPrefilterAgreesWithGoGit(t *testing.T) {
	require.Equal(t, "node_modules", needLiteral("node_modules/"))
	require.Equal(t, ".log", needLiteral("!*.log "))
	require.Equal(t, "build", needLiteral("/build/**"))
	require.Empty(t, needLiteral("[ab].txt"))
	require.Empty(t, needLiteral(`\#x`))
	root := t.TempDir()
	lines := "node_modules/\n*.log\n!keep.log\n/build/\ndocs/**/*.tmp\na?c\n[xy].txt\nsub/deep/\n**/gen/*.go\n"
	require.NoError(t, os.WriteFile(filepath.Join(root, ".gitignore"), []byte(lines), 0o644))
	fast := NewIgnores(root)
	slow := NewIgnores(root)
	for dir, ps := range slow.dirs {
		for i := range ps {
			ps[i].need = ""
		}
		slow.dirs[dir] = ps
	}
	rels := []string{"node_modules", "x/node_modules", "a.log", "keep.log", "build", "x/build", "docs/a/b.tmp",
		"abc", "axc", "x.txt", "z.txt", "sub/deep", "sub", "gen/a.go", "p/gen/a.go", "main.go"}
	for _, rel := range rels {
		for _, isDir := range []bool{false, true} {
			abs := filepath.Join(root, filepath.FromSlash(rel))
			for d := filepath.Dir(abs); d != root; d = filepath.Dir(d) {
				fast.Enter(d)
				slow.Enter(d)
			}
			require.Equal(t, slow.Ignored(abs, isDir), fast.Ignored(abs, isDir), "%s dir=%v", rel, isDir)
		}
	}
	require.True(t, fast.Ignored(filepath.Join(root, "node_modules"), true))
	require.False(t, fast.Ignored(filepath.Join(root, "keep.log"), false))
}
